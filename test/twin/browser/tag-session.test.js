'use strict';
/**
 * The model of the page generated for any plant (twin/browser/tag-session.js) without a browser:
 * the page's own WebSocket transport (twin/browser/link-ws.js, on Node's WebSocket, the
 * browser's API) against a stand-in twin endpoint over the real virtual PLC running the tank's
 * table (its echo rules: the level follows the setpoint, the valve's feedback its command). Writes
 * are checked against the table before they go out, land on the PLC, come back and are timed; a
 * change made at the PLC shows; the link reconnects; a viewer's write is refused by the cloud.
 * (In a real browser against the real system: test/e2e/tags-page.test.js.)
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { startHarness } = require('../../helpers/twin');
const { waitFor } = require('../../helpers/nodered');
const { createTagSession, variablesOf } = require('../../../twin/browser/tag-session');
const { createTransport } = require('../../../twin/browser/link-ws');
const { createTable } = require('../../../nodes/lib/core/io-table');

const TANK = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'examples', 'tables', 'tank.json'), 'utf8'));

function page(h, token, o = {}) {
  const s = createTagSession({
    table: TANK,
    transport: (log) => createTransport({ url: h.url, token, id: `page-${token}`, log, backoff: { initialMs: 50, maxMs: 200 } }),
    protocol: 'ws',
    ...o,
  });
  return s;
}

test('the round trips a table offers: its timed pairs and every cloud-writable tag', () => {
  assert.deepEqual(variablesOf(createTable(TANK)).map((v) => `${v.key}:${v.kind}`), ['vo:timed', 'sp:write', 'vlv:write', 'rcp:write']);
});

test('writes checked, sent, landed on the PLC and seen back; a PLC change shows; reconnect; a viewer refused', async (t) => {
  const h = await startHarness({ token: 'T', viewerToken: 'V', plc: true, table: TANK });
  const a = page(h, 'T');
  t.after(async () => { await a.stop(); await h.close(); });
  await a.start();
  await waitFor(() => a.snapshot().connection.connected && a.snapshot().counters.snaps >= 1, 10000, 'connected, with the snapshot');
  assert.equal(typeof a.snapshot().values.lvl, 'number', 'the snapshot holds the tank\'s tags');

  // Checked here first: nothing the edge would refuse goes out.
  const cmds = h.stats.cmds;
  assert.deepEqual(pickCode(a.write('sp', 150)), { ok: false, code: 'E_RANGE' });
  assert.deepEqual(pickCode(a.write('sp', 'full')), { ok: false, code: 'E_TYPE' });
  assert.deepEqual(pickCode(a.write('lvl', 5)), { ok: false, code: 'E_NOT_WRITABLE' });
  assert.deepEqual(pickCode(a.write('rcp', 'x'.repeat(17))), { ok: false, code: 'E_RANGE' });
  assert.equal(a.snapshot().counters.refusedHere, 4);
  assert.ok(a.snapshot().log.some((l) => /sp = 150 not sent: E_RANGE/.test(l.text)));

  // A setpoint as typed in a number field, the valve, a recipe.
  assert.deepEqual(a.write('sp', '42.5'), { ok: true, value: 42.5 });
  a.write('vlv', true);
  a.write('rcp', 'Milk');
  await waitFor(() => h.image.sp === 42.5 && h.image.vlv === 1 && h.image.rcp === 'Milk', 10000, 'on the PLC');
  assert.equal(h.stats.cmds, cmds + 3, 'only the good writes went out');
  await waitFor(() => { const v = a.snapshot().values; return v.lvl === 42.5 && v.vo === 1 && v.rca === 'Milk'; }, 10000, 'the echoes back');
  await waitFor(() => a.snapshot().rtt.sp.n === 1 && a.snapshot().rtt.vo.n === 1, 10000, 'the write and the timed pair timed');
  assert.ok(a.snapshot().rtt.sp.last >= 0);
  assert.equal(a.snapshot().writes.sp.state, 'done');

  // A value changed at the PLC (another client, the program): the page shows it.
  h.plc.setInputs({ sp: 55 });
  await waitFor(() => a.snapshot().values.sp === 55 && a.snapshot().values.lvl === 55, 10000, 'the PLC\'s own change');

  // The link drops: the transport reconnects by itself and the snapshot brings the page up to date.
  const snaps = a.snapshot().counters.snaps;
  h.dropClients();
  await waitFor(() => a.snapshot().connection.reconnects >= 1 && a.snapshot().counters.snaps > snaps, 10000, 'reconnected');
  a.write('sp', 12.25);
  await waitFor(() => h.image.sp === 12.25, 10000, 'a write after the reconnect');

  // A viewer: its write goes out and the cloud refuses it; the PLC keeps the setpoint.
  const v = page(h, 'V', { readOnly: true });
  t.after(() => v.stop());
  await v.start();
  await waitFor(() => v.snapshot().connection.connected, 10000, 'the viewer connected');
  assert.equal(v.write('sp', 33).ok, true, 'checked here: a valid value');
  await waitFor(() => v.snapshot().writes.sp && v.snapshot().writes.sp.state === 'refused', 10000, 'refused by the cloud');
  assert.equal(v.snapshot().writes.sp.code, 'E_READ_ONLY');
  assert.ok(v.snapshot().log.some((l) => /E_READ_ONLY/.test(l.text)));
  assert.equal(h.image.sp, 12.25, 'the viewer wrote nothing');
});

function pickCode(r) { return { ok: r.ok, code: r.code }; }
