#!/usr/bin/env node
'use strict';
/**
 * The Node.js companion of the protocol study: the stacks this bundle is built on, speaking to
 * the bench exactly as the Python and C++ companions do (common.py: one JSON object a line on
 * stdout, the process ends when its stdin closes).
 *
 *   node bench/study/companions/node.js <stack> <role> [--port P] [--host H] [--sizes 2,4]
 *        [--count N] [--warmup N] [--prewarm N] [--mode echo|ack] [--in-topic T] [--out-topic T]
 *        [--streams S] [--hops H] [--rounds R] [--size B]
 *
 * stacks and roles:
 *   tcp, udp   echo | ping: the study's raw baselines (the bytes sent straight back)
 *   ws         echo | ping: WebSocket (ws, the library of the bridge's link) carrying the bridge's
 *              envelope: a "probe" frame with the payload as its correlation id, answered by a
 *              "probe-res" frame that echoes it (mode ack: without it)
 *   mqtt       broker | echo | ping | forward | chain: MQTT 3.1.1 at QoS 0 through aedes (the
 *              engine inside s7twin-mqtt-broker, run here without its users and payload checks,
 *              which tie topics to plants) and mqtt.js clients, TCP_NODELAY everywhere; the
 *              clients also dial another broker (Mosquitto) with --username and the password in
 *              S7T_STUDY_PASSWORD (or --password=…; the bench never puts it on a command line)
 *   opcua      echo | ping: node-opcua (the stack of the bundle's OPC UA nodes), no security,
 *              anonymous; mode echo calls a method that returns its string argument, mode ack
 *              writes a String variable (the WriteResponse is the acknowledgement)
 *
 * A ping reports {"event":"counters","tx","rx"}: the bytes its own socket wrote and read (the
 * client's side of what the capture counts), where the stack exposes its socket.
 */
const net = require('node:net');
const dgram = require('node:dgram');
const os = require('node:os');
const path = require('node:path');
const fs = require('node:fs');
const { parseArgs } = require('node:util');
const envelope = require('../../../nodes/lib/core/envelope');
const { PASSWORD_ENV } = require('../companion');

const REPLY_TIMEOUT_MS = 1000; // a round trip longer than this counts as lost (a dropped datagram never comes back)
const MATCH_TIMEOUT_MS = 60000; // the first answer after start

const emit = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);
const nowNs = () => process.hrtime.bigint();
/** Wall-clock seconds (microseconds kept), the clock a capture stamps packets with. */
const epochS = () => (performance.timeOrigin + performance.now()) / 1000;

/** `size` ASCII bytes starting with the sequence number's last digits (as common.py). */
function payload(size, seq) {
  if (size <= 0) return Buffer.alloc(0);
  const head = String(seq % 1e8).padStart(8, '0');
  const s = size >= 8 ? head + 'x'.repeat(size - 8) : head.slice(8 - size);
  return Buffer.from(s, 'ascii');
}

/** Answers a stack hands to the timing loop, each with its arrival time. */
function createInbox() {
  const q = [];
  let waiter = null;
  return {
    put(data) {
      const item = { t: nowNs(), data };
      if (waiter) { const w = waiter; waiter = null; w(item); } else q.push(item);
    },
    get(timeoutMs) {
      if (q.length) return Promise.resolve(q.shift());
      return new Promise((resolve) => {
        const timer = setTimeout(() => { waiter = null; resolve(null); }, timeoutMs);
        waiter = (item) => { clearTimeout(timer); resolve(item); };
      });
    },
    drain() { q.length = 0; },
  };
}

/** Wait until the echo answers a small request (set-up over), then time round trips by size. */
async function pingLoop(args, send, inbox, same) {
  const t0 = Date.now();
  let seq = 1e7;
  for (;;) {
    if (Date.now() - t0 > MATCH_TIMEOUT_MS) throw new Error('no answer from the echo within 60 s');
    send(payload(8, seq++));
    if (await inbox.get(100)) break;
  }
  await new Promise((r) => setTimeout(r, 50));
  inbox.drain();
  emit({ event: 'matched', s: (Date.now() - t0) / 1000 });
  seq = 0;
  // Round trips before any size is timed: the first sizes must not carry V8's compiling of the
  // stack's code that the later ones no longer pay.
  for (let i = 0; i < args.prewarm; i++) {
    send(payload(64, ++seq));
    await inbox.get(REPLY_TIMEOUT_MS);
  }
  inbox.drain();
  for (const size of args.sizes) {
    const rtts = [];
    let lost = 0;
    const t0 = epochS();
    for (let i = 0; i < args.warmup + args.count; i++) {
      const msg = payload(size, ++seq);
      const start = nowNs();
      send(msg);
      for (;;) {
        const got = await inbox.get(REPLY_TIMEOUT_MS);
        if (!got) { lost++; break; }
        if (!same(got.data, msg)) continue;
        if (i >= args.warmup) rtts.push(Number((got.t - start) / 1000n));
        break;
      }
    }
    emit({ size, rtt_us: rtts, lost, t0, t1: epochS(), messages: args.warmup + args.count });
  }
}

