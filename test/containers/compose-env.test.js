'use strict';
/**
 * The deployment files agree with the code: every S7T_* variable the compose file sets is one that
 * some part of the project reads, so a renamed variable cannot silently fall back to a default.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const yaml = require('js-yaml');

const ROOT = path.join(__dirname, '..', '..');

function readAll(dirs) {
  let text = '';
  for (const d of dirs) {
    const full = path.join(ROOT, d);
    if (fs.statSync(full).isFile()) { text += fs.readFileSync(full, 'utf8'); continue; }
    for (const f of fs.readdirSync(full, { recursive: true })) {
      if (/\.(js|json)$/.test(f)) text += fs.readFileSync(path.join(full, f), 'utf8');
    }
  }
  return text;
}

test('docker-compose.yml runs cloud, edge and plc from one image, and sets only variables the code reads', () => {
  const compose = yaml.load(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'));
  assert.deepEqual(Object.keys(compose.services).sort(), ['cloud', 'edge', 'plc']);
  const code = readAll(['settings.js', 'nodes', 'flows/parts', 'plc', 'twin', 'subflows']);
  for (const [name, svc] of Object.entries(compose.services)) {
    assert.equal(svc.build.context, '.', `${name} builds the project image`);
    for (const key of Object.keys(svc.environment)) {
      if (!key.startsWith('S7T_')) continue;
      assert.ok(code.includes(key), `${name}: ${key} is read nowhere in the code`);
    }
  }
  assert.equal(compose.services.edge.environment.S7T_ROLE, 'edge');
  assert.equal(compose.services.cloud.environment.S7T_ROLE, 'cloud');
});

test('the Dockerfile copies every folder the runtime needs, on the official Node image by default', () => {
  const docker = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  for (const dir of ['nodes', 'subflows', 'flows', 'plc', 'twin']) assert.match(docker, new RegExp(`COPY ${dir} `));
  assert.match(docker, /^ARG BASE=node:22-bookworm-slim$/m);
  assert.match(docker, /^USER nodered$/m, 'not root');
  assert.match(docker, /^HEALTHCHECK .*scripts\/healthcheck\.js/m);
  assert.match(docker, /npm ci --omit=dev/);
});

test('.dockerignore lets in only what the image copies: no .env, no node_modules, no .tools', () => {
  const lines = fs.readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
  assert.equal(lines[0], '*', 'an allowlist');
  const allowed = lines.slice(1).map((l) => l.replace(/^!/, '').replace(/\/$/, ''));
  const docker = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const copied = [...docker.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1].split(/\s+/));
  for (const c of copied) assert.ok(allowed.includes(c), `${c} is in the build context`);
  for (const a of allowed) assert.ok(copied.includes(a), `${a} is copied (else leave it out of the context)`);
});

test('compose has no development secret: each is required from .env; OPC UA and Modbus are not published', () => {
  const compose = yaml.load(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'));
  const { SECRETS, DEFAULTS } = require('../../nodes/lib/core/local');
  const text = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
  for (const name of Object.keys(SECRETS)) {
    assert.match(text, new RegExp(`\\$\\{${name}:\\?`), `${name} is required (\${${name}:?...})`);
    assert.ok(!text.includes(DEFAULTS[name]), `the development value of ${name} is nowhere in compose`);
  }
  const published = compose.services.cloud.ports.map((p) => p.split(':').pop().split(' ')[0]);
  assert.deepEqual(published.sort(), ['1880', '1883', '9001']);
  const more = yaml.load(fs.readFileSync(path.join(ROOT, 'docker-compose.ports.yml'), 'utf8'));
  assert.deepEqual(more.services.cloud.ports.map((p) => p.split(':').pop()).sort(), ['4841', '5021']);
});

test('docker-compose.fleet.yml (a fleet on Redis): Redis never published and password-protected, a second cloud on it, the edge dialling both', () => {
  const fleet = yaml.load(fs.readFileSync(path.join(ROOT, 'docker-compose.fleet.yml'), 'utf8'));
  const text = fs.readFileSync(path.join(ROOT, 'docker-compose.fleet.yml'), 'utf8');
  const base = yaml.load(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'));
  assert.deepEqual(Object.keys(fleet.services).sort(), ['cloud', 'cloud2', 'edge', 'redis']);
  assert.equal(fleet.services.redis.ports, undefined, 'Redis is on the compose network only');
  assert.match(fleet.services.redis.command.join(' '), /--requirepass \$\{S7T_REDIS_PASSWORD:\?/);
  for (const c of ['cloud', 'cloud2']) assert.match(fleet.services[c].environment.S7T_REDIS_URL, /^redis:\/\/:\$\{S7T_REDIS_PASSWORD:\?.*\}@redis:6379$/);
  assert.match(fleet.services.edge.environment.S7T_CLOUD_URL, /ws:\/\/cloud:1880\/s7twin\/edge,ws:\/\/cloud2:1880\/s7twin\/edge/);
  // cloud2 is the cloud service with the fleet's Redis: the same secrets, each required, none with a default.
  const { SECRETS, DEFAULTS } = require('../../nodes/lib/core/local');
  for (const name of Object.keys(SECRETS).filter((n) => SECRETS[n].includes('cloud'))) {
    assert.match(fleet.services.cloud2.environment[name], new RegExp(`^\\$\\{${name}:\\?`), `cloud2 requires ${name}`);
    assert.ok(!text.includes(DEFAULTS[name]), `the development value of ${name} is nowhere in the fleet file`);
  }
  const code = readAll(['settings.js', 'nodes', 'flows/parts', 'plc', 'twin', 'subflows']);
  for (const key of Object.keys(fleet.services.cloud2.environment)) {
    if (key.startsWith('S7T_')) assert.ok(code.includes(key), `cloud2: ${key} is read nowhere in the code`);
  }
  assert.deepEqual(Object.keys(fleet.services.cloud2.environment).filter((k) => !(k in base.services.cloud.environment)), ['S7T_REDIS_URL']);
  const hostPorts = (svc) => svc.ports.map((p) => /_PORT:-(\d+)\}:\d+/.exec(p)[1]);
  assert.deepEqual(hostPorts(fleet.services.cloud2).sort(), ['1890', '1893', '9011']);
  for (const p of hostPorts(fleet.services.cloud2)) assert.ok(!hostPorts(base.services.cloud).includes(p), `cloud2 publishes ${p}, which cloud has`);
});

test('the image installs what its processes load: the node package\'s dependencies and the packages the Dockerfile adds from the lock', () => {
  const pkg = require('../../package.json');
  const docker = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const added = JSON.parse(/for \(const n of (\[[^\]]*\])\)/.exec(docker)[1]);
  for (const name of added) assert.ok(pkg.devDependencies[name], `${name} is a devDependency the image moves to dependencies`);
  const installed = new Set([...Object.keys(pkg.dependencies), ...added]);
  // Node-RED itself and the contrib module of every non-core node type the flows use.
  assert.ok(installed.has('node-red'));
  const types = new Set(['cloud', 'edge'].flatMap((role) => JSON.parse(fs.readFileSync(path.join(ROOT, 'flows', `${role}.json`), 'utf8')).map((n) => n.type)));
  const PREFIX = { 'node-red-contrib-modbus': 'modbus-', 'node-red-contrib-opcua': 'OpcUa-', 'node-red-contrib-s7': 's7 ', 'node-red-contrib-aedes': 'aedes ' };
  for (const mod of Object.keys(pkg.devDependencies).filter((m) => /^node-red-contrib-/.test(m))) {
    assert.ok(PREFIX[mod], `${mod}: the prefix of its node types`);
    const uses = [...types].some((t) => t.startsWith(PREFIX[mod]));
    assert.equal(installed.has(mod), uses, `${mod}: ${uses ? 'the flows use it' : 'no flow uses it, the image leaves it out'}`);
  }
  // Every package the image's processes require: the nodes, settings.js, the virtual PLC, the
  // scripts the image carries.
  const files = ['settings.js', 'flows/instance.js', 'nodes/lib/core/local.js', 'scripts/healthcheck.js', 'scripts/gen-env.js',
    ...['nodes', 'plc', 'subflows'].flatMap((d) => fs.readdirSync(path.join(ROOT, d), { recursive: true })
      .filter((f) => f.endsWith('.js')).map((f) => path.join(d, f)))];
  const required = new Set();
  for (const f of files) {
    for (const m of fs.readFileSync(path.join(ROOT, f), 'utf8').matchAll(/\brequire\(\s*'([^'.][^']*)'\s*\)|\bimport\(\s*'([^'.][^']*)'\s*\)/g)) {
      const id = m[1] || m[2];
      if (id.startsWith('node:') || id === '…' || id.startsWith('twin/')) continue;
      required.add(id.startsWith('@') ? id.split('/').slice(0, 2).join('/') : id.split('/')[0]);
    }
  }
  const builtin = new Set(require('node:module').builtinModules);
  assert.deepEqual([...required].filter((m) => !builtin.has(m) && !installed.has(m)), [], 'required in the image but not installed');
});
