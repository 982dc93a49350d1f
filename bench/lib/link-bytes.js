'use strict';
/**
 * Bytes on the edge↔cloud link, as the kernel counts them: the TCP payload of the edge's
 * established connections to the link's ports (the cloud's edge endpoint, the broker, the ZeroMQ
 * router), from `ss -tinp` (bytes_acked out, bytes_received in; Linux 4.2 and later). Whatever the
 * transport puts around a frame (WebSocket framing, AMQP, Kafka and MQTT packets, the link's own
 * header on a bus, the broker's acknowledgements) is in it; TCP and IP headers are not.
 *
 * The benchmark samples it around each production of a link's row: the link's bytes per box.
 */
const { execFile } = require('node:child_process');

/**
 * Sum the counters of `ss -tinpH` output for sockets of `pid` whose peer port is one of `ports`.
 * @param {string} text ss output: a line per socket, then a line (tab-indented) of its counters
 * @param {number} pid
 * @param {number[]} ports
 * @returns {{sent: number, received: number, sockets: number}}
 */
function parseSs(text, pid, ports) {
  const want = new Set(ports.map(Number));
  const out = { sent: 0, received: 0, sockets: 0 };
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const head = lines[i];
    if (!head || /^\s/.test(head)) continue;
    const info = lines[i + 1] && /^\s/.test(lines[i + 1]) ? lines[i + 1] : '';
    const cols = head.trim().split(/\s+/);
    // State-filtered output: Recv-Q Send-Q Local Peer [Process]
    const peer = cols[3] || '';
    const port = Number(peer.slice(peer.lastIndexOf(':') + 1));
    if (!want.has(port) || !new RegExp(`pid=${pid},`).test(head)) continue;
    const acked = /bytes_acked:(\d+)/.exec(info);
    const recv = /bytes_received:(\d+)/.exec(info);
    out.sent += acked ? Number(acked[1]) : 0;
    out.received += recv ? Number(recv[1]) : 0;
    out.sockets += 1;
  }
  return out;
}

/**
 * The TCP bytes so far of `pid`'s established connections to `ports`.
 * @param {number} pid
 * @param {number[]} ports
 * @returns {Promise<{sent: number, received: number, sockets: number}>}
 */
function tcpBytes(pid, ports) {
  return new Promise((resolve, reject) => {
    execFile('ss', ['-tinpH', 'state', 'established'], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout) => {
      if (err) { reject(Object.assign(new Error(`ss failed: ${err.message}`), { code: 'E_BENCH_SS' })); return; }
      resolve(parseSs(stdout, pid, ports));
    });
  });
}

/**
 * A sampler of the link's bytes: call it before and after a stretch of work, subtract.
 * @param {() => number} pid the edge's process id now (it changes when the edge restarts)
 * @param {number[]} ports the ports the edge reaches the link on
 * @returns {() => Promise<{sent: number, received: number, sockets: number}>}
 */
function linkBytesSampler(pid, ports) {
  return () => tcpBytes(pid(), ports);
}

module.exports = { parseSs, tcpBytes, linkBytesSampler };
