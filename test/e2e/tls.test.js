'use strict';
/**
 * TLS everywhere, end to end with a throwaway CA (test/helpers/certs.js): a cloud
 * Node-RED serving https and wss with S7T_TLS_KEY/S7T_TLS_CERT (editor, twin and edge endpoints,
 * and its MQTT broker as mqtts and MQTT over wss), an edge Node-RED that verifies the cloud with
 * S7T_CA_FILE, the virtual PLC whose MQTT client verifies the broker the same way, and the OPC UA
 * path with Sign & Encrypt only, with the twin and edge accounts. Productions run over wss, mqtts
 * and OPC UA Sign & Encrypt; plain text is refused on every port that requires TLS, and a
 * certificate from another CA is refused by the edge's link.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const https = require('node:https');
const http = require('node:http');
const mqtt = require('mqtt');
const WebSocket = require('ws');
const { startNodeRed, freePort, waitFor, ROOT } = require('../helpers/nodered');
const { makeCerts } = require('../helpers/certs');
const { pkiDir } = require('../helpers/opcua');
const { createPlc } = require('../../plc');
const { runTwin } = require('../../twin/run');
const { createDialer } = require('../../nodes/lib/link/dialer');

const PARTS = path.join(ROOT, 'flows', 'parts');
/** Flow parts joined as scripts/build-flows.js joins them (shared config nodes once). */
function flowOf(...names) {
  const seen = new Set();
  return names.flatMap((n) => JSON.parse(fs.readFileSync(path.join(PARTS, `${n}.json`), 'utf8'))).filter((n) => !seen.has(n.id) && seen.add(n.id));
}

const SECRETS = {
  twinToken: 'tls-test-twin-token-0123456789abcdef', edgeToken: 'tls-test-edge-token-0123456789abcdef',
  twinPw: 'tls-test-twin-pw', plcPw: 'tls-test-plc-pw', monPw: 'tls-test-mon-pw',
  opcTwinPw: 'tls-test-opcua-twin-pw', opcEdgePw: 'tls-test-opcua-edge-pw',
};

/** GET over https (or http) with our CA; resolves {status} or rejects with the socket's error. */
function get(url, ca) {
  return new Promise((resolve, reject) => {
    const req = (url.startsWith('https') ? https : http).get(url, { ca, timeout: 10000 }, (res) => { res.resume(); resolve({ status: res.statusCode }); });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

/** GET JSON over https with our CA. */
function getJson(url, ca) {
  return new Promise((resolve, reject) => {
    https.get(url, { ca, timeout: 10000 }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => { try { resolve(JSON.parse(body)); } catch (err) { reject(err); } });
    }).on('error', reject);
  });
}

/** Does a WebSocket open? Resolves 'open' or the error's message. */
function wsOutcome(url, opts) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, opts);
    ws.on('open', () => { ws.terminate(); resolve('open'); });
    ws.on('error', (err) => resolve(err.message));
  });
}

/** Does an MQTT client get its CONNACK? Resolves 'connected' or why not. */
function mqttOutcome(url, opts) {
  return new Promise((resolve) => {
    const c = mqtt.connect(url, { reconnectPeriod: 0, connectTimeout: 10000, ...opts });
    c.once('connect', () => { c.end(true); resolve('connected'); });
    c.once('error', (err) => { c.end(true); resolve(err.message); });
    c.once('close', () => resolve('closed without CONNACK'));
  });
}