/** The many-nodes test's client (as common.py's chain_loop). */
async function chainLoop(args, sendTo, inboxes) {
  async function allBack(round, timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    const msgs = inboxes.map((_, s) => payload(args.size, round * 1000 + s));
    const t0 = nowNs();
    msgs.forEach((m, s) => sendTo(s, m));
    let last = t0;
    for (let s = 0; s < msgs.length; s++) {
      for (;;) {
        const left = deadline - Date.now();
        const got = left > 0 ? await inboxes[s].get(left) : null;
        if (!got) return null;
        if (got.data.equals(msgs[s])) { if (got.t > last) last = got.t; break; }
      }
    }
    return Number((last - t0) / 1000n);
  }
  const t0 = Date.now();
  let ready = false;
  while (Date.now() - t0 < MATCH_TIMEOUT_MS * 5) if (await allBack(0, 2000) !== null) { ready = true; break; }
  if (!ready) { emit({ event: 'error', code: 'E_CHAIN_NOT_READY', message: 'no message came through every chain' }); return; }
  emit({ event: 'matched', s: (Date.now() - t0) / 1000 });
  inboxes.forEach((i) => i.drain());
  const rtts = [];
  let lost = 0;
  for (let r = 1; r <= args.rounds; r++) {
    const rtt = await allBack(r, 30000);
    if (rtt === null) { lost++; inboxes.forEach((i) => i.drain()); } else rtts.push(rtt);
  }
  emit({ size: args.size, streams: args.streams, hops: args.hops, rtt_us: rtts, lost });
}

const chainTopic = (stream, hop) => `chain_${stream}_${hop}`;
const ready = (extra) => emit({ event: 'ready', pid: process.pid, ...extra });

// ---- tcp and udp: the raw baselines ----

async function tcp(args) {
  if (args.role === 'echo') {
    const srv = net.createServer((s) => { s.setNoDelay(true); s.on('error', () => {}); s.pipe(s); });
    await new Promise((r) => srv.listen(args.port, args.host, r));
    return ready({ port: srv.address().port });
  }
  const sock = net.connect(args.port, args.host);
  await new Promise((r, j) => { sock.once('connect', r); sock.once('error', j); });
  sock.setNoDelay(true);
  const inbox = createInbox();
  let want = 0;
  let got = [];
  let have = 0;
  sock.on('data', (d) => {
    got.push(d);
    have += d.length;
    if (have >= want) { inbox.put(Buffer.concat(got)); got = []; have = 0; }
  });
  await pingLoop(args, (m) => { want = m.length; sock.write(m); }, inbox, (a, b) => a.equals(b));
  emit({ event: 'counters', tx: sock.bytesWritten, rx: sock.bytesRead });
  sock.end();
}

async function udp(args) {
  const s = dgram.createSocket('udp4');
  if (args.role === 'echo') {
    s.on('message', (m, r) => s.send(args.mode === 'ack' ? Buffer.from([1]) : m, r.port, r.address));
    await new Promise((r) => s.bind(args.port, args.host, r));
    return ready({ port: s.address().port });
  }
  const inbox = createInbox();
  let tx = 0;
  let rx = 0;
  s.on('message', (m) => { rx += m.length; inbox.put(m); });
  await new Promise((r) => s.bind(0, args.host, r));
  await pingLoop(args, (m) => { tx += m.length; s.send(m, args.port, args.host); }, inbox, (a, b) => a.equals(b));
  emit({ event: 'counters', tx, rx });
  s.close();
}

// ---- ws: the bridge's envelope over WebSocket ----

async function ws(args) {
  const { WebSocketServer, WebSocket } = require('ws');
  if (args.role === 'echo') {
    const wss = new WebSocketServer({ host: args.host, port: args.port, perMessageDeflate: false, maxPayload: 1 << 20 });
    wss.on('connection', (sock, req) => {
      req.socket.setNoDelay(true);
      const sender = envelope.createSender('study-echo');
      sock.on('message', (raw) => {
        const env = envelope.parse(raw, { maxBytes: 1 << 20 });
        const res = sender.make('probe-res', { d: env.d, ref: { src: env.src, seq: env.seq }, cid: args.mode === 'ack' ? undefined : env.cid });
        sock.send(envelope.stringify(res));
      });
    });
    await new Promise((r) => wss.once('listening', r));
    return ready({ port: wss.address().port });
  }
  const sock = new WebSocket(`ws://${args.host}:${args.port}/`, { perMessageDeflate: false, maxPayload: 1 << 20 });
  await new Promise((r, j) => { sock.once('open', r); sock.once('error', j); });
  sock._socket.setNoDelay(true);
  const sender = envelope.createSender('study-ping');
  const inbox = createInbox();
  sock.on('message', (raw) => {
    const env = envelope.parse(raw, { maxBytes: 1 << 20 });
    inbox.put(Buffer.from(env.cid === undefined ? '\x01' : env.cid, 'ascii'));
  });
  const send = (m) => sock.send(envelope.stringify(sender.make('probe', { d: { 0: sender.seq + 1 }, cid: m.toString('ascii') })));
  const raw = sock._socket;
  await pingLoop(args, send, inbox, (a, b) => (args.mode === 'ack' ? a.length === 1 : a.equals(b)));
  emit({ event: 'counters', tx: raw.bytesWritten, rx: raw.bytesRead });
  sock.close();
}

