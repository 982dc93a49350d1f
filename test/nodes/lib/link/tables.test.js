'use strict';
/**
 * Each plant's I/O table on the link: the edge sends its table first, the cloud's edge endpoint
 * learns it (or refuses an edge whose table is not the one configured for the plant) and checks
 * the plant's states against it; the twin endpoint checks a twin's commands against the plant's
 * table before relaying them; the fleet member shares a learned table with the other members
 * (in-memory connections and backplane; the whole system in test/e2e/plants.test.js).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const clock = require('../../../../nodes/lib/core/clock');
const { loadTable, demoTable, createTable, createTableRegistry } = require('../../../../nodes/lib/core/io-table');
const { createEdgeEndpoint } = require('../../../../nodes/lib/link/edge-endpoint');
const { createTwinEndpoint, twinRefusal } = require('../../../../nodes/lib/link/twin-endpoint');
const { createLocalBackplane } = require('../../../../nodes/lib/fleet/backplane');
const { createFleetMember } = require('../../../../nodes/lib/fleet/member');
const envelope = require('../../../../nodes/lib/core/envelope');
const { fakeConnection } = require('../../../helpers/cloud');
const { waitFor } = require('../../../../system/wait');

const tank = loadTable({ file: path.join(__dirname, '..', '..', '..', '..', 'examples', 'tables', 'tank.json') });
const frame = (k, seq, more = {}) => ({ v: 1, k, src: 'edge-s7', seq, ts: clock.now(), ...more });
const hello = (table, seq = 1) => frame('table', seq, { t: { fingerprint: table.fingerprint, definition: table.definition } });
const registry = () => createTableRegistry({ fallback: demoTable, createTable });

test('a table frame is an envelope of its own: t names a fingerprint, a definition may come with it', () => {
  assert.equal(envelope.validate(hello(tank)).k, 'table');
  assert.throws(() => envelope.validate(frame('table', 1, { t: { definition: {} } })), { code: 'E_SCHEMA' });
  assert.throws(() => envelope.validate(frame('table', 1)), { code: 'E_SCHEMA' });
});

test('the edge endpoint learns the plant\'s table from its edge and checks its states against it', async (t) => {
  const tables = registry();
  const ep = createEdgeEndpoint({ path: '/e', src: 'cloud-e', tokens: ['ed'], linkTimeoutMs: 3000, tables });
  t.after(() => ep.close());
  const got = [];
  ep.on('envelope', (env, id, plant) => got.push([env.k, plant, env.d]));
  await ep.fleet.claim('tank1');
  const conn = fakeConnection();
  ep.accept(conn, { plant: 'tank1' });
  conn.receive(frame('state', 1, { d: { lvl: 12.5 } }));
  assert.equal(conn.frames()[0].e.code, 'E_UNKNOWN_TAG', 'before its table: the process\'s (the demo plant\'s)');
  conn.receive(hello(tank, 2));
  assert.equal(tables.get('tank1').fingerprint, tank.fingerprint);
  assert.equal(tables.source('tank1'), 'edge');
  conn.receive(frame('state', 3, { d: { lvl: 12.5, rca: 'Milk' } }));
  conn.receive(frame('state', 4, { d: { lvl: 'high' } }));
  assert.deepEqual(got, [['state', 'tank1', { lvl: 12.5, rca: 'Milk' }]], 'the table frame is link control, the bad state refused');
  assert.equal(conn.frames()[1].e.code, 'E_TYPE');
  assert.deepEqual([ep.counters.tables, ep.counters.stateRefused], [1, 2]);
});

test('an edge whose table is not the one configured for its plant is told why and sent away', async (t) => {
  const tables = registry();
  tables.set('tank1', tank, 'config-node');
  const ep = createEdgeEndpoint({ path: '/e', src: 'cloud-e', tokens: ['ed'], linkTimeoutMs: 3000, tables });
  t.after(() => ep.close());
  await ep.fleet.claim('tank1');
  const conn = fakeConnection();
  ep.accept(conn, { plant: 'tank1' });
  conn.receive(hello(demoTable()));
  const err = conn.frames().find((f) => f.k === 'err');
  assert.equal(err.e.code, 'E_TABLE_MISMATCH');
  assert.match(err.e.msg, /plant "tank1"/);
  assert.deepEqual(conn.closes[0], { code: 1008, reason: 'E_TABLE_MISMATCH' });
  assert.equal(tables.get('tank1'), tank, 'the configured table stays');
  assert.equal(ep.counters.tableRefused, 1);
});

test('the twin endpoint checks a command against the plant\'s table before it goes anywhere', async (t) => {
  const o = { maxLifetimeMs: 5000 };
  const cmd = (d) => ({ v: 1, k: 'cmd', src: 'tw', seq: 1, ts: 1, d });
  assert.equal(twinRefusal(cmd({ sp: 42.5, rcp: 'Milk' }), { viewer: false }, o, tank), null);
  for (const [d, code] of [[{ st: 1 }, 'E_UNKNOWN_TAG'], [{ lvl: 1 }, 'E_NOT_WRITABLE'], [{ sp: 'x' }, 'E_TYPE'], [{ sp: 101 }, 'E_RANGE']]) {
    const no = twinRefusal(cmd(d), { viewer: false }, o, tank);
    assert.deepEqual([no.counter, no.err.code, no.err.ref], ['tableRefused', code, { src: 'tw', seq: 1 }], JSON.stringify(d));
  }
  const tables = registry();
  tables.set('tank1', tank);
  const ep = createTwinEndpoint({ path: '/t', src: 'cloud-t', tokens: ['tw'], tables });
  t.after(() => ep.close());
  const got = [];
  ep.on('envelope', (env, id, plant) => got.push([env.d, plant]));
  const tankTwin = fakeConnection();
  ep.accept(tankTwin, { plant: 'tank1' });
  const demoTwin = fakeConnection();
  ep.accept(demoTwin, { plant: 'plant1' });
  tankTwin.receive({ v: 1, k: 'cmd', src: 'a', seq: 1, ts: 1, d: { st: 1 } });
  demoTwin.receive({ v: 1, k: 'cmd', src: 'b', seq: 1, ts: 1, d: { st: 1 } });
  tankTwin.receive({ v: 1, k: 'cmd', src: 'a', seq: 2, ts: 1, d: { sp: 42.5 } });
  assert.deepEqual(got, [[{ st: 1 }, 'plant1'], [{ sp: 42.5 }, 'tank1']]);
  assert.equal(tankTwin.frames().find((f) => f.k === 'err').e.code, 'E_UNKNOWN_TAG');
  assert.equal(ep.counters.tableRefused, 1);
});

test('a table an edge taught one member reaches the others; a member configured otherwise keeps its own', async (t) => {
  const bp = createLocalBackplane();
  const sender = envelope.createSender('cloud-x');
  const regs = [registry(), registry(), registry()];
  regs[2].set('tank1', demoTable(), 'config-node');
  const members = regs.map((tables, i) => createFleetMember({ backplane: bp, sender, id: `m${i}`, tables, onRequest() {}, onEnvelope() {} }));
  t.after(() => Promise.all(members.map((m) => m.close())));
  await Promise.all(members.map((m) => m.ready()));
  regs[0].learn('tank1', { fingerprint: tank.fingerprint, definition: tank.definition });
  await members[0].announceTable('tank1', tank);
  await waitFor(() => regs[1].get('tank1').fingerprint === tank.fingerprint, 5000, 'the other member learns it');
  assert.equal(regs[2].get('tank1'), demoTable(), 'configured: kept');
  assert.equal(members[2].counters.tableRefused, 1);
  const late = registry();
  const m3 = createFleetMember({ backplane: bp, sender, id: 'm3', tables: late, onRequest() {}, onEnvelope() {} });
  t.after(() => m3.close());
  await m3.loadTable('tank1');
  assert.equal(late.get('tank1').fingerprint, tank.fingerprint, 'a member that came later reads it');
});
