'use strict';
/**
 * The launcher's Toxiproxy client (system/toxiproxy.js) and the benchmark's network floor against
 * a real Toxiproxy server (built by scripts/toxiproxy.sh when missing). Latency is checked only as
 * a lower bound: Toxiproxy never delivers earlier than its latency minus jitter, however loaded
 * the machine is.
 */
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { startToxiproxy, ToxiproxyError } = require('../../system/toxiproxy');
const { startEchoServer, measureEcho, measureFloor } = require('../../bench/lib/floor');
const { readProc } = require('../../bench/lib/cost');

let tp;
let echo;
before(async () => {
  tp = await startToxiproxy();
  echo = await startEchoServer();
});
after(async () => {
  if (echo) await echo.close();
  if (tp) await tp.stop();
});

test('a proxy forwards, a latency toxic delays each direction, removing it restores the path', async () => {
  const p = await tp.createProxy({ name: 'echo-test', upstream: `127.0.0.1:${echo.port}` });
  assert.ok(p.port > 0 && p.port !== echo.port);
  const plain = await measureEcho({ port: p.port, samples: 5 });
  assert.equal(plain.samples.length, 5);
  assert.equal(plain.errors, 0);

  await tp.addLatency(p.name, { up: { latency: 15, jitter: 0 }, down: { latency: 10, jitter: 0 } });
  const slow = await measureEcho({ port: p.port, samples: 5 });
  assert.equal(slow.errors, 0);
  for (const ms of slow.samples) assert.ok(ms >= 24, `round trip ${ms} ms includes 15 + 10 ms of toxics`);

  await tp.removeToxics(p.name);
  const again = await measureEcho({ port: p.port, samples: 3, warmup: 1 });
  assert.equal(again.samples.length, 3);
  assert.equal(again.warmup, 1);
  await tp.deleteProxy(p.name);
});

test('API errors carry a stable code', async () => {
  await assert.rejects(tp.addLatency('no-such-proxy', { up: { latency: 1 } }), (err) => err instanceof ToxiproxyError && err.code === 'E_TOXIPROXY_API');
  await assert.rejects(tp.createProxy({ name: 'x' }), { code: 'E_TOXIPROXY_ARG' });
});

test('the floor chain adds both links of a profile and cleans its proxies up', async () => {
  const links = {
    'twin-cloud': { up: { latency: 6, jitter: 1 }, down: { latency: 6, jitter: 1 } },
    'cloud-edge': { up: { latency: 3, jitter: 0 }, down: { latency: 3, jitter: 0 } },
  };
  const r = await measureFloor({ toxiproxy: tp, links, samples: 10, warmup: 2, tag: 'floor-test' });
  assert.equal(r.samples.length, 10);
  assert.equal(r.errors, 0);
  for (const ms of r.samples) assert.ok(ms >= 16, `floor ${ms} ms holds 2 × (5..7) + 2 × 3 ms`);
  assert.equal(tp.proxies.size, 0, 'floor proxies deleted');
});

test('stop ends the server process', async () => {
  const other = await startToxiproxy();
  assert.ok(readProc(other.pid));
  await other.stop();
  assert.equal(readProc(other.pid), null);
});
