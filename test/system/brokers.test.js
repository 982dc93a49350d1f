'use strict';
/**
 * The real brokers the project starts (system/brokers/): RabbitMQ, Kafka in KRaft mode and
 * Mosquitto, each on free loopback ports with a user of ours, each carrying a message round trip
 * with the npm client the link transports use, refusing anyone else, and gone once stopped; and
 * ZeroMQ, which has no broker: a dealer and a router on loopback. Never skipped: where a broker is
 * not installed its start fails and says what to run (scripts/broker-deps.sh).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const amqp = require('amqplib');
const zmq = require('zeromq');
const { startRabbitMq } = require('../../system/brokers/rabbitmq');
const { startKafka } = require('../../system/brokers/kafka');
const { startMosquitto } = require('../../system/brokers/mosquitto');
const { freePort } = require('../../plc/net');
const { listeningAddresses } = require('../helpers/listening');
const mqttClient = require('../helpers/mqtt');

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

/** Every address listening on `port` is a loopback one (and something listens). */
function assertLoopbackOnly(port, what) {
  const addrs = listeningAddresses(port);
  assert.ok(addrs.length > 0, `${what}: nothing listens on port ${port}`);
  assert.ok(addrs.every((a) => LOOPBACK.test(a)), `${what} listens beyond loopback: ${addrs.join(', ')}`);
}

/** Resident memory of a process, MB (for the figures printed beside the results). */
const rssMB = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };

/** `fn` run at most once (clients closed before a broker stops, and again in t.after on a failure). */
const once = (fn) => { let p = null; return () => (p = p || Promise.resolve().then(fn)); };

/** Stop a broker and check that its processes and listeners went with it. */
async function stopAndCheck(t, broker, pids, listenPorts) {
  const t0 = performance.now();
  await broker.stop();
  t.diagnostic(`${broker.name} stopped in ${Math.round(performance.now() - t0)} ms`);
  for (const pid of pids) assert.equal(alive(pid), false, `${broker.name} process ${pid} still runs after stop()`);
  for (const port of listenPorts) assert.deepEqual(listeningAddresses(port), [], `${broker.name}: port ${port} still listens after stop()`);
}