async function startSystem(t) {
  const certs = makeCerts({ names: ['localhost', '127.0.0.1'] });
  const stranger = makeCerts({ names: ['localhost', '127.0.0.1'] }); // another CA, same names
  t.after(() => { certs.remove(); stranger.remove(); });
  const ports = { cloud: await freePort(), mqtt: await freePort(), mqttWs: await freePort(), opcua: await freePort(), plcOpcua: await freePort() };
  const sys = { certs, stranger, ports };
  sys.cloud = await startNodeRed({
    role: 'cloud',
    port: ports.cloud,
    flows: flowOf('cloud-ws', 'cloud-mqtt', 'cloud-opcua'),
    env: {
      S7T_TLS_KEY: certs.key, S7T_TLS_CERT: certs.cert,
      S7T_TWIN_TOKEN: SECRETS.twinToken, S7T_EDGE_TOKEN: SECRETS.edgeToken,
      S7T_MQTT_PORT: String(ports.mqtt), S7T_MQTT_WS_PORT: String(ports.mqttWs),
      S7T_MQTT_USERS: `twin:${SECRETS.twinPw}:twin,plc:${SECRETS.plcPw}:plc,monitor:${SECRETS.monPw}:monitor`,
      S7T_MQTT_MONITOR_USER: 'monitor', S7T_MQTT_MONITOR_PASSWORD: SECRETS.monPw,
      S7T_OPCUA_PORT: String(ports.opcua), S7T_OPCUA_INSECURE: 'false', S7T_OPCUA_PKI_DIR: pkiDir('tls-cloud-server'),
      S7T_OPCUA_TWIN_PASSWORD: SECRETS.opcTwinPw, S7T_OPCUA_EDGE_PASSWORD: SECRETS.opcEdgePw,
    },
  });
  t.after(() => sys.cloud.stop());
  sys.plc = await createPlc({
    scanMs: 10,
    s7: { host: '127.0.0.1', port: 0 },
    opcua: { host: '127.0.0.1', port: ports.plcOpcua, pkiDir: pkiDir('tls-plc') },
    modbus: false,
    mqtt: { url: `mqtts://localhost:${ports.mqtt}`, plant: 'plant1', username: 'plc', password: SECRETS.plcPw, ca: certs.caPem },
  });
  t.after(() => sys.plc.stop());
  sys.edge = await startNodeRed({
    role: 'edge',
    flows: flowOf('edge-ws', 'edge-opcua'),
    env: {
      S7T_CLOUD_URL: `wss://localhost:${ports.cloud}/s7twin/edge`, S7T_CA_FILE: certs.ca, S7T_EDGE_TOKEN: SECRETS.edgeToken,
      S7T_PLC_HOST: '127.0.0.1', S7T_PLC_PORT: String(sys.plc.ports.s7), S7T_PLC_OPCUA_PORT: String(ports.plcOpcua),
      S7T_OPCUA_URL: `opc.tcp://127.0.0.1:${ports.opcua}`, S7T_OPCUA_EDGE_PASSWORD: SECRETS.opcEdgePw,
      S7T_OPCUA_SECURITY_MODE: 'SignAndEncrypt', S7T_OPCUA_SECURITY_POLICY: 'Basic256Sha256',
      S7T_OPCUA_CLIENT_PKI_DIR: pkiDir('tls-edge-client'),
    },
  });
  t.after(() => sys.edge.stop());
  return sys;
}

