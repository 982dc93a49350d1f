'use strict';
/**
 * The cloud end of the high-frequency stream benchmark, a process of its own (bench/stream.js
 * starts it through bench/study/companion.js): the project's edge endpoint (lib/link/endpoint.js)
 * set up from the same settings as the s7twin-link-server node (lib/link/server-setup.js, read
 * from the S7T_* environment the launcher gives the cloud's Node-RED), taking the edge's link
 * over its transport: the WebSocket upgrade on an HTTP server of its own, or a session listener on
 * the link's broker (lib/link/transports/). For the link over the bundle's MQTT broker that broker
 * (lib/mqtt/server.js, aedes) runs in this process, as it runs in the cloud's Node-RED.
 *
 * Every `samples` frame is stamped on receipt and measured (bench/stream/stats.js,
 * lib/stream/receiver.js). Running the endpoint here rather than inside Node-RED leaves out the
 * flow's message passing; the endpoint, its intake and the transports are the nodes' own.
 *
 *   node bench/stream/cloud.js '<options as JSON>'   # {maxPayloadKiB, aedes: {port, users, maxFrameBytes}}
 *
 * Lines in (JSON on stdin): {cmd: 'window', perSample, check} starts a measured window;
 * {cmd: 'report'} ends it and answers {report}; {cmd: 'status'} answers {status} (the link up, and
 * per signal the index the window's next frame should start at).
 * Lines out: {ready}, {status}, {report}, {error}. Stdin closing stops it.
 */
const http = require('node:http');
const readline = require('node:readline');
const clock = require('../../nodes/lib/core/clock');
const { createEndpoint } = require('../../nodes/lib/link/endpoint');
const { planEndpoint, endpointOptions, listenerOptions } = require('../../nodes/lib/link/server-setup');
const { listen } = require('../../nodes/lib/link/transports');
const { readSamples } = require('../../nodes/lib/stream/block');
const { createStreamReceiver } = require('../../nodes/lib/stream/receiver');
const { createSignal } = require('../../nodes/lib/stream/signal');
const { createStreamStats } = require('./stats');

const say = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);

async function main() {
  const o = JSON.parse(process.argv[2] || '{}');
  const env = process.env;
  const path = '/s7twin/edge';
  const plan = planEndpoint({ role: 'edge', path, env, otherTokens: [], pathTaken: false, transport: env.S7T_LINK_TRANSPORT || '' });
  if (plan.unusable) throw Object.assign(new Error(plan.unusable.why), { code: 'E_BENCH_ARGS' });
  const maxPayloadKiB = o.maxPayloadKiB || 2048;
  const ep = createEndpoint({
    ...endpointOptions({ maxPayloadKiB }, { role: 'edge', path, id: 'bench', grants: plan.grants, transport: plan.transport }),
    hardMaxPayload: maxPayloadKiB * 1024,
  });
  const stops = [];
  let where;
  if (plan.transport === 'ws') {
    const server = http.createServer((req, res) => { res.writeHead(404); res.end(); });
    server.on('upgrade', (req, socket, head) => { if (!ep.handleUpgrade(req, socket, head)) socket.destroy(); });
    await new Promise((resolve, reject) => { server.once('error', reject); server.listen(Number(env.S7T_CLOUD_PORT), '127.0.0.1', resolve); });
    stops.push(() => new Promise((r) => server.close(() => r())));
    where = `ws://127.0.0.1:${server.address().port}${path}`;
  } else {
    if (o.aedes) {
      // The link over the bundle's own broker: it runs in the cloud, as in the cloud's Node-RED.
      const { createMqttServer } = require('../../nodes/lib/mqtt/server');
      const srv = await createMqttServer({ port: o.aedes.port, wsPort: false, users: o.aedes.users, maxFrameBytes: o.aedes.maxFrameBytes });
      stops.push(() => srv.close());
    }
    const l = listen(plan.transport, { ...listenerOptions(plan.transport, {}, {}, env), admitRequest: ep.admitRequest, maxPayload: maxPayloadKiB * 1024 });
    await l.start();
    stops.push(() => l.close());
    where = env.S7T_LINK_URL;
  }

  let window = null;
  ep.on('envelope', (e) => {
    if (e.k !== 'samples' || !window) return;
    const at = clock.now();
    let b;
    try {
      b = readSamples(e);
    } catch {
      window.bad += 1;
      return;
    }
    if (window.rx.accept(b) === 'out-of-order') return;
    window.stats.add({ ts: e.ts, t: b.t, hz: b.hz, n: b.n }, at);
  });
  const signal = createSignal();

  const counters = () => ({ ...ep.counters });
  const commands = {
    window(m) {
      window = {
        startedAt: clock.now(),
        before: counters(),
        bad: 0,
        stats: createStreamStats({ perSample: Boolean(m.perSample) }),
        rx: createStreamReceiver(m.check ? { expect: (i) => signal.value(i) } : {}),
      };
      say({ window: true });
    },
    report() {
      if (!window) { say({ report: null }); return; }
      const ms = clock.now() - window.startedAt;
      const now = counters();
      const delta = (k) => now[k] - window.before[k];
      say({
        report: {
          windowMs: ms,
          ...window.stats.summary(ms),
          receiver: { ...window.rx.counters },
          undecodable: window.bad,
          endpoint: Object.fromEntries(['bytesIn', 'framesIn', 'duplicates', 'gaps', 'errors', 'tooLarge'].map((k) => [k, delta(k)])),
        },
      });
      window = null;
    },
    status() {
      const next = window ? Object.fromEntries(Object.entries(window.rx.signals()).map(([sig, x]) => [sig, x.next])) : {};
      say({ status: { edgeReady: ep.edgeReady(env.S7T_PLANT || 'plant1'), connections: ep.counters.connections, accepted: ep.counters.accepted, next } });
    },
  };
  readline.createInterface({ input: process.stdin }).on('line', (text) => {
    let m;
    try { m = JSON.parse(text); } catch { return; }
    const f = commands[m.cmd];
    if (f) f(m); else say({ error: `unknown command ${m.cmd}` });
  });
  const stop = async () => {
    await ep.close().catch(() => {});
    for (const s of stops.reverse()) await s().catch(() => {});
    process.exit(0);
  };
  process.stdin.on('end', stop);
  process.on('SIGTERM', stop);
  say({ ready: { pid: process.pid, transport: plan.transport, where } });
}

main().catch((err) => {
  say({ error: `${err.code || ''} ${err.message}` });
  process.stderr.write(`${err.stack || err.message}\n`);
  process.exit(2);
});
