'use strict';
/**
 * The edge↔cloud link of a one-plant system over another transport than WebSocket: a link path of
 * the table (nodes/lib/core/paths.js kind 'link': ws-amqp, ws-kafka, ws-mqtt, ws-mosquitto,
 * ws-zmq). Its broker started (system/brokers/: RabbitMQ, Kafka, or Mosquitto with the plant's
 * edge and the cloud as users held to their topics; ws-mqtt's broker is the cloud's own, ZeroMQ
 * has none), the
 * environment that tells both Node-RED processes the transport, its address as each sees it and
 * its login, and with Toxiproxy (a WAN profile, the fault suite) a proxy on each hop of the link:
 * edge → broker (the plant side, with the WAN's latency) and broker → cloud (no latency: the
 * broker sits beside the cloud; it is there to be cut).
 *
 * system/single.js startSystem uses it; a system runs one link transport at a time.
 */
const paths = require('../nodes/lib/core/paths');
const { freePorts } = require('../plc/net');
const { startRabbitMq } = require('./brokers/rabbitmq');
const { startKafka } = require('./brokers/kafka');
const { startMosquitto } = require('./brokers/mosquitto');

const HOST = '127.0.0.1';

/**
 * The link path among the wanted paths, or null (the link is the ws path's WebSocket).
 * @param {string[]} want path ids
 * @returns {object|null}
 * @throws {Error} E_SYSTEM_ARGS: two link paths, or a link path beside a path that needs the
 *   WebSocket link (its flows are the same: one link serves both)
 */
function linkPathOf(want) {
  const link = want.filter((id) => paths.get(id).kind === 'link');
  if (!link.length) return null;
  const overWs = want.filter((id) => paths.get(id).kind === 'bundle' && (paths.get(id).tabs.edge || []).includes('edge-ws'));
  if (link.length > 1 || overWs.length) {
    const what = `one edge link per system: ${[...link, ...overWs].join(' and ')} cannot run together`;
    throw Object.assign(new Error(`${what} (run each link transport in a system of its own)`), { code: 'E_SYSTEM_ARGS' });
  }
  return paths.get(link[0]);
}

/** The broker service of a link path (a SERVICES entry with `broker`), or null. */
const brokerService = (p) => p.services.find((s) => paths.SERVICES[s].broker) || null;

/**
 * Start what a link path needs, before the system picks the cloud's ports: its broker on a port
 * of its own, and with Toxiproxy the two proxies in front of it, each bound by Toxiproxy itself
 * (port 0). A port picked but not yet bound can be taken meanwhile by any outgoing connection
 * (RabbitMQ's Erlang VM makes many while it starts), so nothing here holds one across a start but
 * Kafka's own listener ports, which its JVM binds as it starts.
 * @param {object} p the link path
 * @param {object} o
 * @param {object|null} o.tp Toxiproxy, or null (loopback)
 * @param {object} o.credentials the system's (credentialsFor): its plant, and the MQTT users of
 *   roles edge and link (Mosquitto's users, the edge's bound to the plant)
 * @param {(line: string) => void} [o.log]
 * @param {object} [o.broker] more options for the broker's start (Kafka's maxMessageBytes, say)
 * @returns {Promise<object>} {path, broker, service, port, cloudEnv(cloudPorts), edgeEnv(plantPorts),
 *   plantProxy(svc), proxies, stop()}
 */
async function startLink(p, o) {
  const log = o.log || (() => {});
  const svc = brokerService(p);
  const c = o.credentials;
  const tp = svc ? o.tp : null;
  const made = [];
  let broker = null;
  try {
    const more = o.broker || {};
    if (svc === 'rabbitmq') broker = await startRabbitMq({ ...more });
    if (svc === 'mosquitto') {
      broker = await startMosquitto({ ...more, users: [{ ...c.mqttEdge, role: 'edge', plants: [c.plant] }, { ...c.mqttLink, role: 'link' }] });
    }
    if (svc === 'kafka') {
      // Kafka tells a client which address to connect to: with proxies, one listener per side,
      // each advertising its proxy. The proxies come first (bound by Toxiproxy), their upstreams
      // the listener ports Kafka then binds.
      const up = tp ? await freePorts(['EDGE', 'CLOUD'], HOST) : null;
      for (const [side, name] of tp ? [['plant', 'EDGE'], ['cloud', 'CLOUD']] : []) {
        made.push({ side, ...await tp.createProxy({ name: `${side}-kafka`, upstream: `${HOST}:${up[name]}` }) });
      }
      const at = Object.fromEntries(made.map((x) => [x.side, x.port]));
      broker = await startKafka({
        ...more,
        ...(tp ? { listeners: [{ name: 'EDGE', port: up.EDGE, advertisedPort: at.plant }, { name: 'CLOUD', port: up.CLOUD, advertisedPort: at.cloud }] } : {}),
      });
    }
    if ((svc === 'rabbitmq' || svc === 'mosquitto') && tp) {
      for (const side of ['plant', 'cloud']) made.push({ side, ...await tp.createProxy({ name: `${side}-${svc}`, upstream: `${HOST}:${broker.port}` }) });
    }
  } catch (err) {
    if (broker) await broker.stop().catch(() => {});
    throw err;
  }
  if (broker) log(`${broker.name} up for the link (pid ${broker.pid}, port ${broker.port}, ${Math.round(broker.startMs)} ms)`);
  const proxyOf = (side) => made.find((x) => x.side === side) || null;
  const logins = {
    broker: broker ? { edge: broker.credentials, cloud: broker.credentials } : null,
    mqtt: { edge: c.mqttEdge, cloud: c.mqttLink },
  }[p.linkLogin] || null;
  const loginEnv = (who) => (logins ? { S7T_LINK_USER: logins[who].username, S7T_LINK_PASSWORD: logins[who].password } : {});
  return {
    path: p,
    broker,
    /** The broker's service (paths.SERVICES) and port, which the system's ports take. */
    service: svc,
    port: broker ? broker.port : null,
    /** The cloud's environment: its broker through the cloud-side proxy, or its own listener. */
    cloudEnv: (cloudPorts) => ({
      ...paths.cloudEnv(p.id, { host: HOST, ...cloudPorts, ...(proxyOf('cloud') ? { [svc]: proxyOf('cloud').port } : {}) }), ...loginEnv('cloud'),
    }),
    /** The edge's environment, with the ports as the edge sees them. */
    edgeEnv: (plantPorts) => ({ ...paths.edgeEnv({ host: HOST, ...plantPorts }, [p.id]), ...loginEnv('edge') }),
    /** The plant-side proxy of the broker's service, made here: {name, port}; null for any other. */
    plantProxy: (s) => (s === svc && proxyOf('plant')) || null,
    /** The broker → cloud proxy's name (no latency: the broker sits beside the cloud; it is there to be cut). */
    proxies: proxyOf('cloud') ? [proxyOf('cloud').name] : [],
    async stop() { if (broker) await broker.stop(); },
  };
}

module.exports = { linkPathOf, brokerService, startLink };
