'use strict';
/**
 * The edge end of the high-frequency stream benchmark, a process of its own (bench/stream.js
 * starts it through bench/study/companion.js): the project's dialer (lib/link/dialer.js), set up
 * as the s7twin-link-client node sets it up from the S7T_* environment the launcher gives the
 * edge's Node-RED, keeps the link to the cloud over its transport; `samples` frames
 * (lib/stream/block.js) go up it from one of two sources:
 *
 * - the PLC: the signal's ring buffer read over S7 (lib/stream/reader.js over the edge's S7
 *   connection, lib/s7/connection.js, which also reads the plant's I/O every scan as the edge
 *   does), each poll's samples one frame;
 * - a generator: the study's Algorithm 1 (bench/stream/pace.js), a stream of `size` bytes of DINTs
 *   `rate` times a second, as the study's IIoT simulator sent them.
 *
 *   node bench/stream/edge.js
 *
 * Lines in (JSON on stdin), each answered when done:
 *   {cmd: 'status'}                                         → {status: {connected, counters}}
 *   {cmd: 'gen', id, sig, size, rate, hz, seconds}          → {done: id, ...}
 *   {cmd: 'plc', id, sig, port, layout, seconds, send}      → {done: id, ...} (send false: read only,
 *                                                              what S7 carries without the link)
 * Stdin closing stops it.
 */
const readline = require('node:readline');
const clock = require('../../nodes/lib/core/clock');
const envelope = require('../../nodes/lib/core/envelope');
const { DEFAULT_PLANT } = require('../../nodes/lib/core/plants');
const { createDialer } = require('../../nodes/lib/link/dialer');
const { transportId, TRANSPORTS } = require('../../nodes/lib/link/transports');
const { createS7Connection } = require('../../nodes/lib/s7/connection');
const { demoTable } = require('../../nodes/lib/core/io-table');
const { ringLayout } = require('../../nodes/lib/stream/ring');
const { createRingReader } = require('../../nodes/lib/stream/reader');
const { createSignal } = require('../../nodes/lib/stream/signal');
const { samplesEnvelope } = require('../../nodes/lib/stream/block');
const { createPacer } = require('./pace');

const say = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function dialerFromEnv(env, maxPayloadKiB) {
  const transport = transportId(env.S7T_LINK_TRANSPORT || '');
  return createDialer({
    transport,
    url: transport === 'ws' ? env.S7T_CLOUD_URL : env.S7T_LINK_URL || TRANSPORTS[transport].url,
    plant: env.S7T_PLANT || DEFAULT_PLANT,
    token: env.S7T_EDGE_TOKEN,
    username: env.S7T_LINK_USER || undefined,
    password: env.S7T_LINK_PASSWORD || undefined,
    src: 'edge-link-bench',
    encoding: env.S7T_LINK_ENCODING || 'compact',
    maxPayload: maxPayloadKiB * 1024,
    hardMaxPayload: maxPayloadKiB * 1024,
  });
}

async function main() {
  const o = JSON.parse(process.argv[2] || '{}');
  const dialer = dialerFromEnv(process.env, o.maxPayloadKiB || 2048);
  const sender = envelope.createSender('edge-stream', { now: clock.now });
  const signal = createSignal();
  // lastIndex: where the last frame handed to the link ends (what the cloud should get to).
  const sent = { sent: 0, queued: 0, dropped: 0, frames: 0, samples: 0, lastIndex: 0 };
  const send = (run, sig) => {
    const r = dialer.send(samplesEnvelope(sender, { sig, ...run }));
    sent[r] += 1;
    sent.frames += 1;
    sent.samples += run.values.length;
    sent.lastIndex = run.i + run.values.length;
  };
  const tally = () => ({ ...sent, dialer: { ...dialer.counters } });
  const resetTally = () => { for (const k of Object.keys(sent)) sent[k] = 0; };

  /** The study's generator: `size` bytes of DINTs, `rate` times a second, for `seconds`. */
  async function gen(m) {
    resetTally();
    const n = Math.max(1, Math.round(m.size / 4));
    const pacer = createPacer(m.rate);
    const end = clock.now() + m.seconds * 1000;
    let i = 0;
    let overshoot = 0;
    let slept = null;
    const t0 = clock.now();
    while (clock.now() < end) {
      const t1 = clock.now();
      if (slept) overshoot = t1 - slept.until;
      const values = signal.fill(new Int32Array(n), i);
      send({ i, t: t1, hz: m.hz, values }, m.sig);
      i += n;
      const wait = pacer.next(clock.now() - t1, overshoot);
      slept = { until: clock.now() + wait };
      await sleep(wait);
    }
    return { ...tally(), elapsedMs: clock.now() - t0, behindMs: pacer.behindMs };
  }

  /** The PLC's ring, read over S7 for `seconds`; each run of samples read goes up as one frame unless `send` is false. */
  async function plc(m) {
    resetTally();
    const layout = ringLayout(m.layout);
    const conn = createS7Connection({ host: '127.0.0.1', port: m.port, ranges: demoTable().readRanges() });
    const errors = [];
    const reader = createRingReader({
      layout,
      read: (ranges) => conn.readOnce(ranges),
      onSamples: (run) => { if (m.send !== false) send(run, m.sig); else { sent.frames += 1; sent.samples += run.values.length; } },
      onError: (err) => { if (errors.length < 5) errors.push(`${err.code || ''} ${err.message}`); },
    });
    conn.on('connect', () => reader.start());
    conn.start();
    const t0 = clock.now();
    await sleep(m.seconds * 1000);
    reader.stop();
    const elapsedMs = clock.now() - t0;
    await conn.close();
    return { ...tally(), elapsedMs, reader: { ...reader.counters }, s7: { ...conn.counters }, errors };
  }

  const commands = {
    status: async () => ({ status: { connected: dialer.connected, counters: { ...dialer.counters } } }),
    gen: async (m) => ({ done: m.id, ...await gen(m) }),
    plc: async (m) => ({ done: m.id, ...await plc(m) }),
  };
  let chain = Promise.resolve();
  readline.createInterface({ input: process.stdin }).on('line', (text) => {
    let m;
    try { m = JSON.parse(text); } catch { return; }
    const f = commands[m.cmd];
    chain = chain.then(async () => {
      if (!f) { say({ error: `unknown command ${m.cmd}` }); return; }
      try { say(await f(m)); } catch (err) { say({ done: m.id, error: `${err.code || ''} ${err.message}` }); }
    });
  });
  const stop = async () => {
    await dialer.close().catch(() => {});
    process.exit(0);
  };
  process.stdin.on('end', stop);
  process.on('SIGTERM', stop);
  dialer.on('connect', () => say({ link: 'up' }));
  dialer.on('disconnect', (code, reason) => say({ link: 'down', code, reason }));
  dialer.start();
  say({ ready: { pid: process.pid, transport: dialer.transport } });
}

main().catch((err) => {
  say({ error: `${err.code || ''} ${err.message}` });
  process.stderr.write(`${err.stack || err.message}\n`);
  process.exit(2);
});
