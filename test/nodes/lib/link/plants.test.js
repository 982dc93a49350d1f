'use strict';
/**
 * One cloud instance serving several plants with no Redis at all: tokens scoped to
 * plants and roles, one edge per plant, requests to their plant's edge only, states and
 * snapshots to their plant's twins only, answers back to the twin that asked even when twins of
 * two plants use the same sender id.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { parseGrants } = require('../../../../nodes/lib/access/auth');
const { waitFor } = require('../../../helpers/nodes');
const { startCloud } = require('../../../helpers/cloud');

const grants = parseGrants('ta:twin:a,tb:twin:b,tab:twin:a|b,va:viewer:a,ea:edge:a,eb:edge:b');
const opts = { twin: { tokens: [], viewerTokens: [], grants }, edge: { tokens: [], grants } };
const cmd = (seq, d, src = 'twin-x') => ({ v: 1, k: 'cmd', src, seq, ts: Date.now(), d });

test('tokens are scoped to plants: refused before the upgrade with 403 (other plant) or 400 (which plant?)', async (t) => {
  const cloud = await startCloud(opts);
  t.after(() => cloud.stop());
  const ok = await cloud.twin('ta');
  t.after(() => ok.ws.terminate());
  await assert.rejects(cloud.twin('ta', 'b'), (e) => e.statusCode === 403);
  await assert.rejects(cloud.twin('tab'), (e) => e.statusCode === 400);
  const both = await cloud.twin('tab', 'b');
  t.after(() => both.ws.terminate());
  await assert.rejects(cloud.twin('ea'), (e) => e.statusCode === 401, 'an edge token opens no twin endpoint');
  await assert.rejects(cloud.edgePeer('ta'), (e) => e.statusCode === 401, 'a twin token opens no edge endpoint');
  await assert.rejects(cloud.edgePeer('ea', 'b'), (e) => e.statusCode === 403);
  await assert.rejects(cloud.twin('ta', '../x'), (e) => e.statusCode === 400);
  assert.equal(cloud.twins.counters.plantRefused, 3);
});

test('two plants on one instance: one edge each, requests, answers, states and snapshots stay in their plant', async (t) => {
  const cloud = await startCloud(opts);
  t.after(() => cloud.stop());
  const edgeA = await cloud.edgePeer('ea');
  const edgeB = await cloud.edgePeer('eb');
  t.after(() => { edgeA.ws.terminate(); edgeB.ws.terminate(); });
  await edgeA.sync();
  await edgeB.sync();
  const stopA = edgeA.beat();
  t.after(stopA);
  await assert.rejects(cloud.edgePeer('ea'), (e) => e.statusCode === 409, 'one edge per plant');
  assert.equal(cloud.edge.counters.connections, 2);
  const twinA = await cloud.twin('ta');
  const twinB = await cloud.twin('tb');
  t.after(() => { twinA.ws.terminate(); twinB.ws.terminate(); });

  // The same sender id in both plants: neither is a duplicate of the other.
  twinA.send(cmd(1, { st: 1 }));
  twinB.send(cmd(1, { sp: 1 }));
  const atA = await edgeA.next((f) => f.k === 'cmd');
  const atB = await edgeB.next((f) => f.k === 'cmd');
  assert.deepEqual(atA.d, { st: 1 });
  assert.deepEqual(atB.d, { sp: 1 });
  edgeB.send(edgeB.frame('ack', { ref: { src: 'twin-x', seq: 1 } }));
  edgeA.send(edgeA.frame('err', { ref: { src: 'twin-x', seq: 1 }, e: { code: 'E_PLC_DOWN', msg: 'x' } }));
  assert.equal((await twinB.next((f) => f.ref && f.ref.seq === 1)).k, 'ack');
  assert.equal((await twinA.next((f) => f.ref && f.ref.seq === 1)).e.code, 'E_PLC_DOWN');
  assert.equal(edgeA.frames.filter((f) => f.k === 'cmd').length, 1);
  assert.equal(edgeB.frames.filter((f) => f.k === 'cmd').length, 1);

  // States to their plant's twins only; a new twin's snapshot is its plant's.
  edgeA.send(edgeA.frame('state', { d: { grn: 1, ng: 5 } }));
  edgeB.send(edgeB.frame('state', { d: { red: 1 } }));
  assert.deepEqual((await twinA.next((f) => f.k === 'state')).d, { grn: 1, ng: 5 });
  assert.deepEqual((await twinB.next((f) => f.k === 'state')).d, { red: 1 });
  const viewerA = await cloud.twin('va');
  const lateB = await cloud.twin('tab', 'b');
  t.after(() => { viewerA.ws.terminate(); lateB.ws.terminate(); });
  assert.deepEqual((await viewerA.next((f) => f.k === 'snap')).d, { grn: 1, ng: 5 });
  assert.deepEqual((await lateB.next((f) => f.k === 'snap')).d, { red: 1 });
  await new Promise((r) => setTimeout(r, 100));
  assert.ok(!twinA.frames.some((f) => f.d && f.d.red), 'plant b never reaches plant a');
  assert.ok(!twinB.frames.some((f) => f.d && f.d.grn), 'plant a never reaches plant b');
  assert.ok(!viewerA.frames.some((f) => f.d && f.d.red));

  // Plant b's edge goes: b's requests are refused, a's still served.
  edgeB.ws.terminate();
  await waitFor(() => cloud.edge.edgePlants().length === 1);
  twinB.send(cmd(2, { st: 1 }));
  assert.equal((await twinB.next((f) => f.ref && f.ref.seq === 2)).e.code, 'E_EDGE_DOWN');
  twinA.send(cmd(2, { st: 0 }));
  await edgeA.next((f) => f.k === 'cmd' && f.seq === 2);
});

test('a frame that names no plant goes nowhere on an endpoint of several plants (counted), and to the only plant otherwise', async (t) => {
  const multi = await startCloud(opts);
  t.after(() => multi.stop());
  assert.equal(multi.twins.onlyPlant, null);
  assert.equal(multi.twins.send({ v: 1, k: 'state', src: 'e', seq: 1, ts: 1, d: { grn: 1 } }), 0);
  assert.equal(multi.twins.counters.noPlant, 1);
  const single = await startCloud();
  t.after(() => single.stop());
  assert.equal(single.twins.onlyPlant, 'plant1', 'plain tokens are for S7T_PLANT, plant1 by default');
  const twin = await single.twin();
  t.after(() => twin.ws.terminate());
  assert.equal(single.twins.send({ v: 1, k: 'state', src: 'e', seq: 1, ts: 1, d: { grn: 1 } }), 1);
  await twin.next((f) => f.k === 'state');
});