// ---- mqtt: aedes and mqtt.js ----

async function mqttBroker(args) {
  const { Aedes } = await import('aedes');
  const broker = await Aedes.createBroker({ heartbeatInterval: 60000 });
  const srv = net.createServer((s) => { s.setNoDelay(true); broker.handle(s); });
  await new Promise((r) => srv.listen(args.port, args.host, r));
  ready({ port: srv.address().port });
}

/** Connection attempts of a client before it gives up: a broker busy accepting many forwarders at once may refuse a few. */
const CONNECT_TRIES = 5;
const CONNECT_RETRY_MS = 300;

async function mqttConnect(args) {
  const mqtt = require('mqtt');
  const login = args.username ? { username: args.username, password: args.password } : {};
  for (let attempt = 1; ; attempt++) {
    const opts = { host: args.host, port: args.port, protocolVersion: 4, clean: true, reconnectPeriod: 0, clientId: `s${process.pid}`, ...login };
    const client = mqtt.connect(opts);
    try {
      await new Promise((r, j) => {
        client.once('connect', r);
        client.once('error', j);
        client.once('close', () => j(new Error('the broker closed the connection')));
      });
      return client;
    } catch (err) {
      client.end(true);
      // A refused login is final; a refused or dropped connection is tried again.
      if (attempt >= CONNECT_TRIES || err.code === 4 || err.code === 5 || err.code === 135) {
        const msg = `MQTT connect to ${args.host}:${args.port} failed after ${attempt} attempt(s): ${err.message}`;
        throw Object.assign(new Error(msg), { code: 'E_COMPANION_CONNECT' });
      }
      await new Promise((r) => setTimeout(r, CONNECT_RETRY_MS));
    }
  }
}

async function mqttClient(args, onConnect) {
  const client = await mqttConnect(args);
  client.stream.setNoDelay(true);
  const subs = new Map();
  client.on('message', (topic, data) => { const f = subs.get(topic); if (f) f(data); });
  const subscribe = (topic, f) => new Promise((r, j) => { subs.set(topic, f); client.subscribe(topic, { qos: 0 }, (e) => (e ? j(e) : r())); });
  const publish = (topic) => (m) => client.publish(topic, m, { qos: 0 });
  await onConnect({ subscribe, publish, client });
  return client;
}

async function mqttRoles(args) {
  if (args.role === 'broker') return mqttBroker(args);
  if (args.role === 'echo' || args.role === 'forward') {
    const [inT, outT] = args.role === 'echo' ? ['req', 'res'] : [args.inTopic, args.outTopic];
    await mqttClient(args, async ({ subscribe, publish }) => {
      const send = publish(outT);
      await subscribe(inT, (d) => send(args.mode === 'ack' && args.role === 'echo' ? Buffer.from([1]) : d));
    });
    return ready();
  }
  let done;
  const client = await mqttClient(args, async ({ subscribe, publish }) => {
    if (args.role === 'ping') {
      const inbox = createInbox();
      await subscribe('res', inbox.put);
      done = () => pingLoop(args, publish('req'), inbox, (a, b) => (args.mode === 'ack' ? a.length === 1 : a.equals(b)));
    } else {
      const inboxes = [];
      for (let s = 0; s < args.streams; s++) { inboxes.push(createInbox()); await subscribe(chainTopic(s, args.hops), inboxes[s].put); }
      const senders = inboxes.map((_, s) => publish(chainTopic(s, 0)));
      done = () => chainLoop(args, (s, m) => senders[s](m), inboxes);
    }
  });
  await done();
  emit({ event: 'counters', tx: client.stream.bytesWritten, rx: client.stream.bytesRead });
  await new Promise((r) => client.end(false, r));
}

// ---- opcua: node-opcua ----

