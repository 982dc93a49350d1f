'use strict';
/**
 * The real image with Podman (what a user deploys, not a checkout): the image this checkout builds (scripts/containers.sh
 * --image, on a Debian base with Node 22 from npm: no image registry is reachable here) runs as
 * the three services with the environment docker-compose.yml gives them, on a Podman network where
 * they find each other by service name; a headless twin on the host runs a production through the
 * cloud's published port. On the way: the image refuses to start with no secrets, runs as a
 * non-root user, keeps user data and CSVs on volumes, reports healthy through its HEALTHCHECK,
 * serves health and Prometheus metrics, and its OPC UA certificate names the host name the edge
 * dials. It measures the time from starting the containers to the first acknowledged command.
 *
 * Needs root, Podman and the base image: `bash scripts/test.sh` sets them up (scripts/system-deps.sh,
 * scripts/containers.sh). Takes about a minute once the image is built.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { freePort } = require('../helpers/nodered');
const { podman, must, projectImage, makeEnv, composeService, tempDir, firstAck, waitSettled, stats, opcuaCertNames } = require('../helpers/containers');
const { runTwin } = require('../../twin/run');

// Conveyor 1 at half the fast profile's speed: the plant then tolerates 300 ms instead of 150 ms
// each way before a box is mis-sorted. These tests are about the containers serving a production
// at all; three containers share the suite's 2-core machine, and their first minute (OPC UA
// certificates, JIT) holds the loop back now and then.
const TOLERANT = { c1SpeedMmS: 750 };
const ID = `s7t-run-${process.pid}`;

test('the image runs the three services with Podman and serves a production end to end', { timeout: 15 * 60 * 1000 }, async (t) => {
  const { image, log } = projectImage();
  t.diagnostic(log.split('\n').filter((l) => /built|building/.test(l)).join(' | '));
  const size = Number((await must('podman', ['image', 'inspect', '--format', '{{.Size}}', image])).stdout);
  t.diagnostic(`image ${image}: ${(size / 1e6).toFixed(0)} MB`);

  // With no secrets at all, the image refuses to start and says what to set.
  const bare = await podman('run', '--rm', '--name', `${ID}-bare`, image);
  assert.equal(bare.code, 2, bare.stdout + bare.stderr);
  assert.match(bare.stderr, /refuses to start: it listens beyond loopback \(S7T_HOST=0\.0\.0\.0\)/);
  assert.match(bare.stderr, /S7T_ADMIN_HASH +is not set/);
  assert.match(bare.stderr, /node scripts\/gen-env\.js/);

  const tmp = tempDir('s7t-podman-');
  const env = makeEnv(tmp.dir);
  const ports = { cloud: await freePort(), edge: await freePort() };
  const net = `${ID}-net`;
  const cleanup = async () => {
    await podman('rm', '-f', '-v', '-t', '2', `${ID}-cloud`, `${ID}-edge`, `${ID}-plc`);
    await podman('network', 'rm', '-f', net);
    await podman('volume', 'rm', '-f', ...['cloud-data', 'cloud-results', 'edge-data', 'plc-data'].map((v) => `${ID}-${v}`));
    tmp.remove();
  };
  t.after(cleanup);
  await must('podman', ['network', 'create', net]);

  /** `podman run -d` of a compose service, with compose's environment for it. */
  const start = (service, volumes, publish) => {
    const svc = composeService(service, env.values);
    const args = ['run', '-d', '--name', `${ID}-${service}`, '--network', net, '--network-alias', service, '--hostname', svc.hostname || service];
    for (const [k, v] of Object.entries(svc.environment)) args.push('-e', `${k}=${v}`);
    for (const [vol, where] of volumes) args.push('-v', `${ID}-${vol}:${where}`);
    for (const p of publish) args.push('-p', p);
    args.push(image, ...(svc.command || []));
    return must('podman', args);
  };
  const t0 = performance.now();
  await start('cloud', [['cloud-data', '/data'], ['cloud-results', '/results']], [`127.0.0.1:${ports.cloud}:1880`]);
  await start('plc', [['plc-data', '/data']], []);
  await start('edge', [['edge-data', '/data']], [`127.0.0.1:${ports.edge}:1881`]);
  const logs = async () => {
    const out = [];
    for (const s of ['cloud', 'edge', 'plc']) {
      const r = await podman('logs', '--tail', '40', `${ID}-${s}`);
      out.push(`--- ${s} ---\n${r.stdout}${r.stderr}`);
    }
    return out.join('\n');
  };

  const url = `ws://127.0.0.1:${ports.cloud}/s7twin/twin`;
  let ack;
  try {
    ack = await firstAck({ url, token: env.values.S7T_TWIN_TOKEN, t0, timeoutMs: 240000 });
  } catch (err) {
    err.message += `\n${await logs()}`;
    throw err;
  }
  t.diagnostic(`podman run: ${(ack.ms / 1000).toFixed(1)} s from starting the containers to the first acknowledged command (${ack.attempts} tries)`);

  // Healthy by the image's own HEALTHCHECK, and the edge's OPC UA (Sign & Encrypt) and Modbus
  // sessions on the cloud up; then a production.
  const base = `http://127.0.0.1:${ports.cloud}`;
  await waitSettled({ containers: ['cloud', 'edge', 'plc'].map((s) => `${ID}-${s}`), base, token: env.values.S7T_METRICS_TOKEN });
  const result = await runTwin({
    protocol: 'ws', url, token: env.values.S7T_TWIN_TOKEN, boxes: 5, damaged: '01001', profile: 'fast', seed: 1, plantModel: TOLERANT,
  });
  assert.equal(result.ok, true, `${result.reason}; round trips ${JSON.stringify(result.summary.overall)}\n${await logs()}`);
  assert.equal(result.packed + result.rejected, 5);

  // Not root; data on volumes.
  for (const s of ['cloud', 'edge', 'plc']) {
    assert.equal((await must('podman', ['exec', `${ID}-${s}`, 'id', '-u'])).stdout.trim(), '10001', `${s} runs as nodered`);
  }
  const mounts = JSON.parse((await must('podman', ['inspect', '--format', '{{json .Mounts}}', `${ID}-cloud`])).stdout).map((m) => m.Destination).sort();
  assert.deepEqual(mounts, ['/data', '/results']);

  // The editor wants a login; health is open; metrics need the metrics token (or a login).
  assert.equal((await fetch(`${base}/flows`)).status, 401, 'the admin API is closed');
  assert.equal((await fetch(`${base}/s7twin/health`)).status, 200);
  assert.equal((await fetch(`${base}/s7twin/metrics`)).status, 401);
  const metrics = await fetch(`${base}/s7twin/metrics`, { headers: { Authorization: `Bearer ${env.values.S7T_METRICS_TOKEN}` } });
  assert.equal(metrics.status, 200);
  const text = await metrics.text();
  assert.match(text, /^s7twin_connections\{node_id="[^"]+",node_type="s7twin-link-server",node_name="edge"\} 1$/m);
  assert.match(text, /^process_resident_memory_bytes \d+/m);
  const withMetricsToken = { headers: { Authorization: `Bearer ${env.values.S7T_METRICS_TOKEN}` } };
  assert.equal((await fetch(`${base}/flows`, withMetricsToken)).status, 401, 'the metrics token deploys nothing');
  const login = await fetch(`${base}/auth/token`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_id: 'node-red-admin', grant_type: 'password', scope: '*', username: 'admin', password: env.password }),
  });
  assert.equal(login.status, 200, 'the printed editor password logs in');

  // The edge's OPC UA bridge dialed opc.tcp://cloud:4841 and the certificate names that host.
  assert.match(await opcuaCertNames(`${ID}-cloud`), /DNS:cloud\b/);
  // The edge's Modbus writes (PLC states) were taken: its address is the one `edge` resolves to.
  const modbus = (await stats(base, env.values.S7T_METRICS_TOKEN)).find((n) => n.type === 's7twin-modbus-server').counters;
  assert.ok(modbus.writes > 0);
  assert.equal(modbus.writeRefused, 0);
});
