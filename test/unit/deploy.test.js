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
    assert.equal(svc.build, '.', `${name} builds the project image`);
    for (const key of Object.keys(svc.environment)) {
      if (!key.startsWith('S7T_')) continue;
      assert.ok(code.includes(key), `${name}: ${key} is read nowhere in the code`);
    }
  }
  assert.equal(compose.services.edge.environment.S7T_ROLE, 'edge');
  assert.equal(compose.services.cloud.environment.S7T_ROLE, 'cloud');
});

test('the Dockerfile copies every folder the runtime needs', () => {
  const docker = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  for (const dir of ['nodes', 'subflows', 'flows', 'plc', 'twin']) assert.match(docker, new RegExp(`COPY ${dir} `));
  assert.match(docker, /FROM node:22/);
});
