'use strict';
/**
 * Store and forward end to end, as a plant runs it: the virtual S7-1500, the edge and the cloud
 * Node-RED with the project's flows, Toxiproxy in the edge↔cloud link. The link is black-holed
 * for several seconds while the PLC's inputs change, written straight to the PLC over S7 as a
 * local panel would: afterwards the plant history holds every change of that time, in order,
 * with the edge's timestamps, marked backfill, and a live twin never saw one of them. Then the
 * edge is killed (-9) with a journal on its disk during another outage, and forwards it after
 * its restart.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const WebSocket = require('ws');
const { startSystem } = require('../../system/single');
const { s7Connect } = require('../../system/s7');
const { nodeStats, waitFor } = require('../helpers/nodered');
const tags = require('../../nodes/lib/core/io-table').demoTable();

// Six of the plant's inputs (not its start and stop buttons): pattern i sets them to the bits of i.
const INPUTS = ['p1f', 'p1b', 'sd', 'dmg', 'p2f', 'sk'];
const NO_LATENCY = { up: { latency: 0, jitter: 0 }, down: { latency: 0, jitter: 0 } };
const WRITE_EVERY_MS = 250; // far apart enough for the edge (2 ms reads) to see each pattern

const bits = (i) => Object.fromEntries(INPUTS.map((k, b) => [k, (i >> b) & 1]));
const patternOf = (v) => INPUTS.reduce((n, k, b) => n | ((Number(v[k]) ? 1 : 0) << b), 0);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A raw twin on the WebSocket (JSON): every frame it is sent. */
async function rawTwin(url, token) {
  const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` }, perMessageDeflate: false });
  const frames = [];
  ws.on('message', (d) => frames.push(JSON.parse(d)));
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  return { frames, close: () => { ws.terminate(); } };
}

/**
 * The input patterns a sequence of frames shows, one per frame that carries an input, from the
 * values before the first (a snapshot's are whole, a state's only what changed).
 */
function patternsOf(frames, start = {}) {
  const v = { ...start };
  const out = [];
  for (const f of frames) {
    if (!f.d || !INPUTS.some((k) => k in f.d)) continue;
    Object.assign(v, f.d);
    out.push({ p: patternOf(v), f });
  }
  return out;
}

/** Consecutive repeats taken out. */
const distinct = (list) => list.filter((x, i) => i === 0 || x.p !== list[i - 1].p);

test('a black-holed link while the PLC\'s inputs change: every change in the history as backfill, in order, none in a live view; '
  + 'a killed edge forwards its journal after the restart', { timeout: 300000 }, async (t) => {
  const sys = await startSystem({
    protocols: ['ws'], parts: { cloud: ['cloud-ws'], edge: ['edge-ws'] }, links: { 'twin-cloud': NO_LATENCY, 'cloud-edge': NO_LATENCY },
  });
  t.after(() => sys.stop());
  const c = sys.credentials;
  const history = async (from) => {
    const res = await fetch(`${sys.cloud.url}/s7twin/history?plant=${c.plant}&from=${from}&to=${Date.now() + 60000}`,
      { headers: { Authorization: `Bearer ${c.twinToken}` } });
    assert.equal(res.status, 200);
    return (await res.json()).states;
  };
  const hole = (on) => Promise.all(sys.plantProxies.flatMap((p) => (on
    ? ['upstream', 'downstream'].map((stream) => sys.toxiproxy.addToxic(p, { name: `hole_${stream}`, type: 'timeout', stream, attributes: { timeout: 0 } }))
    : [sys.toxiproxy.removeToxics(p)])));
  const twin = await rawTwin(sys.endpoints.ws.url, c.twinToken);
  t.after(() => twin.close());
  const s7 = await s7Connect(sys.plc.ports.s7);
  t.after(() => s7.close());
  const write = (i) => s7.write(Object.fromEntries(INPUTS.map((k) => [tags.get(k).s7, Boolean(bits(i)[k])])));
  const sees = (i) => () => patternsOf(twin.frames).some((x) => x.p === i);

  // Before: pattern 0, seen live by the twin.
  await waitFor(() => twin.frames.some((f) => f.k === 'snap' && 'grn' in f.d), 60000, 'edge connected and snapshot served');
  await write(0);
  await waitFor(sees(0), 10000, 'pattern 0 live');
  const twinBefore = twin.frames.length;
  // States the edge read before it was first connected were journalled too (its start): those
  // from here on are the outage's.
  const since = Date.now();

  // The outage: patterns 1..N written every 250 ms from the moment the link is black-holed (the
  // edge finds out only after its 3 s heartbeat timeout), then healed.
  const N = 28;
  const holeAt = Date.now();
  await hole(true);
  const writes = [];
  for (let i = 1; i <= N; i++) {
    writes[i] = Date.now();
    await write(i);
    await sleep(WRITE_EVERY_MS);
  }
  const healAt = Date.now();
  await hole(false);
  await waitFor(sees(N), 30000, 'the edge back, its snapshot live');

  let frames;
  const outage = () => frames.filter((f) => f.k === 'backfill' && f.ets >= since);
  await waitFor(async () => {
    frames = await history(since - 5000);
    return distinct(patternsOf(outage(), bits(0))).some((x) => x.p === N);
  }, 60000, 'the outage forwarded into the history');
  const bf = outage();
  const seen = distinct(patternsOf(bf, bits(0)));
  assert.deepEqual(seen.map((x) => x.p), Array.from({ length: N }, (x, i) => i + 1), 'every pattern of the outage, once, in order');
  for (const { p, f } of seen) {
    // One machine: the edge's clock and this test's agree within a few ms; a loaded one reads late.
    assert.ok(f.ets >= writes[p] - 5 && f.ets <= writes[p] + 2000, `pattern ${p}: the edge's timestamp ${f.ets - writes[p]} ms after its write`);
    assert.ok(Math.abs(f.t - f.ets) < 100, 'filed under that time on the cloud\'s clock (one machine: offset near 0)');
  }
  assert.ok(bf.every((f, i) => i === 0 || (f.t >= bf[i - 1].t && f.ets >= bf[i - 1].ets)), 'in order of time on both clocks');
  assert.ok(bf.every((f) => f.ets >= holeAt - 50 && f.ets <= healAt + 2000), 'backfill holds the outage only');
  const live = frames.filter((f) => f.k !== 'backfill' && f.t > holeAt + 50 && f.t < healAt);
  assert.deepEqual(live, [], 'nothing reached the cloud live during the outage');

  // The live view: the present at once after the reconnect, never a state of the outage.
  const twinSaw = patternsOf(twin.frames.slice(twinBefore), bits(0)).map((x) => x.p);
  assert.ok(!twin.frames.some((f) => f.k === 'backfill'), 'no backfill frame reached the twin');
  assert.deepEqual([...new Set(twinSaw)], [N], `the twin saw only the present after the outage (${twinSaw.join(',')})`);

  let edge;
  await waitFor(async () => { edge = (await nodeStats(sys.edge)).cloud; return edge.journal.records === 0; }, 30000, 'the journal answered and empty');
  assert.ok(edge.backfill.unconfirmedJournalled > 0, 'states written on the dead link before it was found were journalled');
  assert.deepEqual([edge.journal.dropped, edge.journal.torn], [0, 0]);
  const cloud = (await nodeStats(sys.cloud)).edge;
  assert.ok(cloud.backfillFiled >= N, JSON.stringify(cloud));
  assert.equal(cloud.backfillRefused, 0);

  // Another outage, and the edge killed with its journal on the disk; it forwards after its restart.
  const M = N + 8;
  const hole2 = Date.now();
  await hole(true);
  for (let i = N + 1; i <= M; i++) {
    writes[i] = Date.now();
    await write(i);
    await sleep(WRITE_EVERY_MS);
  }
  // The writes take about 2 s, the dead link is found after 3 s (by the edge's heartbeat, or the
  // cloud's timeout cutting the link): every pattern is read by then, and journalled as the link
  // is cut (a killed process loses nothing the kernel has).
  await waitFor(async () => {
    const s = (await nodeStats(sys.edge)).cloud;
    return s.journal.records >= M - N;
  }, 30000, 'the outage journalled at the edge');
  sys.signal('edge', 'SIGKILL');
  await hole(false);
  await sys.restart('edge');
  await waitFor(async () => {
    frames = await history(hole2 - 5000);
    return distinct(patternsOf(frames.filter((f) => f.k === 'backfill' && f.ets >= hole2 - 50), bits(N))).some((x) => x.p === M);
  }, 90000, 'the journal forwarded after the edge\'s restart');
  const after = distinct(patternsOf(frames.filter((f) => f.k === 'backfill' && f.ets >= hole2 - 50), bits(N)));
  assert.deepEqual(after.map((x) => x.p), Array.from({ length: M - N }, (x, i) => N + 1 + i), 'every pattern of the second outage, in order');
  assert.ok(!twin.frames.some((f) => f.k === 'backfill'));
  await waitFor(async () => (await nodeStats(sys.edge)).cloud.journal.records === 0, 30000, 'the journal answered and empty after the restart');
});
