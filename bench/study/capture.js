'use strict';
/**
 * Bytes on the wire, counted by tools this project did not write: tcpdump captures the loopback
 * of one measurement (its own network namespace, so nothing else is on it), tshark reads the
 * capture back as one line per packet, and the sums here add them up.
 *
 * What is summed, per packet: the frame (what tcpdump saw, Ethernet header included, as on
 * Linux's loopback), and the transport payload (TCP segment data, UDP data): the study's Table II
 * counts "TCP/UDP payload", so `payload` is the figure to set beside it.
 */
const { spawn, execFile } = require('node:child_process');
const dgram = require('node:dgram');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const FIELDS = ['frame.time_epoch', 'frame.len', 'tcp.srcport', 'tcp.dstport', 'tcp.len', 'udp.srcport', 'udp.dstport', 'udp.length'];
const START_TIMEOUT_MS = 15000;

/**
 * Parse tshark's `-T fields -E separator=,` output for FIELDS into packets.
 * @param {string} text
 * @returns {Array<{t:number, frame:number, proto:'tcp'|'udp'|'other', src:number|null, dst:number|null, payload:number}>}
 *   t: capture time, seconds since the epoch
 */
function parseFields(text) {
  const out = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const [time, frame, ts, td, tl, us, ud, ul] = line.split(',');
    const num = (v) => (v === undefined || v === '' ? null : Number(v.split(';')[0]));
    if (num(ts) !== null) out.push({ t: num(time), frame: num(frame), proto: 'tcp', src: num(ts), dst: num(td), payload: num(tl) || 0 });
    else if (num(us) !== null) {
      out.push({ t: num(time), frame: num(frame), proto: 'udp', src: num(us), dst: num(ud), payload: Math.max(0, (num(ul) || 8) - 8) });
    }
    else out.push({ t: num(time), frame: num(frame) || 0, proto: 'other', src: null, dst: null, payload: 0 });
  }
  return out;
}

/**
 * Add packets up.
 * @param {ReturnType<typeof parseFields>} packets
 * @param {{ignorePorts?: number[]}} [o] packets to or from these ports are left out (the bulk
 *   transfer of a network-load run)
 * @returns {{packets:number, frameBytes:number, payload:number, dataPackets:number,
 *   tcp:{packets:number, payload:number}, udp:{packets:number, payload:number}}}
 *   dataPackets: packets that carry payload (a bare TCP ACK does not)
 */
function sumPackets(packets, o = {}) {
  const ignore = new Set(o.ignorePorts || []);
  const sum = { packets: 0, frameBytes: 0, payload: 0, dataPackets: 0, tcp: { packets: 0, payload: 0 }, udp: { packets: 0, payload: 0 } };
  for (const p of packets) {
    if (ignore.has(p.src) || ignore.has(p.dst)) continue;
    sum.packets += 1;
    sum.frameBytes += p.frame;
    sum.payload += p.payload;
    if (p.payload > 0) sum.dataPackets += 1;
    if (p.proto === 'tcp' || p.proto === 'udp') {
      sum[p.proto].packets += 1;
      sum[p.proto].payload += p.payload;
    }
  }
  return sum;
}

/**
 * Split one capture into set-up and messages by the time windows in which the client sent each
 * size's messages (it writes the window's start and end, seconds since the epoch, on the same
 * clock as the capture's): packets inside a window are that size's messages with everything the
 * protocol sends because of them (acknowledgements, heartbeats), the rest is opening, the first
 * exchange that proves the pair connected, and closing.
 * @param {ReturnType<typeof parseFields>} packets
 * @param {Array<{size:number, t0:number, t1:number, messages:number}>} windows
 * @param {{ignorePorts?: number[], hops?: number}} [o] hops: links each message crosses (2 through
 *   a broker: client → broker → client), so the figures are per message and link
 * @returns {{setup: ReturnType<typeof sumPackets>, bySize: Object<number, {bytesPerMessage:number,
 *   overhead:number, packetsPerMessage:number, capture: ReturnType<typeof sumPackets>}>}} per message
 *   one way (a request or an answer): transport payload, what of it is not the application's
 *   payload, packets; per link crossed
 */
