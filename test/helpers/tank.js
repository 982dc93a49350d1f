'use strict';
/**
 * The tank (examples/tables/tank.json), the second plant the end-to-end tests run beside the demo
 * plant in one cloud and in a fleet: its table, a twin of it over any path, its PLC's writable
 * inputs as any S7 client reads them, and one command driven over a path and watched back.
 */
const path = require('node:path');
const assert = require('node:assert/strict');
const { loadTable } = require('../../nodes/lib/core/io-table');
const { waitFor } = require('./nodered');

const TANK_FILE = path.join(__dirname, '..', '..', 'examples', 'tables', 'tank.json');
const tank = loadTable({ file: TANK_FILE });
const RETYPE_MS = 10000; // how long driveTank waits for a command on the PLC before it sends it anew

/**
 * A twin of the tank over `protocol` (a transport of twin/transports/) with every value it sees
 * recorded, closed when the test ends.
 * @param {import('node:test').TestContext} t
 * @param {string} protocol ws | mqtt | opcua | modbus | http
 * @param {object} opts the transport's options
 * @returns {Promise<{tr: object, seen: object}>}
 */
async function tankTwin(t, protocol, opts) {
  const { createTransport } = require(`../../twin/transports/${protocol}`);
  const tr = createTransport({ ...opts, table: tank, backoff: { initialMs: 100, maxMs: 1000 } });
  const seen = {};
  tr.onValues((d) => Object.assign(seen, d));
  await tr.connect();
  t.after(() => tr.close());
  return { tr, seen };
}

/**
 * The tank PLC's setpoint, valve and recipe as any S7 client reads them.
 * @param {object} s7 a client of system/s7.js
 * @returns {Promise<{sp: number, vlv: 0|1, rcp: string}>}
 */
async function tankInputs(s7) {
  const v = await s7.read(['DB11,REAL0', 'DB11,X4.0', 'DB11,S6.16']);
  return { sp: v['DB11,REAL0'], vlv: v['DB11,X4.0'] ? 1 : 0, rcp: v['DB11,S6.16'].trimEnd() };
}

/**
 * Drive the tank over one path and watch it back: the valve closed at the PLC first (each path's
 * own cloud image starts closed, so opening it is a change on every path and its arrival is this
 * path's doing), then a setpoint, the valve and a recipe sent until the PLC holds them with their
 * types (now and then sent anew after other values), then the PLC's echoes (level, valve
 * feedback, active recipe) seen by the twin, and the UDINT counter and WORD status as numbers.
 * @param {{tr: object, seen: object}} twin from tankTwin
 * @param {object} s7 a client of the tank's PLC (system/s7.js)
 * @param {{label: string, sp: number, rcp: string}} o sp: a REAL's exact decimal
 */
async function driveTank(twin, s7, o) {
  const { label, sp, rcp } = o;
  await s7.write({ 'DB11,X4.0': false });
  // A bridge towards the PLC (OPC UA, Modbus) writes only what changed after its baseline, so a
  // command that reached the cloud while the bridge took a new one (a reconnect on a loaded
  // machine) is never written, and sending the same values again changes nothing there. Now and
  // then the twin sends other values and then these again, as a user would type them anew.
  let lastTry = Date.now();
  await waitFor(async () => {
    if (Date.now() - lastTry > RETYPE_MS) {
      twin.tr.send({ sp: sp - 1, vlv: 0, rcp: '' });
      lastTry = Date.now();
    }
    twin.tr.send({ sp, vlv: 1, rcp });
    const v = await tankInputs(s7);
    return v.sp === sp && v.vlv === 1 && v.rcp === rcp;
  }, 60000, `${label}: the command on the tank's PLC`);
  await waitFor(() => twin.seen.lvl === sp && twin.seen.vo === 1 && twin.seen.rca === rcp, 60000, `${label}: the echoes back at the twin`);
  assert.equal(typeof twin.seen.cnt, 'number', `${label}: the UDINT counter`);
  assert.equal(typeof twin.seen.sts, 'number', `${label}: the WORD status`);
}

module.exports = { TANK_FILE, tank, tankTwin, tankInputs, driveTank };
