'use strict';
/**
 * The network floor: a plain TCP echo through the same emulated links as the protocols use, so
 * the report can show what each protocol stack adds on top of the network.
 *
 * The chain mirrors the bridge's round trip: client (twin) → link "twin-cloud" → relay (cloud) →
 * link "cloud-edge" → echo server (edge; the PLC sits next to it) and back. With the default WAN
 * profile (10 ± 2 ms and 5 ± 1 ms each way) the floor is about 30 ms plus loopback costs.
 * Each probe is a small fixed-size frame (16 bytes: 8-byte sequence + 8-byte value) answered
 * verbatim; a reply with another sequence or value counts as an error, never as a sample.
 */
const net = require('node:net');
const { performance } = require('node:perf_hooks');

const DEFAULTS = {
  host: '127.0.0.1',
  frameBytes: 16, // probe frame size, bytes
  timeoutMs: 2000, // one probe's timeout, ms
  gapMs: 5, // pause between probes, ms (spreads samples over the jitter, like the twin's events)
};

/**
 * Listen on opts.host:opts.port (0 = a free port) and close with every socket still open.
 * @param {import('node:net').Server} srv
 * @param {Set<import('node:net').Socket>} sockets the server's open sockets
 * @param {{host?:string, port?:number}} opts
 * @returns {Promise<{port:number, close:()=>Promise<void>}>}
 */
function listen(srv, sockets, opts) {
  return new Promise((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(opts.port || 0, opts.host || DEFAULTS.host, () => {
      resolve({
        port: srv.address().port,
        close: () => new Promise((r) => { for (const s of sockets) s.destroy(); srv.close(() => r()); }),
      });
    });
  });
}

/**
 * A TCP echo server (stands in for the edge): every byte is sent straight back.
 * @param {{host?:string, port?:number}} [opts]
 * @returns {Promise<{port:number, close:()=>Promise<void>}>}
 */
function startEchoServer(opts = {}) {
  const sockets = new Set();
  const srv = net.createServer((s) => {
    s.setNoDelay(true);
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {}); // a peer that drops is not an error of the echo
    s.pipe(s);
  });
  return listen(srv, sockets, opts);
}

/**
 * A plain TCP relay (stands in for the cloud Node-RED): each accepted connection opens one to
 * `target` and pipes both ways.
 * @param {{host?:string, port?:number, targetPort:number, targetHost?:string}} opts
 * @returns {Promise<{port:number, close:()=>Promise<void>}>}
 */
function startRelay(opts) {
  const sockets = new Set();
  const srv = net.createServer((a) => {
    const b = net.connect(opts.targetPort, opts.targetHost || DEFAULTS.host);
    for (const s of [a, b]) {
      s.setNoDelay(true);
      sockets.add(s);
      s.on('close', () => { sockets.delete(s); a.destroy(); b.destroy(); });
      s.on('error', () => {});
    }
    a.pipe(b);
    b.pipe(a);
  });
  return listen(srv, sockets, opts);
}

/**
 * Measure `samples` echo round trips to host:port, one at a time.
 * @param {object} opts
 * @param {number} opts.port where to connect (the head of the chain)
 * @param {number} opts.samples round trips to time
 * @param {number} [opts.warmup] round trips made first and discarded (reported as such)
 * @param {number} [opts.gapMs] pause between probes
 * @param {number} [opts.timeoutMs]
 * @param {(done:number)=>void} [opts.onProgress]
 * @returns {Promise<{samples:number[], warmup:number, errors:number, timeouts:number}>}
 */
