'use strict';
/**
 * nodes/lib/core/paths.js: the one table of protocol paths. Every path in it has all of its parts
 * (docs/protocol-paths.md lists them): a twin transport that exports createTransport, its flow
 * tabs (built into the assembled flows) or its comparison flows, a docs page, cloud services whose
 * variables its flows read, an edge that reads what it is told, a row in the benchmark's tables,
 * and the launcher, the benchmark and the headless twin all know it. A path added to the table
 * with a part missing fails here, naming the part.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const paths = require('../../../../nodes/lib/core/paths');

const ROOT = path.join(__dirname, '..', '..', '..', '..');
const exists = (rel) => fs.existsSync(path.join(ROOT, rel));
const read = (rel) => fs.readFileSync(path.join(ROOT, rel), 'utf8');
const fields = (template) => [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
/** The flow files a path runs on, per role. */
function flowFiles(p) {
  if (p.kind !== 'comparison') return Object.fromEntries(Object.entries(p.tabs).map(([role, names]) => [role, names.map((n) => `flows/parts/${n}.json`)]));
  return { cloud: [`bench/flows/${p.flows}-cloud.json`], edge: [`bench/flows/${p.flows}-edge.json`].filter(exists) };
}
const flowText = (p, role) => flowFiles(p)[role].map(read).join('\n');

test('the table: unique ids, known kinds, services, logins and tables', () => {
  assert.equal(new Set(paths.ids()).size, paths.PATHS.length, 'ids are unique');
  for (const p of paths.PATHS) {
    assert.match(p.id, /^[a-z0-9-]+$/, `${p.id}: an id the command lines take`);
    assert.ok(p.label, `${p.id}: a label`);
    assert.ok(['bundle', 'comparison', 'link'].includes(p.kind), `${p.id}: kind`);
    if (p.kind === 'link') {
      assert.ok(['amqp', 'kafka', 'mqtt', 'zmq'].includes(p.link), `${p.id}: a link transport of nodes/lib/link/transports/`);
      assert.equal(p.wire, 'ws', `${p.id}: the ws path with another link`);
      assert.deepEqual(p.tabs.edge, paths.get('ws').tabs.edge, `${p.id}: the ws path's edge flows`);
      assert.equal(paths.linkOf(p.id), p.link);
    }
    for (const s of p.services) assert.ok(paths.SERVICES[s], `${p.id}: service ${s} is in SERVICES`);
    if (p.twin.login) assert.ok(paths.LOGINS[p.twin.login], `${p.id}: login ${p.twin.login} is in LOGINS`);
    for (const t of p.bench.tables) assert.ok(paths.TABLES[t], `${p.id}: table ${t} is in TABLES`);
    if (p.wire) assert.ok(paths.get(p.wire) && paths.get(p.wire).kind === 'bundle', `${p.id}: speaks the bundle path ${p.wire}'s protocol`);
  }
});

