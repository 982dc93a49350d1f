'use strict';
/**
 * The system of the high-frequency stream benchmark for one link transport and one network
 * profile: the link's broker as the launcher starts it for the box-sorting plant (system/link.js:
 * RabbitMQ, Kafka, Mosquitto with its users and ACLs; the bundle's MQTT broker in the cloud's
 * process; none for WebSocket and ZeroMQ), the cloud and the edge as processes of their own
 * (bench/stream/cloud.js, edge.js) told the transport, addresses and logins in the same S7T_*
 * variables as the cloud's and the edge's Node-RED (nodes/lib/core/paths.js), and with a WAN
 * profile Toxiproxy on the plant's hop (edge → cloud, or edge → broker; the broker sits beside
 * the cloud), as system/single.js puts it there. The virtual PLC is started per run of the
 * PLC-sourced stream (its signal's rate is a start option).
 */
const path = require('node:path');
const paths = require('../../nodes/lib/core/paths');
const { freePorts } = require('../../plc/net');
const { startLink } = require('../../system/link');
const { startToxiproxy } = require('../../system/toxiproxy');
const { credentialsFor } = require('../../system/single');
const { startCompanion } = require('../study/companion');

const HOST = '127.0.0.1';
/** The link paths a stream runs over, by the name the report gives them (nodes/lib/core/paths.js rows). */
const TRANSPORTS = {
  ws: { path: 'ws', label: 'WebSocket' },
  amqp: { path: 'ws-amqp', label: 'AMQP (RabbitMQ)', study: 'AMQP' },
  kafka: { path: 'ws-kafka', label: 'Kafka', study: 'KAFKA' },
  mqtt: { path: 'ws-mqtt', label: 'MQTT (aedes)', study: 'MQTT' },
  mosquitto: { path: 'ws-mosquitto', label: 'MQTT (Mosquitto)', study: 'MQTT' },
  zmq: { path: 'ws-zmq', label: 'ZeroMQ', study: 'ZEROMQ' },
};

const DEFAULTS = {
  maxPayloadKiB: 2048, // the link's frame limit on both ends: the study's largest stream (800 KB) in base64 and JSON
  kafkaMaxMessageBytes: 4 * 1024 * 1024, // Kafka's own limit (1 MiB) is below that
  aedesMaxFrameBytes: 4 * 1024 * 1024, // the bundle's broker drops packets past 64 KiB by default
  readyMs: 120000, // the link up after the processes started
};

/**
 * Start one.
 * @param {object} o
 * @param {string} o.transport a key of TRANSPORTS
 * @param {object|null} o.links the profile's links ({'cloud-edge': {up, down}}) or null (loopback)
 * @param {(line: string) => void} [o.log]
 * @returns {Promise<{transport: string, pids: object, cloud: object, edge: object, broker: object|null, stop(): Promise<void>,
 *   edgeCmd(m: object, timeoutMs: number): Promise<object>, cloudCmd(m: object, timeoutMs: number): Promise<object>}>}
 */
