'use strict';
/**
 * The edge↔cloud link of a one-plant system over another transport than WebSocket: a link path of
 * the table (nodes/lib/core/paths.js kind 'link': ws-amqp, ws-kafka, ws-mqtt, ws-zmq). Its broker
 * started (system/brokers/: RabbitMQ or Kafka; MQTT's is the cloud's own, ZeroMQ has none), the
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
 * Start what a link path needs before the cloud starts: its broker, and the ports of the proxies
 * in front of it (chosen now: Kafka tells its clients where to connect).
 * @param {object} p the link path
 * @param {object} o
 * @param {Object<string, number>} o.cloudPorts every service's port (system/single.js)
 * @param {object|null} o.tp Toxiproxy, or null (loopback)
 * @param {object} o.credentials the system's (credentialsFor): MQTT users of roles edge and link
 * @param {(line: string) => void} [o.log]
 * @returns {Promise<object>} {path, broker, cloudEnv, edgeEnv(plantPorts), plantProxy(svc),
 *   proxies(tp): Promise<string[]>, stop()}
 */
async function startLink(p, o) {
  const log = o.log || (() => {});
  const svc = brokerService(p);
  const c = o.credentials;
  // Proxies in front of the broker, their ports chosen before it starts.
  const at = o.tp && svc ? await freePorts(['plant', 'cloud'], HOST) : null;
  let broker = null;
  if (svc === 'rabbitmq') broker = await startRabbitMq({ port: o.cloudPorts.rabbitmq });
  if (svc === 'kafka') {
    broker = await startKafka({
      port: o.cloudPorts.kafka,
      ...(at ? { listeners: [{ name: 'EDGE', advertisedPort: at.plant }, { name: 'CLOUD', advertisedPort: at.cloud }] } : {}),
    });
  }
  if (broker) log(`${broker.name} up for the link (pid ${broker.pid}, port ${broker.port}, ${Math.round(broker.startMs)} ms)`);
  const logins = {
    broker: broker ? { edge: broker.credentials, cloud: broker.credentials } : null,
    mqtt: { edge: c.mqttEdge, cloud: c.mqttLink },
  }[p.linkLogin] || null;
  const loginEnv = (who) => (logins ? { S7T_LINK_USER: logins[who].username, S7T_LINK_PASSWORD: logins[who].password } : {});
  // What the cloud dials: its broker through the cloud-side proxy, or its own listener.
  const cloudSide = { host: HOST, ...o.cloudPorts, ...(at ? { [svc]: at.cloud } : {}) };
  // Upstream of the broker's proxies: Kafka's own listener for each side, else the broker's port.
  const upstream = (side) => (broker && broker.ports[side === 'plant' ? 'EDGE' : 'CLOUD']) || o.cloudPorts[svc];
  return {
    path: p,
    broker,
    cloudEnv: { ...paths.cloudEnv(p.id, cloudSide), ...loginEnv('cloud') },
    /** The edge's environment, with the ports as the edge sees them. */
    edgeEnv: (plantPorts) => ({ ...paths.edgeEnv({ host: HOST, ...plantPorts }, [p.id]), ...loginEnv('edge') }),
    /** The plant-side proxy of a service, where it differs from the default (a port chosen, Kafka's own listener). */
    plantProxy: (s) => (at && s === svc ? { listen: `${HOST}:${at.plant}`, upstream: `${HOST}:${upstream('plant')}` } : null),
    /** The broker → cloud proxy (no latency), once the cloud runs; its name, with the plant side's. */
    async proxies(tp) {
      if (!at) return [];
      const x = await tp.createProxy({ name: `cloud-${svc}`, listen: `${HOST}:${at.cloud}`, upstream: `${HOST}:${upstream('cloud')}` });
      return [x.name];
    },
    async stop() { if (broker) await broker.stop(); },
  };
}

module.exports = { linkPathOf, brokerService, startLink };