async function opcuaServer(args) {
  const opcua = require('node-opcua');
  const pki = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-study-pki-'));
  const serverCertificateManager = new opcua.OPCUACertificateManager({ rootFolder: pki, automaticallyAcceptUnknownCertificate: true });
  const server = new opcua.OPCUAServer({
    port: args.port, hostname: args.host, serverCertificateManager, allowAnonymous: true,
    securityModes: [opcua.MessageSecurityMode.None], securityPolicies: [opcua.SecurityPolicy.None],
    maxConnectionsPerEndpoint: 1000, serverInfo: { applicationUri: 'urn:s7twin:study-echo' },
  });
  await server.initialize();
  const ns = server.engine.addressSpace.getOwnNamespace();
  const folder = ns.addObject({ organizedBy: server.engine.addressSpace.rootFolder.objects, browseName: 'Study', nodeId: 's=Study' });
  let value = '';
  ns.addVariable({
    componentOf: folder, browseName: 'Value', nodeId: 's=Value', dataType: 'String',
    value: { get: () => new opcua.Variant({ dataType: opcua.DataType.String, value }), set: (v) => { value = v.value; return opcua.StatusCodes.Good; } },
  });
  const echo = ns.addMethod(folder, {
    browseName: 'Echo', nodeId: 's=Echo',
    inputArguments: [{ name: 'data', dataType: opcua.DataType.String }],
    outputArguments: [{ name: 'data', dataType: opcua.DataType.String }],
  });
  echo.bindMethod((inputs, _ctx, cb) => cb(null, {
    statusCode: opcua.StatusCodes.Good, outputArguments: [{ dataType: opcua.DataType.String, value: inputs[0].value }],
  }));
  await server.start();
  ready({ port: server.endpoints[0].port });
  process.on('exit', () => fs.rmSync(pki, { recursive: true, force: true }));
}

async function opcuaPing(args) {
  const opcua = require('node-opcua');
  const client = opcua.OPCUAClient.create({
    endpointMustExist: false, connectionStrategy: { maxRetry: 3 },
    securityMode: opcua.MessageSecurityMode.None, securityPolicy: opcua.SecurityPolicy.None,
  });
  await client.connect(`opc.tcp://${args.host}:${args.port}`);
  const session = await client.createSession();
  const inbox = createInbox();
  const send = (m) => {
    const data = m.toString('ascii');
    if (args.mode === 'ack') {
      session.write({ nodeId: 'ns=1;s=Value', attributeId: opcua.AttributeIds.Value, value: { value: { dataType: opcua.DataType.String, value: data } } })
        .then(() => inbox.put(Buffer.from([1])), () => {});
    } else {
      session.call({ objectId: 'ns=1;s=Study', methodId: 'ns=1;s=Echo', inputArguments: [{ dataType: opcua.DataType.String, value: data }] })
        .then((r) => inbox.put(Buffer.from(r.outputArguments[0].value || '', 'ascii')), () => {});
    }
  };
  await pingLoop(args, send, inbox, (a, b) => (args.mode === 'ack' ? a.length === 1 : a.equals(b)));
  await session.close();
  await client.disconnect();
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      port: { type: 'string', default: '0' }, host: { type: 'string', default: '127.0.0.1' },
      sizes: { type: 'string', default: '2' }, count: { type: 'string', default: '100' },
      warmup: { type: 'string', default: '10' }, prewarm: { type: 'string', default: '0' },
      mode: { type: 'string', default: 'echo' }, 'in-topic': { type: 'string', default: '' }, 'out-topic': { type: 'string', default: '' },
      streams: { type: 'string', default: '1' }, hops: { type: 'string', default: '1' },
      rounds: { type: 'string', default: '10' }, size: { type: 'string', default: '10240' },
      username: { type: 'string' }, password: { type: 'string' },
    },
  });
  const [stack, role] = positionals;
  const args = {
    stack, role, host: values.host, port: Number(values.port), mode: values.mode,
    sizes: values.sizes.split(',').filter(Boolean).map(Number), count: Number(values.count), warmup: Number(values.warmup), prewarm: Number(values.prewarm),
    inTopic: values['in-topic'], outTopic: values['out-topic'],
    username: values.username, password: values.password === undefined ? process.env[PASSWORD_ENV] : values.password,
    streams: Number(values.streams), hops: Number(values.hops), rounds: Number(values.rounds), size: Number(values.size),
  };
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('error', () => process.exit(0));
  process.stdin.resume();
  for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
  const stacks = { tcp, udp, ws, mqtt: mqttRoles, opcua: (a) => (a.role === 'echo' ? opcuaServer(a) : opcuaPing(a)) };
  if (!stacks[stack]) throw new Error(`unknown stack "${stack}" (${Object.keys(stacks).join(', ')})`);
  await stacks[stack](args);
  if (role === 'ping' || role === 'chain') {
    emit({ event: 'done' });
    process.exit(0);
  }
}

main().catch((e) => { emit({ event: 'error', code: e.code || 'E_COMPANION', message: e.message }); process.exit(1); });