function measureEcho(opts) {
  const samples = [];
  const total = opts.samples + (opts.warmup || 0);
  const timeoutMs = opts.timeoutMs || DEFAULTS.timeoutMs;
  const gapMs = opts.gapMs ?? DEFAULTS.gapMs;
  let errors = 0;
  let timeouts = 0;
  return new Promise((resolve, reject) => {
    const sock = net.connect(opts.port, opts.host || DEFAULTS.host);
    sock.setNoDelay(true);
    let seq = 0;
    let t0 = 0;
    let rx = Buffer.alloc(0);
    let timer = null;
    let finished = false;
    const finish = (err) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      sock.destroy();
      if (err) reject(err);
      else resolve({ samples, warmup: opts.warmup || 0, errors, timeouts });
    };
    const send = () => {
      if (seq >= total) { finish(); return; }
      seq += 1;
      const frame = Buffer.alloc(DEFAULTS.frameBytes);
      frame.writeBigUInt64BE(BigInt(seq), 0);
      frame.writeDoubleBE(seq * 7.5, 8);
      rx = Buffer.alloc(0);
      timer = setTimeout(() => { timeouts += 1; errors += 1; send(); }, timeoutMs);
      t0 = performance.now();
      sock.write(frame);
    };
    sock.on('data', (d) => {
      rx = Buffer.concat([rx, d]);
      if (rx.length < DEFAULTS.frameBytes) return;
      const ms = performance.now() - t0;
      clearTimeout(timer);
      const ok = rx.length === DEFAULTS.frameBytes && rx.readBigUInt64BE(0) === BigInt(seq) && rx.readDoubleBE(8) === seq * 7.5;
      if (!ok) errors += 1;
      else if (seq > (opts.warmup || 0)) samples.push(ms);
      if (opts.onProgress) opts.onProgress(seq);
      setTimeout(send, gapMs);
    });
    sock.on('error', (err) => finish(Object.assign(new Error(`floor echo: ${err.message}`), { code: 'E_FLOOR_SOCKET' })));
    sock.on('connect', send);
  });
}

/**
 * Build the floor chain through a network profile and measure it.
 * @param {object} opts
 * @param {object|null} opts.toxiproxy a started Toxiproxy client, or null for plain loopback
 * @param {object|null} opts.links profile links {'twin-cloud': {up, down}, 'cloud-edge': {up, down}}
 * @param {number} opts.samples
 * @param {number} [opts.warmup]
 * @param {string} [opts.tag] suffix for proxy names (several floors in one Toxiproxy)
 * @param {(done:number)=>void} [opts.onProgress]
 * @returns {Promise<{samples:number[], warmup:number, errors:number, timeouts:number}>}
 */
async function measureFloor(opts) {
  const closers = [];
  try {
    const echo = await startEchoServer();
    closers.push(echo.close);
    let edgePort = echo.port;
    const tag = opts.tag || 'floor';
    if (opts.toxiproxy && opts.links) {
      const p = await opts.toxiproxy.createProxy({ name: `${tag}-cloud-edge`, upstream: `${DEFAULTS.host}:${echo.port}` });
      closers.push(() => opts.toxiproxy.deleteProxy(p.name));
      // The edge dials the cloud, so the cloud → edge direction is the proxy's downstream; for
      // a symmetric echo only the sum matters, so up/down map straight.
      await opts.toxiproxy.addLatency(p.name, opts.links['cloud-edge'] || {});
      edgePort = p.port;
    }
    const relay = await startRelay({ targetPort: edgePort });
    closers.push(relay.close);
    let head = relay.port;
    if (opts.toxiproxy && opts.links) {
      const p = await opts.toxiproxy.createProxy({ name: `${tag}-twin-cloud`, upstream: `${DEFAULTS.host}:${relay.port}` });
      closers.push(() => opts.toxiproxy.deleteProxy(p.name));
      await opts.toxiproxy.addLatency(p.name, opts.links['twin-cloud'] || {});
      head = p.port;
    }
    return await measureEcho({ port: head, samples: opts.samples, warmup: opts.warmup, onProgress: opts.onProgress });
  } finally {
    for (const c of closers.reverse()) await c().catch(() => {});
  }
}

module.exports = { startEchoServer, startRelay, measureEcho, measureFloor, DEFAULTS };
