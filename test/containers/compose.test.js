'use strict';
/**
 * The same compose file through a compose tool users know (not only Podman's own): Debian's docker-compose
 * 1.29 against `podman system service` (its Docker-compatible API), with the TLS override
 * (docker-compose.tls.yml) and a throwaway CA: `up` with a generated .env, then from the host a
 * headless twin runs a production over wss and another over mqtts (the virtual PLC's own MQTT
 * client dials the broker over mqtts inside compose), and only the editor/WebSocket and MQTT
 * ports are published. It measures the time from `up` to the first acknowledged command.
 *
 * Needs root, Podman, docker-compose and the base image: `bash scripts/test.sh` sets them up.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { freePort, waitFor, ROOT } = require('../helpers/nodered');
const { run, must, projectImage, makeEnv, tempDir, firstAck, waitSettled, stats } = require('../helpers/containers');
const { makeCerts } = require('../helpers/certs');
const { runTwin } = require('../../twin/run');

// Conveyor 1 at half the fast profile's speed: the plant then tolerates 300 ms instead of 150 ms
// each way before a box is mis-sorted. These tests are about the containers serving a production
// at all; three containers share the suite's 2-core machine, and their first minute (OPC UA
// certificates, JIT) holds the loop back now and then.
const TOLERANT = { c1SpeedMmS: 750 };
const PROJECT = `s7tc${process.pid}`;

test('docker-compose (against podman system service) brings up cloud, edge and plc with TLS; twins produce over wss and mqtts',
  { timeout: 15 * 60 * 1000 }, async (t) => {
  const { image } = projectImage();
  const tmp = tempDir('s7t-compose-');
  const certs = makeCerts({ dir: path.join(tmp.dir, 'certs'), names: ['cloud', 'localhost', '127.0.0.1'] });
  const ports = { cloud: await freePort(), edge: await freePort(), mqtt: await freePort(), mqttWs: await freePort() };
  const env = makeEnv(tmp.dir, {
    S7T_IMAGE: image,
    S7T_PUBLISH_HOST: '127.0.0.1',
    S7T_CLOUD_PUBLISH_PORT: ports.cloud,
    S7T_EDGE_PUBLISH_PORT: ports.edge,
    S7T_MQTT_PUBLISH_PORT: ports.mqtt,
    S7T_MQTT_WS_PUBLISH_PORT: ports.mqttWs,
    S7T_CERTS_DIR: certs.dir,
  });

  // Podman's Docker-compatible API on a socket of our own; docker-compose talks to it.
  const sock = path.join(tmp.dir, 'podman.sock');
  const service = spawn('podman', ['system', 'service', '--time=0', `unix://${sock}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let serviceErr = '';
  service.stderr.on('data', (d) => { serviceErr = (serviceErr + d).slice(-4000); });
  const composeEnv = { ...process.env, DOCKER_HOST: `unix://${sock}`, COMPOSE_PROJECT_NAME: PROJECT };
  const files = ['-f', path.join(ROOT, 'docker-compose.yml'), '-f', path.join(ROOT, 'docker-compose.tls.yml'), '--env-file', env.file];
  const compose = (...args) => run('docker-compose', [...files, ...args], { env: composeEnv, cwd: ROOT, timeout: 5 * 60 * 1000 });
  t.after(async () => {
    await compose('down', '-v', '-t', '2');
    service.kill('SIGTERM');
    tmp.remove();
  });
  await waitFor(() => fs.existsSync(sock), 30000, `podman system service (${serviceErr})`);

  const t0 = performance.now();
  const up = await compose('up', '-d', '--no-build');
  assert.equal(up.code, 0, up.stderr + up.stdout);
  const logs = async () => (await compose('logs', '--no-color', '--tail', '40')).stdout;

  let ack;
  try {
    ack = await firstAck({ url: `wss://localhost:${ports.cloud}/s7twin/twin`, token: env.values.S7T_TWIN_TOKEN, ca: certs.caPem, t0, timeoutMs: 240000 });
  } catch (err) {
    err.message += `\n${await logs()}`;
    throw err;
  }
  t.diagnostic(`docker-compose up: ${(ack.ms / 1000).toFixed(1)} s from \`up\` to the first acknowledged command (${ack.attempts} tries)`);

  const base = `https://localhost:${ports.cloud}`;
  await waitSettled({ containers: ['cloud', 'edge', 'plc'].map((s) => `${PROJECT}_${s}_1`), base, token: env.values.S7T_METRICS_TOKEN, ca: certs.caPem });
  const modbus = (await stats(base, env.values.S7T_METRICS_TOKEN, certs.caPem)).find((n) => n.type === 's7twin-modbus-server').counters;
  assert.equal(modbus.writeRefused, 0, 'the edge\'s Modbus writes come from the address `edge` resolves to');

  const ws = await runTwin({
    protocol: 'ws', url: `wss://localhost:${ports.cloud}/s7twin/twin`, token: env.values.S7T_TWIN_TOKEN, ca: certs.caPem,
    boxes: 5, damaged: '01001', profile: 'fast', seed: 1, plantModel: TOLERANT,
  });
  assert.equal(ws.ok, true, `${ws.reason}; round trips ${JSON.stringify(ws.summary.overall)}\n${await logs()}`);

  const twin = env.values.S7T_MQTT_USERS.split(',').map((u) => u.split(':')).find((u) => u[2] === 'twin');
  const broker = async () => {
    const nodes = await stats(base, env.values.S7T_METRICS_TOKEN, certs.caPem);
    return JSON.stringify(nodes.find((n) => n.type === 's7twin-mqtt-broker').counters);
  };
  let mq;
  try {
    mq = await runTwin({
      protocol: 'mqtt', url: `mqtts://localhost:${ports.mqtt}`, username: twin[0], password: twin[1], ca: certs.caPem,
      boxes: 3, damaged: '010', profile: 'fast', seed: 1,
    });
  } catch (err) {
    err.message += `\nbroker ${await broker()}\n${await logs()}`;
    throw err;
  }
  assert.equal(mq.ok, true, `${mq.reason}; round trips ${JSON.stringify(mq.summary.overall)}; broker ${await broker()}\n${await logs()}`);

  // Published: the editor/WebSocket port and MQTT; not OPC UA, not Modbus (docker-compose.ports.yml).
  const ps = await must('podman', ['ps', '--filter', `label=com.docker.compose.project=${PROJECT}`, '--format', '{{.Names}} {{.Ports}}']);
  const cloudLine = ps.stdout.split('\n').find((l) => /cloud/.test(l));
  assert.ok(cloudLine, ps.stdout);
  const published = [...cloudLine.matchAll(/->(\d+)\/tcp/g)].map((m) => m[1]).sort();
  assert.deepEqual(published, ['1880', '1883', '9001']);
  const edgeLine = ps.stdout.split('\n').find((l) => /edge/.test(l));
  assert.match(edgeLine, new RegExp(`127\\.0\\.0\\.1:${ports.edge}->1881/tcp`), 'the edge editor on this machine only');
  assert.doesNotMatch(ps.stdout.split('\n').find((l) => /plc/.test(l)) || '', /->/, 'the PLC publishes nothing');
});
