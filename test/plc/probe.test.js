'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { startPlc, waitFor, s7Connect } = require('../helpers/plc');

let plc;
let s7;

before(async () => {
  plc = await startPlc({ opcua: false, modbus: false });
  s7 = await s7Connect(plc.ports.s7);
});

after(async () => {
  if (s7) await s7.close();
  if (plc) await plc.stop();
});

/** Scans completed so far, as a PLC-side clock that does not depend on wall time. */
const scans = () => plc.counters.scans;

test('a request written over S7 appears in its response slot within two scans', async () => {
  for (const [slot, value] of [[0, 1], [1, 123456789], [511, 0xffffffff], [1023, 42]]) {
    // Count in scans, not milliseconds: note the first scan after which the response is there.
    let answeredAt = null;
    const onScan = (ev) => { if (answeredAt === null && plc.probeResponse(slot) === value) answeredAt = ev.scans; };
    plc.on('scan', onScan);
    await s7.write({ [`DB2,DWORD${4 * slot}`]: value });
    const written = scans(); // the write was in the PLC's memory before this count was taken
    const res = `DB3,DWORD${4 * slot}`;
    await waitFor(async () => (await s7.read([res]))[res] === value, 10000, `slot ${slot} over S7`);
    plc.off('scan', onScan);
    assert.ok(answeredAt !== null, 'answered by a scan');
    assert.ok(answeredAt - written <= 2, `answered ${answeredAt - written} scans after the write`);
    assert.equal(plc.probeResponse(slot), value);
  }
});

test('the copy happens at a scan boundary, never in between', async () => {
  await plc.waitScans(1);
  const at = scans();
  await s7.write({ 'DB2,DWORD40': 9 });
  // Read request and response in one S7 job: the response may lag, but can never lead.
  const v = await s7.read(['DB2,DWORD40', 'DB3,DWORD40']);
  assert.equal(v['DB2,DWORD40'], 9);
  if (scans() === at) assert.notEqual(v['DB3,DWORD40'], 9, 'no scan ran, so no copy');
  await waitFor(() => plc.probeResponse(10) === 9, 10000, 'slot 10');
  const seenAt = scans();
  assert.ok(seenAt > at);
});

test('many slots written in one job all come back, each in its own slot', async () => {
  const map = {};
  for (let i = 100; i < 120; i++) map[`DB2,DWORD${4 * i}`] = 1000 + i;
  await s7.write(map);
  await waitFor(() => {
    for (let i = 100; i < 120; i++) if (plc.probeResponse(i) !== 1000 + i) return false;
    return true;
  }, 10000, '20 slots');
  const back = await s7.read(Object.keys(map).map((k) => k.replace('DB2', 'DB3')));
  for (let i = 100; i < 120; i++) assert.equal(back[`DB3,DWORD${4 * i}`], 1000 + i);
});

test('setProbe validates slot and value and counts rejections', () => {
  const before = plc.counters.probeRejected;
  assert.throws(() => plc.setProbe(1024, 1), { code: 'E_PROBE_SLOT' });
  assert.throws(() => plc.setProbe(-1, 1), { code: 'E_PROBE_SLOT' });
  assert.throws(() => plc.setProbe(0, 2 ** 32), { code: 'E_PROBE_VALUE' });
  assert.throws(() => plc.setProbe(0, 1.5), { code: 'E_PROBE_VALUE' });
  assert.equal(plc.counters.probeRejected - before, 4);
});

test('setInputs validates like the interfaces do and writes nothing on a bad batch', async () => {
  assert.throws(() => plc.setInputs({ nope: 1 }), { code: 'E_UNKNOWN_TAG' });
  assert.throws(() => plc.setInputs({ c1: 1 }), { code: 'E_NOT_INPUT' });
  assert.throws(() => plc.setInputs({ st: 2 }), { code: 'E_TYPE' });
  assert.throws(() => plc.setInputs({ sp: 1, st: 'yes' }), { code: 'E_TYPE' });
  assert.throws(() => plc.setInputs(null), { code: 'E_BAD_WRITE' });
  await plc.waitScans(2);
  assert.equal(plc.values().sp, 0);
});
