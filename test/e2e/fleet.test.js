'use strict';
/**
 * The fleet end to end (cloud instances sharing the plants over Redis): a real redis-server, two cloud Node-RED instances running the
 * project's cloud flow on it, two plants each with a virtual PLC and an edge Node-RED (plant1's
 * edge on instance 1, plant2's on instance 2). Twins on both instances; commands, answers and
 * states crossing instances; a viewer on the other instance; one edge per plant across
 * instances; the MQTT path across instances; then instance 1 killed (-9) mid-stream with the
 * fault suite's bookkeeping, and restarted.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startFleet } = require('../../system/fleet');
const { runInstanceKill } = require('../../bench/lib/fleet-faults');
const { assertCommandsSafe } = require('../helpers/faults');
const { createTransport } = require('../../twin/transports/ws');
const { createTransport: createMqtt } = require('../../twin/transports/mqtt');
const { openClient } = require('../helpers/nodes');
const { waitFor } = require('../helpers/nodered');

/** A ws twin with every answer and value recorded. */
async function twin(opts) {
  const t = createTransport({ ...opts, backoff: { initialMs: 100, maxMs: 1000 } });
  const answers = new Map();
  const values = [];
  t.onAnswer((a) => answers.set(a.seq, a));
  t.onValues((d, k) => values.push({ d, k }));
  await t.connect();
  return {
    t, answers, values,
    /** Send a command and wait for its one answer. */
    async cmd(d) {
      const seq = t.send(d);
      return waitFor(() => answers.get(seq), 20000, `the answer to command ${seq}`);
    },
  };
}

test('fleet: two instances, two plants, twins on both, an instance killed mid-stream', { timeout: 600000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-fleet-'));
  const lines = [];
  const fleet = await startFleet({ instances: 2, plants: 2, protocols: ['mqtt'], inputLogs: true, dir, log: (l) => lines.push(l) });
  t.after(async () => { await fleet.stop(); fs.rmSync(dir, { recursive: true, force: true }); });
  const closers = [];
  t.after(() => Promise.allSettled(closers.map((c) => c())));

  // Twins whose commands cross instances: plant1 (edge on instance 1) from instance 2, and back.
  const a = await twin(fleet.twin('plant1', 1, { id: 'a' }));
  const b = await twin(fleet.twin('plant2', 0, { id: 'b' }));
  closers.push(() => a.t.close(), () => b.t.close());
  await waitFor(async () => (await a.cmd({ sp: 0, st: 1 })).ok, 90000, 'a command of plant1 acknowledged across instances');
  await waitFor(async () => (await b.cmd({ sp: 1, st: 0 })).ok, 90000, 'a command of plant2 acknowledged across instances');
  await a.cmd({ st: 0 });

  // plant1 runs (its green lamp, from its PLC through its edge on instance 1) at the twin on
  // instance 2 and at a viewer there; plant2's twin never sees plant1's values.
  await waitFor(() => a.values.some((v) => v.d.grn === 1), 20000, 'plant1 running, seen on instance 2');
  const viewer = await twin(fleet.viewer('plant1', 1, { id: 'v' }));
  closers.push(() => viewer.t.close());
  await waitFor(() => viewer.values.some((v) => v.k === 'snap' && v.d.grn === 1), 20000, 'the viewer\'s snapshot');
  assert.equal((await viewer.cmd({ st: 1 })).code, 'E_READ_ONLY');
  await a.cmd({ sp: 1 });
  await waitFor(() => viewer.values.some((v) => v.d.grn === 0), 20000, 'the viewer sees plant1 stop');
  await a.cmd({ sp: 0 });
  assert.ok(!b.values.some((v) => v.d.grn === 1), 'plant2 was never started: nothing of plant1 reached it');

  // One edge per plant across instances: plant1's edge is on instance 1, so instance 2 refuses another.
  await assert.rejects(openClient(`${fleet.edgeUrl(1)}?plant=plant1`, { token: fleet.edgeToken('plant1') }), (e) => e.statusCode === 409);

  // MQTT across instances: plant1's PLC publishes to instance 1's broker; a twin on instance 2's.
  const mq = createMqtt({ ...fleet.mqttTwin('plant1', 1), id: 'fleet' });
  closers.push(() => mq.close());
  const mqValues = [];
  mq.onValues((d) => mqValues.push(d));
  await mq.connect();
  await waitFor(() => mqValues.some((d) => d.grn === 0), 20000, 'plant1\'s state over MQTT on instance 2');
  mq.send({ st: 1 });
  await waitFor(() => mqValues.some((d) => d.grn === 1), 20000, 'an MQTT command through instance 2 starts plant1');
  mq.send({ st: 0, sp: 1 });
  await waitFor(() => mqValues.some((d) => d.grn === 0), 20000, 'and stops it');
  await mq.close();
  await a.t.close();
  await b.t.close();
  await viewer.t.close();

  // Instance 1 killed while two twins stream: t1 drives plant1 from instance 2 (its commands went
  // to plant1's edge on instance 1: the edge fails over to instance 2); t2 drives plant2 from
  // instance 1 (the twin fails over to instance 2, where plant2's edge is).
  const results = await runInstanceKill(fleet, {
    twins: [{ id: 't1', plant: 'plant1', instance: 1 }, { id: 't2', plant: 'plant2', instance: 0 }],
    kill: 0,
    log: (l) => lines.push(l),
  });
  t.diagnostic(lines.join('\n'));
  for (const r of results) {
    t.diagnostic(`${r.id}: ${r.sent} commands, answers ${JSON.stringify(r.answers)}, detected ${r.detectedMs} ms, ` +
      `acknowledged again ${r.recoveryMs} ms after the kill, failovers ${r.failovers}`);
  }
  for (const r of results) {
    const what = `${r.id}: ${JSON.stringify(r)}`;
    assertCommandsSafe(r, what);
  }
  assert.ok(results.find((r) => r.id === 't2').failovers >= 1, 'the twin on the killed instance moved to the other');

  // Instance 1 back: it rejoins the fleet, and a twin on it reaches both plants (their edges are on instance 2 now).
  await fleet.restartCloud(0);
  const again1 = await twin(fleet.twin('plant1', 0, { id: 'c' }));
  const again2 = await twin(fleet.twin('plant2', 0, { id: 'd' }));
  closers.push(() => again1.t.close(), () => again2.t.close());
  await waitFor(async () => (await again1.cmd({ sp: 0 })).ok, 60000, 'plant1 from the restarted instance');
  await waitFor(async () => (await again2.cmd({ sp: 0 })).ok, 60000, 'plant2 from the restarted instance');
  assert.ok(again1.values.some((v) => v.k === 'snap'), 'a snapshot on the restarted instance');
});