function splitByWindows(packets, windows, o = {}) {
  const inside = windows.map(() => []);
  const outside = [];
  for (const p of packets) {
    const i = windows.findIndex((w) => p.t >= w.t0 && p.t <= w.t1);
    (i >= 0 ? inside[i] : outside).push(p);
  }
  const bySize = {};
  windows.forEach((w, i) => {
    const sum = sumPackets(inside[i], o);
    const n = 2 * w.messages * (o.hops || 1);
    const bytes = n > 0 ? sum.payload / n : 0;
    bySize[w.size] = { bytesPerMessage: bytes, overhead: bytes - w.size, packetsPerMessage: n > 0 ? sum.packets / n : 0, capture: sum };
  });
  return { setup: sumPackets(outside, o), bySize };
}

/**
 * Capture the loopback with tcpdump until stop() is called, then read the packets with tshark.
 * @param {{iface?:string, filter?:string, dir?:string}} [o]
 * @returns {Promise<{stop:() => Promise<{packets:ReturnType<typeof parseFields>, dropped:number|null, file:string}>}>}
 */
async function startCapture(o = {}) {
  const dir = o.dir || fs.mkdtempSync(path.join(os.tmpdir(), 's7t-capture-'));
  const file = path.join(dir, 'capture.pcap');
  // -U: write each packet as it comes (nothing lost in a buffer at stop); -s 0: whole packets;
  // -B: a 64 MiB kernel buffer, so a burst of large messages on a busy machine is not dropped;
  // -n: no name lookups.
  const args = ['-i', o.iface || 'lo', '-w', file, '-U', '-n', '-s', '0', '--immediate-mode', '-B', '65536'];
  if (o.filter) args.push(o.filter);
  const child = spawn('tcpdump', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const exited = new Promise((r) => child.once('exit', r));
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(Object.assign(new Error(`tcpdump did not start: ${err}`), { code: 'E_CAPTURE' })), START_TIMEOUT_MS);
    child.once('error', (e) => { clearTimeout(timer); reject(Object.assign(new Error(`tcpdump: ${e.message}`), { code: 'E_CAPTURE' })); });
    child.stderr.on('data', (d) => {
      err += d;
      if (/listening on/.test(err)) { clearTimeout(timer); resolve(); }
    });
    exited.then(() => { clearTimeout(timer); reject(Object.assign(new Error(`tcpdump exited: ${err}`), { code: 'E_CAPTURE' })); });
  });
  const marker = await waitLive(file, () => child.exitCode !== null);
  return {
    async stop() {
      // Let the last packets reach the capture before it ends.
      await new Promise((r) => setTimeout(r, 200));
      child.kill('SIGINT');
      await exited;
      const m = /(\d+) packets? dropped by kernel/.exec(err);
      const text = await readWithTshark(file);
      if (!o.dir) fs.rmSync(dir, { recursive: true, force: true });
      const captured = /(\d+) packets? captured/.exec(err);
      const packets = parseFields(text).filter((p) => p.src !== marker && p.dst !== marker);
      return { packets, dropped: m ? Number(m[1]) : null, tcpdumpCount: captured ? Number(captured[1]) : null, file };
    },
  };
}

/**
 * tcpdump says "listening" before the capture is live: send datagrams to a socket of our own
 * until the capture file holds a packet, so nothing of the measurement is missed. The marker
 * packets are left out of the sums (their port is returned).
 */
async function waitLive(file, dead) {
  const sock = dgram.createSocket('udp4');
  sock.on('message', () => {});
  await new Promise((r) => sock.bind(0, '127.0.0.1', r));
  const port = sock.address().port;
  try {
    const t0 = Date.now();
    while (Date.now() - t0 < START_TIMEOUT_MS) {
      sock.send(Buffer.from('capture-marker'), port, '127.0.0.1');
      await new Promise((r) => setTimeout(r, 50));
      if (dead()) break;
      let size = 0;
      try { size = fs.statSync(file).size; } catch { /* not written yet */ }
      if (size > 24) return port; // more than the pcap file header
    }
    throw Object.assign(new Error('tcpdump captured nothing of the loopback'), { code: 'E_CAPTURE' });
  } finally {
    sock.close();
  }
}

function readWithTshark(file) {
  // occurrence=f: one value per field (a packet quoted inside an ICMP error repeats its ports).
  const args = ['-r', file, '-n', '-T', 'fields', '-E', 'separator=,', '-E', 'occurrence=f'];
  for (const f of FIELDS) args.push('-e', f);
  return new Promise((resolve, reject) => {
    execFile('tshark', args, { maxBuffer: 1 << 30 }, (e, stdout, stderr) => {
      if (e) reject(Object.assign(new Error(`tshark: ${e.message} ${stderr}`), { code: 'E_CAPTURE' }));
      else resolve(stdout);
    });
  });
}

module.exports = { parseFields, sumPackets, splitByWindows, startCapture, FIELDS };
