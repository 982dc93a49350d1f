'use strict';
/**
 * The REST path's idempotency keys end to end, as a user runs them: the virtual S7-1500, the
 * edge Node-RED and the cloud Node-RED with the project's flows (the WebSocket–S7 tab and the
 * browser twin's tab, where the REST endpoint lives), and plain HTTP requests with an
 * `Idempotency-Key` header. A key is written once: the same request sent again (while the first
 * is on its way, after its answer, and after the edge restarted) is answered with the first
 * outcome and never written again, which the test sees by changing the input over S7 in between.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { startWsSystem, TOKENS } = require('../helpers/system');
const { waitFor } = require('../../system/wait');
const { nodeStats } = require('../helpers/nodered');

test('REST with Idempotency-Key: a key is written once, across resends and an edge restart', { timeout: 300000 }, async (t) => {
  const sys = await startWsSystem({ cloudParts: ['cloud-ws', 'cloud-twin-ui'], env: { S7T_MQTT_WS_PORT: '' } });
  t.after(() => sys.stop());
  const rest = `${sys.cloud.url}/s7twin/rest`;
  let seq = 0;
  const body = (d, more = {}) => ({ v: 1, k: 'cmd', src: 'rest-e2e', seq: ++seq, ts: Date.now(), d, ttl: 3000, ...more });
  const post = async (env, key) => {
    const headers = { Authorization: `Bearer ${TOKENS.twin}`, 'Content-Type': 'application/json', ...(key ? { 'Idempotency-Key': key } : {}) };
    const r = await fetch(`${rest}/cmd`, { method: 'POST', headers, body: JSON.stringify(env) });
    return { status: r.status, body: await r.json() };
  };
  // The edge is up once a command without a key is acknowledged.
  await waitFor(async () => (await post(body({ se: 0 }))).status === 200, 60000, 'the edge acknowledges REST commands');

  const first = body({ se: 1 });
  const [a, b] = await Promise.all([post(first, 'rest-e2e-1'), post(first, 'rest-e2e-1')]); // sent twice at once
  assert.deepEqual([a.status, a.body.k, a.body.key], [200, 'ack', 'rest-e2e-1'], JSON.stringify(a.body));
  assert.deepEqual([b.status, b.body.k, b.body.key], [200, 'ack', 'rest-e2e-1'], JSON.stringify(b.body));
  assert.equal([a, b].filter((x) => x.body.repeat === true).length, 1, 'one was written, the other answered as its repeat');
  assert.deepEqual([a.body.ref, b.body.ref], [{ src: 'rest-e2e', seq: first.seq }, { src: 'rest-e2e', seq: first.seq }]);
  assert.equal((await sys.plc.values()).se, 1);

  // Someone else sets the input back; the same request again must not write it over that.
  await sys.plc.setInputs({ se: 0 });
  const again = await post(first, 'rest-e2e-1');
  assert.deepEqual([again.status, again.body.k, again.body.repeat], [200, 'ack', true], JSON.stringify(again.body));
  const reused = await post(body({ se: 1, sd: 1 }), 'rest-e2e-1');
  assert.deepEqual([reused.status, reused.body.e.code], [422, 'E_KEY_REUSED'], 'the key with other values: refused');
  await new Promise((r) => setTimeout(r, 300)); // a few PLC scans
  let v = await sys.plc.values();
  assert.deepEqual([v.se, v.sd], [0, 0], 'neither the repeat nor the reused key wrote anything');

  // The edge restarts (with its disk): the key and its outcome are still known there.
  const keyFile = path.join(sys.edge.userDir, 's7twin-keys', 'edge-ws.edge.s7.jsonl');
  assert.ok(fs.existsSync(keyFile), `the edge keeps its keys in ${keyFile}`);
  await sys.startEdge();
  await waitFor(async () => (await post(body({ sk: 0 }))).status === 200, 60000, 'the restarted edge acknowledges REST commands');
  const after = await post(first, 'rest-e2e-1');
  assert.deepEqual([after.status, after.body.k, after.body.repeat], [200, 'ack', true], JSON.stringify(after.body));
  await new Promise((r) => setTimeout(r, 300));
  v = await sys.plc.values();
  assert.equal(v.se, 0, 'not written again after the restart');
  const edgeStats = (await nodeStats(sys.edge))['PLC I/O'];
  assert.ok(edgeStats.keyStore.loaded >= 1, `keys loaded from the file: ${JSON.stringify(edgeStats.keyStore)}`);
  assert.equal(edgeStats.keyRepeats, 1);

  // A new key after all that is written once, and its answer says so.
  const fresh = await post(body({ se: 1 }), 'rest-e2e-2');
  assert.deepEqual([fresh.status, fresh.body.k, fresh.body.repeat], [200, 'ack', undefined]);
  assert.equal((await sys.plc.values()).se, 1);
  const cloudRest = Object.values(await nodeStats(sys.cloud)).find((c) => c && c.keyed !== undefined);
  assert.ok(cloudRest.keyed >= 6 && cloudRest.repeats >= 2 && cloudRest.duplicates === 0, JSON.stringify(cloudRest));
});
