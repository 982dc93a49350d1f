'use strict';
/**
 * `bash scripts/start.sh` (scripts/start-all.js) as a user runs it: everything comes up, a part
 * that crashes is restarted with back-off and the bridge serves again, Ctrl-C stops everything.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnWithLifeline } = require('../../system/lifeline');
const { freePort, waitFor } = require('../helpers/nodered');
const { runTwin } = require('../../twin/run');
const { createTransport } = require('../../twin/transports/ws');

/** Ports every start-all run gets free ones for (the fleet adds Redis's). */
const PORTS = [
  'S7T_CLOUD_PORT', 'S7T_EDGE_PORT', 'S7T_PLC_PORT', 'S7T_PLC_OPCUA_PORT', 'S7T_PLC_MODBUS_PORT',
  'S7T_MQTT_PORT', 'S7T_MQTT_WS_PORT', 'S7T_OPCUA_PORT', 'S7T_MODBUS_PORT',
];

/**
 * Run scripts/start-all.js as `bash scripts/start.sh` does, on free ports and a temporary
 * flow-timer folder; killed and cleaned up after the test.
 * @returns {Promise<{env: object, child: object, exited: Promise<number>, out: string}>} `out`:
 *   everything printed so far
 */
async function startAll(t, args, morePorts = []) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-start-'));
  const env = { S7T_TIMER_DIR: path.join(dir, 'timers') };
  for (const n of [...PORTS, ...morePorts]) env[n] = String(await freePort());
  const child = spawnWithLifeline([path.join(__dirname, '..', '..', 'scripts', 'start-all.js'), ...args], {
    cwd: path.join(__dirname, '..', '..'), env: { ...process.env, ...env },
  });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const exited = new Promise((r) => child.once('exit', (code) => r(code)));
  t.after(async () => {
    if (child.exitCode === null) { child.kill('SIGKILL'); await exited; }
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { env, child, exited, get out() { return out; } };
}

test('start-all: up, a killed edge is restarted and serves again, Ctrl-C stops all', { timeout: 240000 }, async (t) => {
  const sa = await startAll(t, []);
  const { env, child, exited } = sa;
  await waitFor(() => /Everything is up/.test(sa.out), 120000, `everything up:\n${sa.out}`);
  // As a user would: a twin started once everything is up (it waits for the plant's snapshot).
  const twin = { url: `ws://127.0.0.1:${env.S7T_CLOUD_PORT}/s7twin/twin`, token: 'dev-twin-token', boxes: 3, quiet: true, snapWaitMs: 15000 };
  const first = await runTwin({ protocol: 'ws', ...twin });
  assert.equal(first.ok, true, first.reason);

  const pid = Number(/processes .*edge pid (\d+)/.exec(sa.out)?.[1]);
  assert.ok(pid, `the edge's pid is printed:\n${sa.out}`);
  process.kill(pid, 'SIGKILL');
  await waitFor(() => /\[edge \] exited \(SIGKILL\); restarting in/.test(sa.out), 20000, 'the restart notice');
  await waitFor(() => /\[edge \] back up \(restart 1, pid \d+\)/.test(sa.out), 120000, `the edge back up:\n${sa.out.slice(-3000)}`);
  const again = await runTwin({ protocol: 'ws', ...twin });
  assert.equal(again.ok, true, again.reason);

  child.kill('SIGINT');
  assert.equal(await exited, 0);
  assert.match(sa.out, /stopping/);
});

test('start-all --fleet: options checked before anything starts', () => {
  const { parseArgs } = require('../../scripts/start-all');
  assert.deepEqual(parseArgs(['--fleet']), { plc: true, verbose: false, fleet: true, instances: 2, plants: 2 });
  assert.equal(parseArgs(['--fleet', '--instances', '3', '--plants', '1']).instances, 3);
  assert.throws(() => parseArgs(['--plants', '2']), /go with --fleet/);
  assert.throws(() => parseArgs(['--fleet', '--instances', '0']), /whole number from 1 to 20/);
  assert.throws(() => parseArgs(['--fleet', '--plants', 'x']), /whole number from 1 to 20/);
  assert.throws(() => parseArgs(['--fleet', '--no-plc']), /virtual PLCs/);
});

test('start-all --fleet: redis, two instances, two plants; a twin of plant2 through instance 1, Ctrl-C stops all', { timeout: 300000 }, async (t) => {
  // Copies of a port are at +10 per instance or plant (start-all's fleet mode).
  const sa = await startAll(t, ['--fleet'], ['S7T_REDIS_PORT']);
  const { env, child, exited } = sa;
  await waitFor(() => /The fleet is up/.test(sa.out), 180000, `the fleet up:\n${sa.out}`);
  assert.match(sa.out, /2 cloud instances on Redis redis:\/\/127\.0\.0\.1:\d+, 2 plants/);
  // plant2's edge dials instance 2 first: a twin on instance 1 reaches it over the backplane.
  // Seven processes start on the suite's 2-core machine: the plant tolerates 300 ms each way
  // (conveyor 1 at half speed, as the container tests' plant; runTwin's `plant` is the model's).
  const url = [0, 1].map((i) => `ws://127.0.0.1:${Number(env.S7T_CLOUD_PORT) + 10 * i}/s7twin/twin`).join(',');
  // "Up" is every process's start-up line; plant2's edge may still be dialling, and instance 2 may
  // not have instance 1's clock yet (E_EDGE_DOWN until then): wait for a command acknowledged.
  const probe = createTransport({ url, plant: 'plant2', token: 'dev-twin-token', id: 'ready' });
  const answers = new Map();
  probe.onAnswer((a) => answers.set(a.seq, a));
  await probe.connect();
  await waitFor(async () => {
    const seq = probe.send({ sp: 0 });
    return (await waitFor(() => answers.get(seq), 20000, 'an answer')).ok;
  }, 90000, 'a command of plant2 acknowledged through instance 1');
  await probe.close();
  const transport = createTransport({ url, plant: 'plant2', token: 'dev-twin-token' });
  const twinLog = [];
  const run = await runTwin({
    protocol: 'ws', transport, boxes: 3, quiet: true, snapWaitMs: 15000, plantModel: { c1SpeedMmS: 750 }, log: (l) => twinLog.push(l),
  }).catch((err) => ({ ok: false, reason: err.message }));
  assert.equal(run.ok, true, `${run.reason}\ntwin: ${twinLog.join('\n')}\n${sa.out.slice(-4000)}`);

  const redisPid = Number(/redis-server ready on \S+ \(pid (\d+)\)/.exec(sa.out)?.[1]);
  assert.ok(redisPid, `redis-server's pid is printed:\n${sa.out}`);
  child.kill('SIGINT');
  assert.equal(await exited, 0);
  assert.throws(() => process.kill(redisPid, 0), { code: 'ESRCH' }, 'redis-server stopped with the rest');
});
