'use strict';
/**
 * Two plants with different I/O tables in a fleet: a real redis-server, two cloud instances,
 * plant1 the demo box-sorting plant (edge on instance 1) and plant2 the tank (edge on instance
 * 2). No cloud instance is configured with the tank's table: instance 2 learns it from the tank's
 * edge and shares it over Redis, so instance 1 checks the tank's commands against it (a twin
 * there, the MQTT broker there) while the demo plant keeps its own.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { startFleet } = require('../../system/fleet');
const { createTransport } = require('../../twin/transports/ws');
const { createTransport: createMqtt } = require('../../twin/transports/mqtt');
const { loadTable } = require('../../nodes/lib/core/io-table');
const { waitFor } = require('../helpers/nodered');

const TANK_FILE = path.join(__dirname, '..', '..', 'examples', 'tables', 'tank.json');
const tank = loadTable({ file: TANK_FILE });

/** A ws twin with every answer and value recorded. */
async function twin(t, opts) {
  const tr = createTransport({ ...opts, backoff: { initialMs: 100, maxMs: 1000 } });
  const answers = new Map();
  const seen = {};
  tr.onAnswer((a) => answers.set(a.seq, a));
  tr.onValues((d) => Object.assign(seen, d));
  await tr.connect();
  t.after(() => tr.close());
  return {
    tr, seen,
    /** Send a command and wait for its one answer. */
    async cmd(d) {
      const seq = tr.send(d);
      return waitFor(() => answers.get(seq), 20000, `the answer to command ${seq}`);
    },
  };
}

test('fleet: the tank\'s table learned from its edge on one instance, checked on the other', { timeout: 600000 }, async (t) => {
  const fleet = await startFleet({ instances: 2, plants: 2, protocols: ['mqtt'], tables: { plant2: TANK_FILE } });
  t.after(() => fleet.stop());

  // A twin of the tank on instance 1, whose edge is on instance 2.
  const a = await twin(t, fleet.twin('plant2', 0, { id: 'tank-a' }));
  await waitFor(async () => (await a.cmd({ sp: 42.5, vlv: 1, rcp: 'Milk' })).ok, 90000, 'a tank command acknowledged across instances');
  await waitFor(() => a.seen.lvl === 42.5 && a.seen.vo === 1 && a.seen.rca === 'Milk', 30000, 'the tank\'s echoes on instance 1');
  assert.equal((await a.cmd({ sp: 150 })).code, 'E_RANGE', 'checked on instance 1 against the table instance 2 learned');
  assert.equal((await a.cmd({ st: 1 })).code, 'E_UNKNOWN_TAG', 'a tag of the demo plant is no tag of the tank\'s');

  // The demo plant beside it, on its own table, from instance 2.
  const b = await twin(t, fleet.twin('plant1', 1, { id: 'demo-b' }));
  await waitFor(async () => (await b.cmd({ sp: 0, st: 1 })).ok, 90000, 'a demo command acknowledged across instances');
  await waitFor(() => b.seen.grn === 1, 30000, 'the demo plant running');
  assert.equal((await b.cmd({ sp: 42.5 })).code, 'E_TYPE', 'sp is the demo plant\'s StopButton, a BOOL');
  await b.cmd({ st: 0, sp: 1 });

  // MQTT on instance 1: the broker checks the tank's commands with the shared table; the tank's
  // PLC publishes to instance 2's broker, the cluster brings its states over.
  const m = createMqtt({ ...fleet.mqttTwin('plant2', 0), table: tank, backoff: { initialMs: 100, maxMs: 1000 } });
  const mqttSeen = {};
  m.onValues((d) => Object.assign(mqttSeen, d));
  await m.connect();
  t.after(() => m.close());
  await waitFor(() => {
    m.send({ sp: 33.5, rcp: 'Beer' });
    return mqttSeen.lvl === 33.5 && mqttSeen.rca === 'Beer';
  }, 60000, 'a tank command over MQTT on instance 1');
  // A second MQTT twin sends a setpoint the tank's table refuses, then the first a recipe: once
  // the recipe is back, the refused command had its turn.
  const m2 = createMqtt({ ...fleet.mqttTwin('plant2', 0), id: 'over', table: tank, backoff: { initialMs: 100, maxMs: 1000 } });
  await m2.connect();
  t.after(() => m2.close());
  m2.send({ sp: 150 });
  await new Promise((r) => setTimeout(r, 300));
  m.send({ rcp: 'After' });
  await waitFor(() => mqttSeen.rca === 'After', 30000, 'the command after the refused one');
  assert.equal(mqttSeen.lvl, 33.5, 'a setpoint beyond the tank\'s range never reached the PLC');
});