test('every path has a twin transport that exports createTransport', () => {
  for (const p of paths.PATHS) {
    assert.ok(exists(p.transport), `${p.id}: ${p.transport} exists`);
    assert.equal(typeof require(path.join(ROOT, p.transport)).createTransport, 'function', `${p.id}: ${p.transport} exports createTransport`);
    if (p.kind === 'bundle') assert.match(p.transport, /^twin\/transports\//, `${p.id}: a bundle path's transport ships with the twin`);
  }
});

test('every path has its flows: the tab parts in the assembled flows, or its comparison flows and example', () => {
  for (const p of paths.PATHS) {
    const files = flowFiles(p);
    for (const f of Object.values(files).flat()) assert.ok(exists(f), `${p.id}: ${f} exists`);
    assert.ok(files.cloud.length, `${p.id}: runs on the cloud`);
    if (p.kind !== 'comparison') {
      for (const [role, list] of Object.entries(files)) {
        const assembled = new Set(JSON.parse(read(`flows/${role}.json`)).filter((n) => n.type === 'tab').map((n) => n.id));
        for (const f of list) {
          const tab = JSON.parse(read(f)).find((n) => n.type === 'tab');
          assert.ok(tab, `${p.id}: ${f} has a tab`);
          assert.ok(assembled.has(tab.id), `${p.id}: ${f}'s tab is in flows/${role}.json (node scripts/build-flows.js)`);
        }
      }
    } else {
      assert.ok(exists(`examples/s7twin-${p.flows}.json`), `${p.id}: examples/s7twin-${p.flows}.json (node scripts/build-flows.js)`);
    }
  }
});

test('every path has a docs page, and docs/protocol-paths.md lists it', () => {
  const list = read('docs/protocol-paths.md');
  for (const p of paths.PATHS) {
    assert.match(p.docs, /^docs\/.+\.md$/, `${p.id}: docs page`);
    assert.ok(exists(p.docs), `${p.id}: ${p.docs} exists`);
    assert.ok(list.includes(`| \`${p.id}\` |`), `${p.id}: a row of the table in docs/protocol-paths.md`);
  }
});

test('what the launcher tells the flows, the flows read', () => {
  for (const p of paths.PATHS) {
    const cloud = flowText(p, 'cloud');
    for (const s of p.services) {
      const svc = paths.SERVICES[s];
      if (!svc.runtime) assert.ok(cloud.includes(svc.via || svc.env), `${p.id}: its cloud flows read ${svc.via || svc.env}`);
    }
    for (const k of Object.keys(p.cloud || {})) assert.ok(cloud.includes(k), `${p.id}: its cloud flows read ${k}`);
    const edge = flowText(p, 'edge');
    for (const k of Object.keys(p.edge)) assert.ok(edge.includes(k), `${p.id}: its edge flows read ${k}`);
    if (p.probeSlotsEnv) assert.ok(edge.includes(p.probeSlotsEnv), `${p.id}: its edge flows read ${p.probeSlotsEnv}`);
  }
});

test('templates use only what the launcher and the local system fill in', () => {
  const edgeVars = new Set(['host', 'plcHost', 'plcS7', 'plcOpcua', 'plcModbus', ...Object.keys(paths.SERVICES)]);
  for (const p of paths.PATHS) {
    const twinFields = fields(p.twin.url);
    assert.ok(twinFields.includes('host'), `${p.id}: the twin URL names the host`);
    for (const f of twinFields.filter((x) => x !== 'host')) assert.ok(p.services.includes(f), `${p.id}: the twin URL's {${f}} is one of its services`);
    for (const [k, v] of Object.entries(p.edge)) for (const f of fields(v)) assert.ok(edgeVars.has(f), `${p.id}: ${k}'s {${f}}`);
  }
  const opts = paths.twinOptions('mqtt', { host: 'h', ports: { mqtt: 1 }, logins: { mqtt: { username: 'u', password: 'p' } }, plant: 'p1' });
  assert.deepEqual(opts, { url: 'mqtt://h:1', username: 'u', password: 'p', plant: 'p1' });
  assert.deepEqual(paths.edgeEnv({ host: 'h', modbus: 5 }, ['modbus']), { S7T_MODBUS_CLOUD_HOST: 'h', S7T_MODBUS_CLOUD_PORT: '5' });
});

test('the benchmark knows every path: consistent rows, a study row where it compares with one', () => {
  const study = require('../../../../bench/study-figures.json');
  const bench = require('../../../../bench/lib/system');
  const { HELP } = require('../../../../bench/run');
  for (const p of paths.PATHS) {
    const b = p.bench;
    const has = (t) => b.tables.includes(t);
    assert.equal(b.probes, has('probe') && has('table4'), `${p.id}: probes ⇔ rows of the probe table and Table 4`);
    assert.equal(b.productions, has('table1') && has('table3'), `${p.id}: productions ⇔ rows of Tables 1 and 3`);
    assert.equal(Boolean(b.page), has('page'), `${p.id}: the browser twin speaks it ⇔ a row of the page table`);
    assert.ok(Number.isInteger(b.firstSlot) && b.firstSlot >= 0, `${p.id}: first probe slot`);
    if (b.probes) assert.ok(bench.PROBE_SLOTS[p.id] > b.firstSlot, `${p.id}: probes need a probe slot from ${b.firstSlot}`);
    if (b.study) assert.ok(study.table1.rows[b.study], `${p.id}: the study has a Table 1 row ${b.study}`);
    if (has('table5') || has('targets') || has('stock')) assert.ok(b.study, `${p.id}: a row beside the study's needs bench.study`);
    if (p.kind === 'bundle' && b.productions) assert.ok(b.bytes, `${p.id}: Table 3 says what its transport counts as bytes`);
    assert.ok(HELP.includes(p.id), `${p.id}: npm run bench -- --help lists it`);
    assert.equal(bench.hasProbe(p.id), b.probes, `${p.id}: the benchmark probes it when the table says so`);
  }
});

test('the launcher, the local system and the headless twin know every bundle path', () => {
  const { availablePaths } = require('../../../../system/flows');
  const { transportDefaults } = require('../../../../nodes/lib/core/local');
  const { USAGE } = require('../../../../twin/cli');
  const { loadTransport } = require('../../../../twin/run');
  const avail = availablePaths();
  for (const id of paths.ids()) assert.equal(avail[id], true, `${id}: available in this checkout`);
  for (const id of paths.bundle()) {
    const d = transportDefaults(id, {});
    assert.match(d.url, /^[a-z.]+:\/\/127\.0\.0\.1:\d+(\/|$)/, `${id}: npm start's system has a port for it`);
    assert.ok(USAGE.includes(id), `${id}: npm run twin -- --help lists it`);
    assert.equal(typeof loadTransport(id).createTransport, 'function', `${id}: the headless twin loads its transport`);
  }
  for (const id of paths.comparisons()) assert.throws(() => loadTransport(id), { code: 'E_PROTOCOL' }, `${id}: benchmark only`);
});

test('the protocol study\'s stacks: each is run by the study, names a bundle path or none, and docs/protocol-paths.md lists it', () => {
  const { STACKS } = require('../../../../bench/study/stacks');
  const list = read('docs/protocol-paths.md');
  const ids = paths.STUDY_STACKS.map((s) => s.id);
  assert.equal(new Set(ids).size, ids.length, 'ids are unique');
  for (const s of paths.STUDY_STACKS) {
    assert.ok(s.label && s.wire, `${s.id}: a label and what is on the wire`);
    assert.ok(['baseline', 'bundle', 'other'].includes(s.kind), `${s.id}: kind`);
    if (s.path !== null) assert.equal(paths.get(s.path) && paths.get(s.path).kind, 'bundle', `${s.id}: ${s.path} is a bundle path`);
    assert.equal(s.kind === 'bundle', s.path !== null, `${s.id}: a bundle stack, and only one, names its path`);
    assert.equal(typeof STACKS[s.id].command, 'function', `${s.id}: bench/study/stacks.js runs it`);
    assert.ok(list.includes(`| \`${s.id}\` | ${s.label} |`), `${s.id}: a row of the study's table in docs/protocol-paths.md`);
  }
  assert.deepEqual(Object.keys(STACKS), ids, 'the study runs exactly the table\'s stacks');
});
