'use strict';
/**
 * The example flows (examples/s7twin-cloud.json, examples/s7twin-edge.json) in two real Node-RED
 * runtimes (child processes with settings.js), an S7 server (snap7) as the PLC and raw `ws`
 * twins: the whole WebSocket–S7 path, twin → cloud → edge → PLC → edge → cloud → twin.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { startNodeRed } = require('../helpers/nodered');
const { startBareS7, openClient } = require('../helpers/nodes');

const EX = path.join(__dirname, '..', '..', 'examples');
const TWIN = 'twin-token-e2e';
const EDGE = 'edge-token-e2e';

test('example flows: commands reach the PLC in one hop each way, answers reach the right twin, state fans out', async (t) => {
  const plc = await startBareS7();
  const env = { S7T_TWIN_TOKEN: TWIN, S7T_EDGE_TOKEN: EDGE };
  const cloud = await startNodeRed({ role: 'cloud', flows: path.join(EX, 's7twin-cloud.json'), env });
  const twins = [];
  let edge = null; // until it has started
  t.after(async () => {
    for (const c of twins) c.ws.terminate();
    if (edge) await edge.stop();
    await cloud.stop();
    plc.stop();
  });
  edge = await startNodeRed({
    role: 'edge',
    flows: path.join(EX, 's7twin-edge.json'),
    env: { ...env, S7T_CLOUD_URL: `${cloud.url.replace('http', 'ws')}/s7twin/edge`, S7T_PLC_HOST: '127.0.0.1', S7T_PLC_PORT: String(plc.port) },
  });
  const twinUrl = `${cloud.url.replace('http', 'ws')}/s7twin/twin`;
  await assert.rejects(openClient(twinUrl, { token: 'wrong' }), (e) => e.statusCode === 401);

  // The edge's snapshot reaches the cloud, which hands it to every twin that connects.
  const a = await openClient(twinUrl, { token: TWIN });
  twins.push(a);
  await a.next((f) => f.k === 'snap' && 'c1' in f.d, 60000);
  const b = await openClient(`${twinUrl}?token=${TWIN}`);
  twins.push(b);
  await b.next((f) => f.k === 'snap' && 'c1' in f.d, 30000);

  a.send({ v: 1, k: 'cmd', src: 'twin-a', seq: 1, ts: Date.now(), d: { se: 1, dmg: 1 } });
  const ack = await a.next((f) => f.k === 'ack', 30000);
  assert.deepEqual(ack.ref, { src: 'twin-a', seq: 1 });
  assert.equal(plc.values().se, 1);
  // The change streams back to every twin; the ack went to twin a only.
  await a.next((f) => f.k === 'state' && f.d.se === 1, 30000);
  await b.next((f) => (f.k === 'state' || f.k === 'snap') && f.d.se === 1, 30000);
  assert.equal(b.frames.filter((f) => f.k === 'ack').length, 0);

  b.send({ v: 1, k: 'cmd', src: 'twin-b', seq: 1, ts: Date.now(), d: { c1: 1 } });
  const err = await b.next((f) => f.k === 'err', 30000);
  assert.equal(err.e.code, 'E_NOT_WRITABLE');
  assert.equal(plc.values().c1, 0);

  plc.set({ c1: 1, grn: 1 });
  const st = await b.next((f) => f.k === 'state' && f.d.c1 === 1, 30000);
  assert.equal(st.d.grn, 1);
  const stats = await (await fetch(`${edge.url}/s7twin/stats`)).json();
  const s7 = stats.nodes.find((n) => n.type === 's7twin-s7');
  assert.equal(s7.counters.acks, 1);
  // The cloud knows the plant's table (the edge sends it on connecting), so it answers the
  // refused command itself and counts it; the edge never sees it.
  assert.equal(s7.counters.refused, 0);
  const cloudStats = await (await fetch(`${cloud.url}/s7twin/stats`)).json();
  const refusedAtCloud = cloudStats.nodes.reduce((n, x) => n + ((x.counters && x.counters.tableRefused) || 0), 0);
  assert.equal(refusedAtCloud, 1, JSON.stringify(cloudStats.nodes.map((x) => [x.type, x.counters])));
});