test('TLS on every path: https editor, wss twins and edge link, mqtts and MQTT over wss, OPC UA Sign & Encrypt; plain text refused', async (t) => {
  const sys = await startSystem(t);
  const { certs, stranger, ports } = sys;
  const logs = () => `\n--- cloud ---\n${sys.cloud.logs().slice(-3000)}\n--- edge ---\n${sys.edge.logs().slice(-3000)}`;

  // The editor: https with our CA; plain http on the same port gets no answer.
  assert.equal((await get(`https://localhost:${ports.cloud}/`, certs.caPem)).status, 200);
  await assert.rejects(get(`http://127.0.0.1:${ports.cloud}/`), 'plain HTTP on the TLS port is refused');
  await assert.rejects(get(`https://localhost:${ports.cloud}/`, stranger.caPem), /certificate/, 'a client trusting another CA refuses the cloud');

  // The edge verified the cloud with S7T_CA_FILE and linked over wss.
  await waitFor(async () => {
    const stats = await getJson(`https://localhost:${ports.cloud}/s7twin/stats`, certs.caPem);
    const edge = stats.nodes.find((n) => n.type === 's7twin-link-server' && n.name === 'edge');
    return edge && edge.counters.connections === 1;
  }, 30000, `the edge linked over wss${logs()}`);
  // OPC UA first: the server offers Sign & Encrypt only; the edge bridge and the twin use it. (The
  // bridge writes the cloud's command values to the PLC once its subscription starts; a production
  // on another path running at that moment would have its inputs reset. This production waits
  // for the bridge by its nature: nothing starts the plant before the bridge relays.)
  const { OPCUAClient, MessageSecurityMode } = require('node-opcua');
  const probe = OPCUAClient.create({ endpointMustExist: false, connectionStrategy: { maxRetry: 0 } });
  await probe.connect(`opc.tcp://127.0.0.1:${ports.opcua}`);
  const endpoints = await probe.getEndpoints();
  await probe.disconnect();
  assert.deepEqual([...new Set(endpoints.map((e) => MessageSecurityMode[e.securityMode]))], ['SignAndEncrypt'], 'no None endpoint');
  const ua = await runTwin({
    protocol: 'opcua', url: `opc.tcp://127.0.0.1:${ports.opcua}`, user: 'twin', password: SECRETS.opcTwinPw,
    securityMode: 'SignAndEncrypt', securityPolicy: 'Basic256Sha256', pkiDir: pkiDir('tls-twin-client'),
    boxes: 3, damaged: '010', profile: 'fast', seed: 1,
  });
  assert.equal(ua.ok, true, `${ua.reason}${logs()}`);

  const twinUrl = `wss://localhost:${ports.cloud}/s7twin/twin`;
  const ws = await runTwin({ protocol: 'ws', url: twinUrl, token: SECRETS.twinToken, ca: certs.caPem, boxes: 3, damaged: '010', profile: 'fast', seed: 1 });
  assert.equal(ws.ok, true, `${ws.reason}${logs()}`);
  assert.equal(ws.packed + ws.rejected, 3);
  const plain = await wsOutcome(`ws://127.0.0.1:${ports.cloud}/s7twin/twin`, { headers: { Authorization: `Bearer ${SECRETS.twinToken}` } });
  assert.notEqual(plain, 'open', 'a plain ws:// twin is refused on the TLS port');

  // An edge that trusts another CA does not link (the dialer the link client wraps, as it runs).
  const failures = [];
  const d = createDialer({ url: `wss://localhost:${ports.cloud}/s7twin/edge`, token: SECRETS.edgeToken, src: 'tls-test-edge', ca: stranger.caPem, backoff: { initialMs: 50, maxMs: 100 } });
  d.on('failure', (err) => failures.push(err.message));
  d.start();
  await waitFor(() => failures.length > 0, 10000, 'the wrong-CA link to fail');
  await d.close();
  assert.match(failures[0], /certificate|self.signed|unable to verify/i);
  assert.ok(!failures.some((f) => /409/.test(f)), 'it never reached the endpoint');

  // MQTT: the broker speaks mqtts and wss only; the PLC's own client verified it with our CA.
  await waitFor(() => sys.plc.counters.mqttConnects > 0, 20000, 'the PLC MQTT client over mqtts').catch((err) => {
    // Failed once in a CI-style run (2026-11-29) and not again alone: say what the PLC's client met.
    const { mqttErrors, mqttDisconnects } = sys.plc.counters;
    err.message += ` (the PLC's client: ${mqttErrors} errors, ${mqttDisconnects} disconnects)${logs()}`;
    throw err;
  });
  assert.match(sys.cloud.logs(), /MQTT broker listening on mqtts:\/\/127\.0\.0\.1:\d+ and wss:\/\/127\.0\.0\.1:\d+\/mqtt/);
  await waitFor(() => /Connected to broker: .*mqtts:\/\//.test(sys.cloud.logs()), 20000, 'the cloud\'s monitor over mqtts');
  const mq = await runTwin({ protocol: 'mqtt', url: `mqtts://localhost:${ports.mqtt}`, username: 'twin', password: SECRETS.twinPw, ca: certs.caPem, boxes: 3, damaged: '010', profile: 'fast', seed: 1 });
  assert.equal(mq.ok, true, `${mq.reason}${logs()}`);
  const auth = { username: 'twin', password: SECRETS.twinPw };
  assert.equal(await mqttOutcome(`wss://localhost:${ports.mqttWs}/mqtt`, { ...auth, ca: certs.caPem }), 'connected', 'MQTT over wss');
  assert.notEqual(await mqttOutcome(`mqtt://127.0.0.1:${ports.mqtt}`, auth), 'connected', 'plain MQTT is refused');
  assert.notEqual(await mqttOutcome(`ws://127.0.0.1:${ports.mqttWs}/mqtt`, auth), 'connected', 'MQTT over plain ws is refused');
  assert.notEqual(await mqttOutcome(`mqtts://localhost:${ports.mqtt}`, { ...auth, ca: stranger.caPem }), 'connected', 'another CA is refused');

});