async function startStreamSystem(o) {
  const log = o.log || (() => {});
  const t = TRANSPORTS[o.transport];
  if (!t) throw Object.assign(new Error(`unknown transport "${o.transport}" (${Object.keys(TRANSPORTS).join(', ')})`), { code: 'E_BENCH_ARGS' });
  const p = paths.get(t.path);
  const c = credentialsFor('bench', 'plant1');
  const stops = [];
  const stop = async () => { for (const s of stops.splice(0).reverse()) await s().catch((err) => log(`stop: ${err.message}`)); };
  try {
    const tp = o.links ? await startToxiproxy() : null;
    if (tp) stops.push(() => tp.stop());
    const link = p.kind === 'link'
      ? await startLink(p, { tp, credentials: c, log, broker: p.link === 'kafka' ? { maxMessageBytes: DEFAULTS.kafkaMaxMessageBytes } : {} })
      : null;
    if (link) stops.push(() => link.stop());
    const own = p.services.filter((s) => !(link && s === link.service));
    const cloudPorts = { ...await freePorts(own, HOST), ...(link && link.service ? { [link.service]: link.port } : {}) };
    const common = { S7T_PLANT: c.plant, S7T_EDGE_TOKEN: c.edgeToken, S7T_TWIN_TOKEN: c.twinToken };
    const aedes = p.id === 'ws-mqtt' ? {
      port: cloudPorts.mqtt,
      users: `${c.mqttEdge.username}:${c.mqttEdge.password}:edge@${c.plant},${c.mqttLink.username}:${c.mqttLink.password}:link`,
      maxFrameBytes: DEFAULTS.aedesMaxFrameBytes,
    } : null;
    const cloudArgs = [path.join(__dirname, 'cloud.js'), JSON.stringify({ maxPayloadKiB: DEFAULTS.maxPayloadKiB, aedes })];
    const cloud = startCompanion({ cmd: process.execPath, args: cloudArgs }, {
      name: `stream cloud (${o.transport})`,
      env: { ...common, S7T_CLOUD_PORT: String(cloudPorts.http || ''), ...(link ? link.cloudEnv(cloudPorts) : {}) },
    });
    stops.push(() => cloud.stop());
    const up = await cloud.next((l) => l.ready || l.error, 60000);
    if (up.error) throw Object.assign(new Error(`the stream's cloud did not start: ${up.error}\n${cloud.log()}`), { code: 'E_BENCH_START' });

    // The plant's hop: through Toxiproxy with the profile's latency, as system/single.js does.
    let plantPorts = cloudPorts;
    if (tp) {
      plantPorts = {};
      for (const [svc, port] of Object.entries(cloudPorts)) {
        const b = (link && link.plantProxy(svc)) || await tp.createProxy({ name: `plant-${svc}`, upstream: `${HOST}:${port}` });
        await tp.addLatency(b.name, o.links['cloud-edge'] || {});
        plantPorts[svc] = b.port;
      }
    }
    const edgeEnv = { ...common, ...paths.edgeEnv({ host: HOST, ...plantPorts }, [p.id]), ...(link ? link.edgeEnv(plantPorts) : {}) };
    const edge = startCompanion({ cmd: process.execPath, args: [path.join(__dirname, 'edge.js'), JSON.stringify({ maxPayloadKiB: DEFAULTS.maxPayloadKiB })] }, {
      name: `stream edge (${o.transport})`, env: edgeEnv,
    });
    stops.push(() => edge.stop());
    const started = await edge.next((l) => l.ready || l.error, 60000);
    if (started.error) throw Object.assign(new Error(`the stream's edge did not start: ${started.error}\n${edge.log()}`), { code: 'E_BENCH_START' });

    let seq = 0;
    // A command and its answer: the first line after it that answers it (the cloud answers in
    // order, under the command's name; the edge by the command's id, a status by its name).
    const cloudCmd = async (m, ms) => {
      const before = cloud.lines.length;
      cloud.write(m);
      return cloud.next((l) => cloud.lines.indexOf(l) >= before && (l[m.cmd] !== undefined || l.error !== undefined), ms);
    };
    const edgeCmd = async (m, ms) => {
      const id = ++seq;
      const before = edge.lines.length;
      edge.write({ ...m, id });
      return edge.next((l) => edge.lines.indexOf(l) >= before && (l.done === id || (m.cmd === 'status' && l.status) || (l.error && l.done === undefined)), ms);
    };
    // The link up: the edge admitted, its first sync answered.
    const end = Date.now() + DEFAULTS.readyMs;
    for (;;) {
      const s = await cloudCmd({ cmd: 'status' }, 10000);
      if (s.status && s.status.edgeReady) break;
      if (Date.now() > end) {
        throw Object.assign(new Error(`the edge's link over ${t.label} did not come up:\n${edge.log()}\n${cloud.log()}`), { code: 'E_BENCH_START' });
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    return {
      transport: o.transport,
      label: t.label,
      path: p.id,
      toxiproxy: tp,
      broker: link && link.broker,
      cloud,
      edge,
      pids: { cloud: cloud.pid, edge: edge.pid, broker: link && link.broker ? link.broker.pid : null, toxiproxy: tp ? tp.pid : null },
      cloudCmd,
      edgeCmd,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

module.exports = { startStreamSystem, TRANSPORTS, DEFAULTS };
