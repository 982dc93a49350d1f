'use strict';
/**
 * Secure by default: nodes/lib/access/security.js decides when an instance may start, and
 * scripts/gen-env.js makes the secrets that let it. The development values come from nodes/lib/core/local.js.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { check, refusal, secureSettings, isLoopback, devValues } = require('../../../../nodes/lib/access/security');
const { DEFAULTS, SECRETS } = require('../../../../nodes/lib/core/local');
const gen = require('../../../../scripts/gen-env');

const ROOT = path.join(__dirname, '..', '..', '..', '..');

/** A deployment's environment as gen-env makes it, bound to every interface. */
function deployedEnv(extra = {}) {
  const made = gen.render({
    S7T_ADMIN_USER: 'admin', S7T_ADMIN_HASH: gen.hashPassword('pw'), S7T_METRICS_TOKEN: 'm'.repeat(32), ...gen.freshSecrets(), ...gen.SETTINGS,
  });
  return { ...gen.parseEnv(made), S7T_HOST: '0.0.0.0', ...extra };
}

test('loopback is 127.0.0.0/8, ::1 and localhost; anything else is exposed', () => {
  for (const h of ['127.0.0.1', '127.9.9.9', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', 'localhost']) assert.equal(isLoopback(h), true, h);
  for (const h of ['0.0.0.0', '::', '10.1.2.3', 'cloud', '128.0.0.1', '::2']) assert.equal(isLoopback(h), false, h);
});

test('on loopback (the local demo) nothing is required, development values included', () => {
  for (const role of ['cloud', 'edge', 'plc']) {
    assert.deepEqual(check({ role, env: { ...DEFAULTS } }).problems, []);
    assert.deepEqual(check({ role, env: {} }).problems, [], 'unset hosts are 127.0.0.1');
  }
});

test('bound beyond loopback with the defaults, the cloud names every missing or development setting', () => {
  const r = check({ role: 'cloud', env: { ...DEFAULTS, S7T_HOST: '0.0.0.0', S7T_OPCUA_HOST: '0.0.0.0' } });
  const names = r.problems.map((p) => p.name).sort();
  const expected = ['S7T_ADMIN_HASH', 'S7T_OPCUA_INSECURE', ...Object.keys(SECRETS).filter((k) => SECRETS[k].includes('cloud'))].sort();
  assert.deepEqual(names, expected);
  assert.match(r.problems.find((p) => p.name === 'S7T_TWIN_TOKEN').why, /development value/);
  assert.match(r.problems.find((p) => p.name === 'S7T_MQTT_USERS').why, /twin, plc, monitor/);
  const msg = refusal('cloud', r);
  assert.match(msg, /S7T_HOST=0\.0\.0\.0, S7T_OPCUA_HOST=0\.0\.0\.0/);
  assert.match(msg, /node scripts\/gen-env\.js/);
  for (const n of expected) assert.ok(msg.includes(n), `the message names ${n}`);
  for (const v of devValues()) assert.ok(!msg.includes(v), 'the message never repeats a secret');
});

test('any exposed server counts: the MQTT broker alone on 0.0.0.0 is enough to refuse', () => {
  const r = check({ role: 'cloud', env: { ...DEFAULTS, S7T_MQTT_HOST: '0.0.0.0' } });
  assert.deepEqual(r.exposed, [{ name: 'S7T_MQTT_HOST', host: '0.0.0.0' }]);
  assert.ok(r.problems.length > 0);
});

test('the edge needs its own secrets only; the PLC its MQTT password', () => {
  const edge = check({ role: 'edge', env: { S7T_HOST: '0.0.0.0' } }).problems.map((p) => p.name).sort();
  assert.deepEqual(edge, ['S7T_ADMIN_HASH', 'S7T_CREDENTIAL_SECRET', 'S7T_EDGE_TOKEN', 'S7T_OPCUA_EDGE_PASSWORD']);
  const plc = check({ role: 'plc', hosts: { S7T_PLC_HOST: '0.0.0.0' }, secrets: { S7T_PLC_MQTT_PASSWORD: DEFAULTS.S7T_MQTT_PLC_PASSWORD } });
  assert.deepEqual(plc.problems.map((p) => p.name), ['S7T_PLC_MQTT_PASSWORD']);
  assert.deepEqual(check({ role: 'plc', hosts: { S7T_PLC_HOST: '0.0.0.0' }, secrets: { S7T_PLC_MQTT_PASSWORD: 'x'.repeat(30) } }).problems, []);
});

test('with gen-env secrets every role may start beyond loopback; a malformed hash may not', () => {
  const env = deployedEnv({ S7T_MQTT_HOST: '0.0.0.0', S7T_OPCUA_HOST: '0.0.0.0', S7T_MODBUS_HOST: '0.0.0.0' });
  for (const role of ['cloud', 'edge']) assert.deepEqual(check({ role, env }).problems, [], role);
  assert.deepEqual(check({ role: 'plc', hosts: { S7T_PLC_HOST: '0.0.0.0' }, secrets: { S7T_PLC_MQTT_PASSWORD: env.S7T_MQTT_PLC_PASSWORD } }).problems, []);
  const bad = check({ role: 'edge', env: { ...env, S7T_ADMIN_HASH: 'secret' } });
  assert.deepEqual(bad.problems.map((p) => p.name), ['S7T_ADMIN_HASH']);
  assert.match(bad.problems[0].why, /bcrypt/);
});

test('secureSettings: refuses with exit 2, or sets adminAuth, the metrics token, TLS and the credential key', async () => {
  const lines = [];
  let code = null;
  secureSettings({}, 'cloud', { S7T_HOST: '0.0.0.0' }, { exit: (c) => { code = c; }, log: (l) => lines.push(l) });
  assert.equal(code, 2);
  assert.match(lines.join('\n'), /refuses to start/);

  const env = deployedEnv();
  const s = secureSettings({}, 'cloud', env, { exit: () => assert.fail('must not exit'), log: (l) => lines.push(l) });
  assert.equal(s.credentialSecret, env.S7T_CREDENTIAL_SECRET);
  assert.equal(s.adminAuth.users[0].password, env.S7T_ADMIN_HASH);
  assert.deepEqual(await s.adminAuth.tokens(env.S7T_METRICS_TOKEN), { username: 'metrics', permissions: ['s7twin.read'] });
  assert.equal(await s.adminAuth.tokens('wrong'), null);
  assert.equal(s.https, undefined);
  assert.equal(secureSettings({}, 'edge', {}, { exit: () => assert.fail('loopback starts') }).credentialSecret, DEFAULTS.S7T_CREDENTIAL_SECRET);

  code = null;
  secureSettings({}, 'cloud', { S7T_TLS_KEY: '/nonexistent.pem' }, { exit: (c) => { code = c; }, log: (l) => lines.push(l) });
  assert.equal(code, 2, 'half a TLS setting refuses instead of serving plain text');
  assert.match(lines[lines.length - 1], /S7T_TLS_KEY and S7T_TLS_CERT/);
});

test('gen-env: fresh secrets are strong, distinct, consistent with the MQTT user list, and none is a development value', () => {
  const a = gen.freshSecrets();
  const b = gen.freshSecrets();
  assert.deepEqual(Object.keys(a).sort(), Object.keys(SECRETS).sort());
  for (const [k, v] of Object.entries(a)) {
    assert.ok(v.length >= 32, `${k} is long`);
    if (k !== 'S7T_MQTT_USERS') assert.notEqual(v, b[k], `${k} is random`);
  }
  assert.ok(a.S7T_MQTT_USERS.includes(`plc:${a.S7T_MQTT_PLC_PASSWORD}:plc`));
  assert.ok(a.S7T_MQTT_USERS.includes(`monitor:${a.S7T_MQTT_MONITOR_PASSWORD}:monitor`));
  const env = gen.parseEnv(gen.render({ S7T_ADMIN_USER: 'admin', S7T_ADMIN_HASH: gen.hashPassword('pw'), S7T_METRICS_TOKEN: 't', ...a, ...gen.SETTINGS }));
  assert.match(env.S7T_ADMIN_HASH, /^\$2b\$10\$/);
  assert.ok(require('bcryptjs').compareSync('pw', env.S7T_ADMIN_HASH));
  assert.equal(env.S7T_OPCUA_INSECURE, 'false');
});

test('gen-env writes .env with mode 600, refuses to overwrite it, and renews only the editor password on request', () => {
  const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 's7t-genenv-'));
  const out = path.join(dir, '.env');
  const run = (...args) => require('node:child_process')
    .spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'gen-env.js'), '--out', out, ...args], { encoding: 'utf8' });
  try {
    const first = run();
    assert.equal(first.status, 0, first.stderr);
    assert.equal(fs.statSync(out).mode & 0o777, 0o600);
    const pw = /editor login \(cloud and edge\): admin \/ (\S+)/.exec(first.stderr)[1];
    const env = gen.parseEnv(fs.readFileSync(out, 'utf8'));
    assert.ok(require('bcryptjs').compareSync(pw, env.S7T_ADMIN_HASH), 'the printed password matches the stored hash');
    assert.ok(!fs.readFileSync(out, 'utf8').includes(pw), 'the password itself is stored nowhere');
    assert.equal(run().status, 2, 'an existing .env is not overwritten');
    const renewed = run('--new-admin-password');
    assert.equal(renewed.status, 0, renewed.stderr);
    const env2 = gen.parseEnv(fs.readFileSync(out, 'utf8'));
    assert.notEqual(env2.S7T_ADMIN_HASH, env.S7T_ADMIN_HASH);
    assert.equal(env2.S7T_TWIN_TOKEN, env.S7T_TWIN_TOKEN, 'the other secrets stay');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('.env.example lists every variable gen-env writes, with no secret in it; .env is ignored by git', () => {
  const example = gen.parseEnv(fs.readFileSync(path.join(ROOT, '.env.example'), 'utf8'));
  const written = gen.parseEnv(gen.render({
    S7T_ADMIN_USER: 'a', S7T_ADMIN_HASH: 'h', S7T_METRICS_TOKEN: 't', S7T_AUDITOR_TOKEN: 'u',
    ...gen.freshSecrets(), ...gen.SETTINGS, ...gen.freshFleetSecrets(),
  }));
  assert.ok(written.S7T_REDIS_PASSWORD, 'the fleet\'s Redis password is written too');
  for (const k of Object.keys(written)) assert.ok(k in example, `.env.example has ${k}`);
  for (const k of [...Object.keys(SECRETS), ...Object.keys(gen.FLEET_SECRETS), 'S7T_ADMIN_HASH', 'S7T_METRICS_TOKEN', 'S7T_AUDITOR_TOKEN']) {
    assert.equal(example[k], '', `${k} is left empty`);
  }
  assert.match(fs.readFileSync(path.join(ROOT, '.gitignore'), 'utf8'), /^\.env$/m);
});

test('a fleet cloud: scoped tokens (S7T_TOKENS) stand in for the plain ones, and are checked too', () => {
  const scoped = `${'t'.repeat(32)}:twin:*,${'e'.repeat(32)}:edge:plant1,${'f'.repeat(32)}:edge:plant2`;
  const ok = check({ role: 'cloud', env: deployedEnv({ S7T_TWIN_TOKEN: '', S7T_EDGE_TOKEN: '', S7T_TOKENS: scoped }) });
  assert.deepEqual(ok.problems, []);
  const devScoped = `${DEFAULTS.S7T_TWIN_TOKEN}-x:twin:*,${DEFAULTS.S7T_EDGE_TOKEN}:edge:plant1`;
  const dev = check({ role: 'cloud', env: deployedEnv({ S7T_EDGE_TOKEN: '', S7T_TOKENS: devScoped }) });
  assert.deepEqual(dev.problems.map((p) => p.name), ['S7T_TOKENS']);
  assert.match(dev.problems[0].why, /edge role a development token/);
  const noTwin = check({ role: 'cloud', env: deployedEnv({ S7T_TWIN_TOKEN: '', S7T_TOKENS: `${'e'.repeat(32)}:edge:plant1` }) });
  assert.deepEqual(noTwin.problems.map((p) => p.name), ['S7T_TWIN_TOKEN'], 'a role no scoped token grants still needs its plain token');
  const bad = check({ role: 'cloud', env: deployedEnv({ S7T_TOKENS: 'nonsense' }) });
  assert.match(bad.problems.find((p) => p.name === 'S7T_TOKENS').why, /cannot be read: .*not token:role:plant/);
});