/** `promise`, or a failure naming `what` if it has not settled within `ms` (a lost message fails, it does not hang). */
function within(promise, ms, what) {
  let timer;
  const late = new Promise((resolve, reject) => { timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Poll `fn` until it returns true; fail, and stop polling, after `ms`. */
async function until(fn, ms, what) {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`${what}: nothing within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Resolve with the first message delivered to `queue`. */
function firstMessage(ch, queue) {
  return new Promise((resolve, reject) => {
    ch.consume(queue, (msg) => (msg ? resolve(msg) : reject(new Error(`consumer of ${queue} cancelled`))), { noAck: true }).catch(reject);
  });
}

test('RabbitMQ: a request and its answer through a reply queue, for our user only, on loopback only', { timeout: 300000 }, async (t) => {
  const rabbit = await startRabbitMq({ port: 0 });
  t.after(() => rabbit.stop());
  t.diagnostic(`RabbitMQ ${rabbit.version} up in ${Math.round(rabbit.startMs)} ms; Erlang VM ${rssMB(rabbit.pid).toFixed(0)} MB resident`);
  assert.match(rabbit.url, /^amqp:\/\/127\.0\.0\.1:\d+$/);
  assertLoopbackOnly(rabbit.port, 'AMQP');
  assertLoopbackOnly(rabbit.ports.dist, 'Erlang distribution');
  assertLoopbackOnly(rabbit.ports.epmd, 'epmd');

  const opts = { hostname: rabbit.host, port: rabbit.port, vhost: rabbit.vhost };
  const cloud = await amqp.connect({ ...opts, ...rabbit.credentials });
  const edge = await amqp.connect({ ...opts, ...rabbit.credentials });
  const closeClients = once(() => Promise.allSettled([cloud.close(), edge.close()]));
  t.after(closeClients);

  // The edge answers requests from its queue on the queue each request names.
  const edgeCh = await edge.createChannel();
  await edgeCh.assertQueue('plant1.commands', { exclusive: true, autoDelete: true });
  await edgeCh.consume('plant1.commands', (msg) => {
    const cmd = JSON.parse(msg.content.toString());
    edgeCh.sendToQueue(msg.properties.replyTo, Buffer.from(JSON.stringify({ seq: cmd.seq, ok: true })), { correlationId: msg.properties.correlationId });
    edgeCh.ack(msg);
  });

  const cloudCh = await cloud.createChannel();
  const { queue: replies } = await cloudCh.assertQueue('', { exclusive: true });
  const answer = firstMessage(cloudCh, replies);
  cloudCh.sendToQueue('plant1.commands', Buffer.from(JSON.stringify({ seq: 7, d: { sp: 1 } })), { replyTo: replies, correlationId: 'c-7' });
  const msg = await within(answer, 60000, 'the answer on the reply queue');
  assert.equal(msg.properties.correlationId, 'c-7');
  assert.deepEqual(JSON.parse(msg.content.toString()), { seq: 7, ok: true });

  // No guest (the stock user is never made) and no wrong password.
  await assert.rejects(amqp.connect({ ...opts, username: 'guest', password: 'guest' }), /ACCESS.REFUSED/);
  await assert.rejects(amqp.connect({ ...opts, username: rabbit.credentials.username, password: 'not-the-password' }), /ACCESS.REFUSED/);

  await closeClients();
  await stopAndCheck(t, rabbit, [rabbit.pids.beam, rabbit.pids.epmd], [rabbit.port, rabbit.ports.dist, rabbit.ports.epmd]);
});

test('Kafka (KRaft, no ZooKeeper): a record produced and consumed with SASL/PLAIN, on loopback only', { timeout: 300000 }, async (t) => {
  const { Admin, Producer, Consumer, stringSerializers, stringDeserializers } = require('@platformatic/kafka');
  const kafka = await startKafka({ port: 0 });
  t.after(() => kafka.stop());
  t.diagnostic(`Kafka ${kafka.version} up in ${Math.round(kafka.startMs)} ms, ${Math.round(kafka.formatMs)} ms of it formatting its log folder; ` +
    `JVM ${rssMB(kafka.pid).toFixed(0)} MB resident`);
  assertLoopbackOnly(kafka.port, 'Kafka clients\' listener');
  assertLoopbackOnly(kafka.ports.controller, 'Kafka controller listener');

  const { username, password, mechanism } = kafka.credentials;
  const base = { bootstrapBrokers: kafka.brokers, sasl: { mechanism, username, password } };
  const admin = new Admin({ clientId: 'test-admin', ...base });
  const clients = [admin];
  const closeClients = once(() => Promise.allSettled(clients.map((c) => c.close())));
  t.after(closeClients);
  await admin.createTopics({ topics: ['plant1.samples'], partitions: 1, replicas: 1 });

  const consumer = new Consumer({ clientId: 'test-cloud', groupId: 'cloud', deserializers: stringDeserializers, maxWaitTime: 200, ...base });
  clients.push(consumer);
  const stream = await consumer.consume({ topics: ['plant1.samples'], mode: 'earliest' });
  const producer = new Producer({ clientId: 'test-edge', serializers: stringSerializers, ...base });
  clients.push(producer);
  await producer.send({ messages: [{ topic: 'plant1.samples', key: 'plant1', value: JSON.stringify({ seq: 1, v: [0.5, -0.25] }) }] });
  const got = await within(new Promise((resolve, reject) => { stream.once('data', resolve); stream.once('error', reject); }), 60000, 'the record produced');
  await stream.close();
  assert.equal(got.key, 'plant1');
  assert.deepEqual(JSON.parse(got.value), { seq: 1, v: [0.5, -0.25] });

  const intruder = new Producer({
    clientId: 'test-intruder', serializers: stringSerializers, retries: 0, bootstrapBrokers: kafka.brokers,
    sasl: { mechanism, username, password: 'not-the-password' },
  });
  clients.push(intruder);
  const refusedLogin = (err) => {
    const causes = (err.errors || []).map((e) => `${e.message} ${e.cause && e.cause.message}`).join(' ');
    return /authenticat|SASL/i.test(`${err.message} ${causes}`);
  };
  await assert.rejects(intruder.send({ messages: [{ topic: 'plant1.samples', value: 'x' }] }), refusedLogin);

  await closeClients();
  await stopAndCheck(t, kafka, [kafka.pid], [kafka.port, kafka.ports.controller]);
});

test('Mosquitto: a sample published and received with a password, no anonymous clients, on loopback only', { timeout: 120000 }, async (t) => {
  const mq = await startMosquitto({ port: 0 });
  t.after(() => mq.stop());
  t.diagnostic(`Mosquitto ${mq.version} up in ${Math.round(mq.startMs)} ms; ${rssMB(mq.pid).toFixed(1)} MB resident`);
  assertLoopbackOnly(mq.port, 'MQTT');

  const sub = await mqttClient.connect(mq.url, { ...mq.credentials, clientId: 'test-cloud' });
  const pub = await mqttClient.connect(mq.url, { ...mq.credentials, clientId: 'test-edge' });
  const closeClients = once(() => Promise.allSettled([mqttClient.end(sub), mqttClient.end(pub)]));
  t.after(closeClients);
  assert.deepEqual((await mqttClient.sub(sub, 'plant1/samples/#')).map((g) => g.qos), [0]);
  await new Promise((resolve, reject) => pub.publish('plant1/samples/vib', JSON.stringify({ seq: 3, v: 0.125 }), { qos: 1 },
    (e) => (e ? reject(e) : resolve())));
  // mqtt.js keeps what arrives in sub.msgs (test/helpers/mqtt.js); the QoS 1 publish is acknowledged before delivery may be.
  await until(() => sub.msgs.length > 0, 60000, 'the sample published');
  assert.deepEqual(sub.msgs[0], { topic: 'plant1/samples/vib', payload: { seq: 3, v: 0.125 }, retain: false });

  await assert.rejects(mqttClient.connect(mq.url, { clientId: 'test-anonymous' }), /not authori[sz]ed/i);
  await assert.rejects(mqttClient.connect(mq.url, { username: mq.credentials.username, password: 'not-the-password', clientId: 'test-wrong' }),
    /not authori[sz]ed|bad user ?name or password/i);

  await closeClients();
  await stopAndCheck(t, mq, [mq.pid], [mq.port]);
});

test('ZeroMQ (no broker): a dealer\'s request answered by a router on loopback', { timeout: 60000 }, async (t) => {
  const router = new zmq.Router({ linger: 0 });
  const dealer = new zmq.Dealer({ linger: 0 });
  t.after(() => { router.close(); dealer.close(); });
  await router.bind('tcp://127.0.0.1:*');
  const port = Number(/:(\d+)$/.exec(router.lastEndpoint)[1]);
  t.diagnostic(`zeromq ${require('zeromq/package.json').version} (libzmq ${zmq.version}), prebuilt addon`);
  assertLoopbackOnly(port, 'ZeroMQ router');

  dealer.connect(router.lastEndpoint);
  await dealer.send(JSON.stringify({ seq: 9, d: { st: 1 } }));
  const [identity, request] = await router.receive();
  assert.deepEqual(JSON.parse(request.toString()), { seq: 9, d: { st: 1 } });
  await router.send([identity, JSON.stringify({ seq: 9, ok: true })]);
  const [answer] = await dealer.receive();
  assert.deepEqual(JSON.parse(answer.toString()), { seq: 9, ok: true });
});

test('a broker as a launcher\'s child: ready line, stopped on SIGTERM; refused without a password', { timeout: 120000 }, async () => {
  const port = await freePort();
  const script = path.join(__dirname, '..', '..', 'system', 'brokers', 'child.js');

  const refused = spawnSync(process.execPath, [script, 'mosquitto', String(port)],
    { env: { ...process.env, S7T_BROKER_PASSWORD: '' }, encoding: 'utf8', timeout: 60000 });
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /E_BROKER_OPTION: S7T_BROKER_PASSWORD is not set/);

  const child = spawn(process.execPath, [script, 'mosquitto', String(port)],
    { env: { ...process.env, S7T_BROKER_PASSWORD: 'launcher-secret' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  try {
    await until(() => /ready on/.test(out) || child.exitCode !== null, 60000, 'the child\'s ready line');
    const m = /^mosquitto ready on mqtt:\/\/127\.0\.0\.1:(\d+) \(pid (\d+)\)$/m.exec(out);
    assert.ok(m, out);
    assert.equal(Number(m[1]), port);
    const c = await mqttClient.connect(`mqtt://127.0.0.1:${port}`, { username: 's7t', password: 'launcher-secret', clientId: 'test-launcher' });
    await mqttClient.end(c);
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.equal(alive(Number(m[2])), false, 'mosquitto still runs after its launcher child stopped');
    assert.deepEqual(listeningAddresses(port), []);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

test('broker options that would corrupt a config file, or advertise an unreachable address, are refused before anything starts', async () => {
  for (const password of ['short', 'with"quote-inside', 'hash#and:colon', 'line\nbreak-in-it']) {
    await assert.rejects(startMosquitto({ password }), { code: 'E_BROKER_OPTION' });
  }
  // Users with roles: each a login the files can hold, a role of the bundle's, valid plants, once.
  const pw = 'long-enough-pw';
  for (const users of [[], [{ username: 'e', password: pw, role: 'admin' }], [{ username: 'e', password: pw, role: 'edge', plants: ['a b'] }],
    [{ username: 'e', password: 'short', role: 'edge' }], [{ username: 'e', password: pw, role: 'link' }, { username: 'e', password: pw, role: 'twin' }]]) {
    await assert.rejects(startMosquitto({ users }), { code: 'E_BROKER_OPTION' }, JSON.stringify(users));
  }
  await assert.rejects(startRabbitMq({ username: 'a b' }), { code: 'E_BROKER_OPTION' });
  await assert.rejects(startRabbitMq({ port: 70000 }), { code: 'E_BROKER_OPTION' });
  await assert.rejects(startKafka({ host: '0.0.0.0' }), { code: 'E_BROKER_OPTION' });
  await assert.rejects(startKafka({ heap: '512' }), { code: 'E_BROKER_OPTION' });
  await assert.rejects(startKafka({ maxMessageBytes: 100 }), { code: 'E_BROKER_OPTION' }, 'a record limit below 1 KiB');
  // More listeners (a proxy in front of each): a name the properties file can hold and is not
  // Kafka's own, and the port its clients are told.
  const bad = [{ name: 'edge', advertisedPort: 9000 }, { name: 'CONTROLLER', advertisedPort: 9000 }, { name: 'EDGE' }, { name: 'EDGE', advertisedPort: 0 }];
  for (const l of bad) {
    await assert.rejects(startKafka({ listeners: [l] }), { code: 'E_BROKER_OPTION' }, JSON.stringify(l));
  }
});

test('Mosquitto\'s ACL file comes from the bundle\'s MQTT roles: a plant\'s edge writes its own link topic only', () => {
  const { aclText, roleUsers } = require('../../system/brokers/mosquitto');
  const text = aclText(roleUsers([
    { username: 'edge', password: 'edge-pw-long', role: 'edge', plants: ['plant1'] },
    { username: 'link', password: 'link-pw-long', role: 'link' },
  ]));
  assert.equal(text, [
    'user edge', 'topic write s7twin/plant1/link/up', 'topic read s7twin/plant1/link/down', '',
    'user link', 'topic write s7twin/+/link/down', 'topic read s7twin/+/link/up', '',
  ].join('\n'));
});
