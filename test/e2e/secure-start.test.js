'use strict';
/**
 * Secure by default, on real processes (an instance reachable beyond loopback must not run on
 * development secrets nor with an open editor): a cloud or edge Node-RED started with the
 * project's settings.js and bound to 0.0.0.0 with the development defaults (what
 * `bash scripts/start.sh` would give it) refuses to start and lists what to set; so does the
 * virtual PLC. With the secrets of `node scripts/gen-env.js` the cloud starts, and an open editor
 * is refused: no flow can be read or deployed (an exec node) without the login,
 * the metrics token reads counters and nothing else, the health check needs no login.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const { spawnSync } = require('node:child_process');
const { startNodeRed, freePort, ROOT } = require('../helpers/nodered');
const { localEnv, SECRETS } = require('../../nodes/lib/core/local');
const gen = require('../../scripts/gen-env');

const RED = path.join(ROOT, 'node_modules', 'node-red', 'red.js');

function startRefused(role, env) {
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-refused-'));
  try {
    return spawnSync(process.execPath, [RED, '--settings', path.join(ROOT, 'settings.js')], {
      cwd: ROOT, encoding: 'utf8', timeout: 60000,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env, S7T_ROLE: role, S7T_USER_DIR: userDir, PORT: '0' },
    });
  } finally {
    fs.rmSync(userDir, { recursive: true, force: true });
  }
}

test('bound to 0.0.0.0 with the development defaults, cloud and edge refuse to start and say what to set', () => {
  for (const role of ['cloud', 'edge']) {
    const r = startRefused(role, { ...localEnv({}), S7T_HOST: '0.0.0.0' });
    assert.equal(r.status, 2, `${role}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, new RegExp(`the ${role} refuses to start: it listens beyond loopback \\(S7T_HOST=0\\.0\\.0\\.0\\)`));
    assert.match(r.stderr, /S7T_ADMIN_HASH +is not set/);
    for (const [name, roles] of Object.entries(SECRETS)) {
      if (roles.includes(role)) assert.match(r.stderr, new RegExp(`${name} +(is|gives)`), `${role} names ${name}`);
    }
    assert.match(r.stderr, /node scripts\/gen-env\.js/);
    assert.doesNotMatch(r.stdout, /Started flows|Server now running/);
  }
});

test('the virtual PLC bound to 0.0.0.0 with the development MQTT password refuses to start', () => {
  const args = ['--host', '0.0.0.0', '--mqtt', 'mqtt://127.0.0.1:1', '--mqtt-user', 'plc', '--mqtt-password', localEnv({}).S7T_MQTT_PLC_PASSWORD];
  const r = spawnSync(process.execPath, [path.join(ROOT, 'plc', 'cli.js'), ...args], { encoding: 'utf8', timeout: 60000 });
  assert.equal(r.status, 2, r.stdout + r.stderr);
  assert.match(r.stderr, /S7T_PLC_MQTT_PASSWORD +is the development value/);
});

test('with gen-env secrets the cloud starts on 0.0.0.0 and its editor and admin API are closed', async (t) => {
  const values = gen.parseEnv(gen.render({
    S7T_ADMIN_USER: 'admin', S7T_ADMIN_HASH: gen.hashPassword('the-editor-password'), S7T_METRICS_TOKEN: 'metrics-token-0123456789abcdef',
    ...gen.freshSecrets(), ...gen.SETTINGS,
  }));
  const red = await startNodeRed({ role: 'cloud', port: await freePort(), flows: [], env: { ...values, S7T_HOST: '0.0.0.0' } });
  t.after(() => red.stop());
  const base = red.url;
  assert.equal((await fetch(`${base}/flows`)).status, 401, 'flows cannot be read');
  const exec = [{ id: 't1', type: 'tab' }, { id: 'x1', type: 'exec', z: 't1', command: 'id', x: 100, y: 100, wires: [[], [], []] }];
  const deploy = await fetch(`${base}/flows`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(exec) });
  assert.equal(deploy.status, 401, 'no flow (an exec node) can be deployed without the login');
  assert.equal((await fetch(`${base}/s7twin/health`)).status, 200);
  const bearer = { Authorization: `Bearer ${values.S7T_METRICS_TOKEN}` };
  assert.equal((await fetch(`${base}/s7twin/metrics`, { headers: bearer })).status, 200);
  assert.equal((await fetch(`${base}/s7twin/stats`, { headers: bearer })).status, 200);
  assert.equal((await fetch(`${base}/flows`, { headers: bearer })).status, 401, 'the metrics token reads counters only');
  assert.equal((await fetch(`${base}/s7twin/metrics`)).status, 401);
  const login = await fetch(`${base}/auth/token`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_id: 'node-red-admin', grant_type: 'password', scope: '*', username: 'admin', password: 'the-editor-password' }),
  });
  assert.equal(login.status, 200);
  const { access_token: token } = await login.json();
  assert.equal((await fetch(`${base}/flows`, { headers: { Authorization: `Bearer ${token}` } })).status, 200, 'the editor login opens it');
});
