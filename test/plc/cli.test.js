'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { parse } = require('../../plc/cli');
const { s7Connect } = require('../helpers/plc');

const CLI = path.join(__dirname, '..', '..', 'plc', 'cli.js');

test('flags win over environment variables, which win over defaults', () => {
  const { opts } = parse(['--scan-ms', '20', '--no-opcua', '--modbus-port', '0'], {
    S7T_PLC_SCAN_MS: '5', S7T_PLC_S7_PORT: '11102', S7T_PLC_MQTT_URL: 'mqtt://127.0.0.1:1884', S7T_PLC_PLANT: 'p9', S7T_PLC_MODBUS: '1',
  });
  assert.equal(opts.scanMs, 20);
  assert.equal(opts.opcua, false);
  assert.deepEqual(opts.s7, { host: '127.0.0.1', port: 11102 });
  assert.deepEqual(opts.modbus, { host: '127.0.0.1', port: 0 });
  assert.deepEqual(opts.mqtt, { url: 'mqtt://127.0.0.1:1884', plant: 'p9', username: undefined, password: undefined, qos: 0 });
  assert.equal(parse([], {}).opts.mqtt, false, 'MQTT is off without a URL');
  assert.equal(parse([], { S7T_PLC_S7: '0' }).opts.s7, false);
});

test('the high-frequency signal: off by default, on with --signal-hz (or S7T_PLC_SIGNAL_HZ), its data block and block size', () => {
  assert.equal(parse([], {}).opts.signal, undefined, 'the box-sorting plant alone unless asked');
  assert.deepEqual(parse(['--signal-hz', '5000'], {}).opts.signal, { rateHz: 5000, db: 100 });
  const env = { S7T_PLC_SIGNAL_HZ: '1000', S7T_PLC_SIGNAL_DB: '42' };
  assert.deepEqual(parse(['--signal-block', '25'], env).opts.signal, { rateHz: 1000, db: 42, blockSamples: 25 });
  assert.throws(() => parse(['--signal-hz', '1.5'], {}), { code: 'E_CONFIG' });
  assert.throws(() => parse(['--signal-hz', '0'], {}), { code: 'E_CONFIG' });
});

test('bad flags and values are refused with E_CONFIG', () => {
  assert.throws(() => parse(['--scan-ms', 'fast'], {}), { code: 'E_CONFIG' });
  assert.throws(() => parse(['--scan-ms', '0'], {}), { code: 'E_CONFIG' });
  assert.throws(() => parse(['--s7-port', '70000'], {}), { code: 'E_CONFIG' });
  assert.throws(() => parse(['--bogus'], {}), { code: 'E_CONFIG' });
});

test('npm run plc prints where it listens, serves, and exits 0 on SIGTERM', async () => {
  const child = spawn(process.execPath, [CLI, '--s7-port', '0', '--modbus-port', '0', '--no-opcua'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  try {
    const line = await new Promise((resolve, reject) => {
      const check = () => { if (out.includes('\n')) resolve(out.split('\n')[0]); };
      child.stdout.on('data', check);
      exited.then(() => reject(new Error(`exited early: ${err}`)));
    });
    const m = /S7 127\.0\.0\.1:(\d+) \(rack 0 slot 1\), OPC UA off, Modbus 127\.0\.0\.1:(\d+), MQTT off/.exec(line);
    assert.ok(m, line);
    const s7 = await s7Connect(Number(m[1]));
    await s7.write({ 'DB1,X0.0': true });
    let v;
    for (let k = 0; k < 500; k++) {
      v = await s7.read(['DB1,X2.7']);
      if (v['DB1,X2.7']) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(v['DB1,X2.7'], true, 'GreenLamp on in the child PLC');
    await s7.close();
  } finally {
    child.kill('SIGTERM');
  }
  const { code } = await exited;
  assert.equal(code, 0, err);
  assert.match(out, /stopped on SIGTERM after \d+ scans/);
});

test('a port already in use ends the program with exit code 1 and the error code', async () => {
  const net = require('node:net');
  const blocker = net.createServer();
  await new Promise((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const { port } = blocker.address();
  const child = spawn(process.execPath, [CLI, '--no-s7', '--no-opcua', '--modbus-port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const code = await new Promise((resolve) => child.once('exit', resolve));
  await new Promise((resolve) => blocker.close(resolve));
  assert.equal(code, 1);
  assert.match(err, /E_MODBUS_START/);
});

test('the CLI is the entry point and the library does not require it back (no cycle)', () => {
  const fs = require('node:fs');
  const lib = fs.readFileSync(path.join(__dirname, '..', '..', 'plc', 'index.js'), 'utf8');
  assert.doesNotMatch(lib, /require\(\s*['"]\.\/cli['"]\s*\)/);
  assert.match(fs.readFileSync(CLI, 'utf8'), /require\('\.\/index'\)/);
  assert.equal(require('../../package.json').scripts.plc, 'node plc/cli.js');
});
