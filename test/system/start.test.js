'use strict';
/**
 * system/start.js, what `npm start` runs: the environment every part gets (the local defaults, the
 * user's settings winning, the edge's view of the cloud from the table of protocol paths), the
 * fleet's layout (ports + 10 per copy, scoped tokens, each edge dialling its own instance first),
 * and the supervisor (a part that exits is restarted; stop() stops them all).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { buildEnv, services, fleetServices, supervise } = require('../../system/start');
const { OLD_SPACE_MB } = require('../../system/nodered');
const { spawnWithLifeline } = require('../../system/lifeline');
const { waitFor } = require('../../system/wait');

test('buildEnv: the local defaults, the user\'s settings win, the edge reaches the cloud on its ports', () => {
  const e = buildEnv({}, {});
  assert.equal(e.S7T_CLOUD_PORT, '1880');
  assert.equal(e.S7T_CLOUD_URL, 'ws://127.0.0.1:1880/s7twin/edge');
  assert.equal(e.S7T_OPCUA_URL, 'opc.tcp://127.0.0.1:4841');
  assert.equal(e.S7T_MODBUS_CLOUD_PORT, '5021');
  assert.equal(e.S7T_PLC_S7_PORT, '10102');
  assert.equal(e.S7T_STOCK_EDGE_URL, undefined, 'no comparison stack runs under npm start');
  const mine = buildEnv({ scan: 5 }, { S7T_CLOUD_PORT: '2000', S7T_OPCUA_URL: 'opc.tcp://elsewhere:1', S7T_PLC_SCAN_MS: '' });
  assert.equal(mine.S7T_CLOUD_URL, 'ws://127.0.0.1:2000/s7twin/edge', 'follows the cloud\'s port');
  assert.equal(mine.S7T_OPCUA_URL, 'opc.tcp://elsewhere:1', 'a setting of the user\'s wins');
  assert.equal(mine.S7T_PLC_SCAN_MS, '5', 'an empty variable counts as unset');
  assert.deepEqual(services(e, { plc: false }).map((s) => s.name), ['cloud', 'edge']);
  assert.deepEqual(services(e, { plc: true }).map((s) => s.name), ['plc', 'cloud', 'edge']);
});

test('fleetServices: copies at +10, scoped tokens, every edge dials its own instance first', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-fleet-layout-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const { list, fleet } = fleetServices(buildEnv({}, {}), { instances: 2, plants: 3, dir });
  assert.deepEqual(list.map((s) => s.name),
    ['redis', 'cloud1', 'cloud2', 'plc-plant1', 'edge-plant1', 'plc-plant2', 'edge-plant2', 'plc-plant3', 'edge-plant3']);
  const by = Object.fromEntries(list.map((s) => [s.name, s.env]));
  assert.equal(by.cloud2.PORT, '1890');
  assert.equal(by.cloud2.S7T_MQTT_PORT, '1893');
  assert.equal(by['plc-plant3'].S7T_PLC_S7_PORT, '10122');
  assert.equal(by['edge-plant2'].S7T_CLOUD_URL, 'ws://127.0.0.1:1890/s7twin/edge,ws://127.0.0.1:1880/s7twin/edge');
  assert.equal(by['edge-plant3'].S7T_CLOUD_URL, 'ws://127.0.0.1:1880/s7twin/edge,ws://127.0.0.1:1890/s7twin/edge');
  assert.equal(by.cloud1.S7T_TOKENS, 'dev-twin-token:twin:*,dev-viewer-token:viewer:*,' +
    'dev-edge-token-plant1:edge:plant1,dev-edge-token-plant2:edge:plant2,dev-edge-token-plant3:edge:plant3');
  // Plant 3 has no instance of its own for OPC UA and Modbus: its edge runs the WebSocket–S7 tab only.
  const flows = JSON.parse(fs.readFileSync(by['edge-plant3'].S7T_FLOW_FILE, 'utf8'));
  assert.deepEqual(flows.filter((n) => n.type === 'tab' && !n.disabled).map((n) => n.label), ['WebSocket–S7 path']);
  assert.equal(fleet.bridges, 2);
});

test('every Node-RED gets room for its old generation (S7T_NODE_OLD_SPACE_MB), as the image does', (t) => {
  const flag = `--initial-old-space-size=${OLD_SPACE_MB}`;
  const nodeReds = (list) => list.filter((s) => /^(cloud|edge)/.test(s.name));
  for (const s of nodeReds(services(buildEnv({}, {}), { plc: true }))) {
    assert.equal(s.args[0], flag, `${s.name}: a node option, before red.js`);
    assert.match(s.args[1], /node-red[\\/]red\.js$/);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-fleet-heap-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const fleet = nodeReds(fleetServices(buildEnv({}, { S7T_NODE_OLD_SPACE_MB: '1024' }), { instances: 2, plants: 2, dir }).list);
  assert.equal(fleet.length, 4);
  for (const s of fleet) assert.equal(s.args[0], '--initial-old-space-size=1024', s.name);
  for (const s of nodeReds(services(buildEnv({}, { S7T_NODE_OLD_SPACE_MB: '0' }), { plc: false }))) {
    assert.match(s.args[0], /node-red[\\/]red\.js$/, '0: V8\'s own sizing, no option');
  }
  for (const bad of ['lots', '-1', '1.5']) {
    assert.throws(() => services(buildEnv({}, { S7T_NODE_OLD_SPACE_MB: bad }), { plc: false }),
      (err) => err.code === 'E_SYSTEM_ARGS' && err.message.includes('S7T_NODE_OLD_SPACE_MB'), bad);
  }
  // The image runs Node-RED with the same room (Dockerfile CMD).
  const cmd = /^CMD (\[.*\])$/m.exec(fs.readFileSync(path.join(__dirname, '..', '..', 'Dockerfile'), 'utf8'));
  assert.deepEqual(JSON.parse(cmd[1]).slice(0, 3), ['node', flag, 'node_modules/node-red/red.js']);
});

test('the room reaches V8: a child started the launcher\'s way, with the options before the script, runs with it', async () => {
  const args = services(buildEnv({}, {}), { plc: false })[0].args;
  const options = args.slice(0, args.findIndex((a) => /red\.js$/.test(a)));
  assert.deepEqual(options, [`--initial-old-space-size=${OLD_SPACE_MB}`]);
  // Node-RED renames its process (process.title), so its command line is not readable from outside.
  const child = spawnWithLifeline([...options, '-e', 'process.stdout.write(JSON.stringify(process.execArgv))']);
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  const code = await new Promise((resolve) => child.once('exit', resolve));
  assert.equal(code, 0, out);
  assert.ok(JSON.parse(out).includes(`--initial-old-space-size=${OLD_SPACE_MB}`), out);
});

test('supervise: a part that exits is restarted with back-off, stop() stops every part', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-supervise-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const script = path.join(dir, 'part.js');
  fs.writeFileSync(script, "console.log('part up ' + process.pid); process.on('SIGINT', () => process.exit(0)); setInterval(() => {}, 1000);\n");
  const out = [];
  let up = 0;
  const run = supervise([{ name: 'a', args: [script], env: {}, ready: /part up/ }, { name: 'b', args: [script], env: {}, ready: /part up/ }], {
    env: process.env, onUp: () => { up += 1; }, out: (l) => out.push(l), err: (l) => out.push(l),
  });
  t.after(() => run.stop().catch(() => {}));
  await waitFor(() => up === 1, 20000, 'both parts up');
  const first = run.live.get('b');
  first.kill('SIGKILL');
  await waitFor(() => out.some((l) => /^\[b {4}\] exited \(SIGKILL\); restarting in/.test(l)), 10000, 'the restart notice');
  await waitFor(() => out.some((l) => /^\[b {4}\] back up \(restart 1, pid \d+\)/.test(l)), 20000, 'b back up');
  assert.notEqual(run.live.get('b').pid, first.pid);
  assert.equal(up, 1, 'all up is said once');
  const children = [...run.live.values()];
  await run.stop();
  for (const c of children) assert.ok(c.exitCode !== null || c.signalCode !== null, 'stopped');
});
