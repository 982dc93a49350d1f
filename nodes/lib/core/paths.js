'use strict';
/**
 * The protocol paths between a twin and the PLC, in one table: which exist, what each is made of
 * (its twin transport, its flow tabs, its docs page), how a twin on this machine reaches it, what
 * its edge needs to know, and where it appears in the benchmark. The launcher (system/), the
 * benchmark and its report (bench/), the flow builder (scripts/build-flows.js) and the headless
 * twin (twin/cli.js) read it here, so a path is added in one place (docs/protocol-paths.md lists
 * the steps; test/nodes/lib/core/paths.test.js fails while one of a path's parts is missing).
 *
 * Pure data and small accessors: no I/O, no require of anything outside this folder, so the nodes,
 * the twin and the tools may all read it.
 *
 * Fields of a path:
 *   id          the name every tool uses (`--protocol`, `--protocols`, report rows)
 *   label       the name a reader sees
 *   kind        'bundle': a path of this bundle (its flows ship in flows/, its transport in
 *               twin/transports/); 'comparison': a stack the benchmark runs beside ours and the
 *               bundle never ships (the study's own stacks, built from the stock nodes it used);
 *               'link': a bundle path (its `wire`) with the edge↔cloud link over another
 *               transport (`link`, nodes/lib/link/transports/): the same flows, twin transport and
 *               nodes, told by S7T_LINK_TRANSPORT which transport to take; a system runs one link
 *               transport at a time
 *   link        link paths: the link transport (amqp, kafka, mqtt, zmq)
 *   linkLogin   link paths: the login on the link's broker: 'broker' (the broker the launcher
 *               starts, the same user for both ends) or 'mqtt' (an MQTT broker: the edge's and the
 *               cloud's own MQTT users, roles edge and link; the bundle's broker, or Mosquitto
 *               with ACLs generated from those roles)
 *   transport   the twin's client, a file from the package root that exports createTransport
 *   wire        the protocol its transport speaks where the transport is another path's
 *   tabs        bundle paths: the flow tabs it runs on, per role (flows/parts/<name>.json); a tab
 *               shared by several paths (the browser twin's) is listed by each
 *   flows       comparisons: their flows, bench/flows/<flows>-cloud.json and -edge.json (if any)
 *   docs        the page that explains it
 *   services    the cloud listeners it uses (SERVICES)
 *   twin        how a twin reaches it: URL template over `{host}` and the services' ports, the
 *               login it takes (LOGINS), whether it names the plant (true: the system's plant, or a
 *               fixed plant id), and fixed transport options
 *   edge        environment the edge's flows read to reach the cloud, templates over `{host}`, the
 *               services' ports as the edge sees them, `{plcHost}` and the PLC's ports
 *               (`{plcS7}`, `{plcOpcua}`, `{plcModbus}`)
 *   cloud       link paths: environment the cloud's flows read to reach the link's broker, templates
 *               over `{host}` and the services' ports as the cloud sees them
 *   plc         the virtual PLC interfaces it needs: `opcua`, `modbus`, `mqtt` (a client that
 *               publishes to a cloud service, with the PLC's login or none)
 *   probeSlots  probe slots a twin may use over it, from slot 0 ('all': every PLC slot);
 *               probeSlotsEnv: the variable that tells its edge how many to relay
 *   bench       the benchmark: `probes` (probe and load rows), `productions` (twin productions),
 *               `firstSlot` (its first probe slot), `study` (the study's protocol its cells are
 *               compared with), `tables` (the report's tables it is a row of, TABLES), `page`
 *               (the browser twin speaks it), `bytes` (what its transport counts as bytes)
 */

/**
 * The cloud's listeners the paths use, and the variable that sets each one's port (the cloud
 * binds it; the edge and the twins dial it, through Toxiproxy in a WAN profile).
 */
const SERVICES = {
  http: { env: 'S7T_CLOUD_PORT', runtime: true }, // Node-RED's own HTTP server (settings.js)
  mqtt: { env: 'S7T_MQTT_PORT' },
  mqttWs: { env: 'S7T_MQTT_WS_PORT' },
  opcua: { env: 'S7T_OPCUA_PORT' },
  modbus: { env: 'S7T_MODBUS_PORT' },
  stockMqtt: { env: 'S7T_STOCK_MQTT_PORT' },
  stockOpcua: { env: 'S7T_STOCK_OPCUA_PORT' },
  stockModbus: { env: 'S7T_STOCK_MODBUS_PORT' },
  // The link transports' listeners: the cloud binds ZeroMQ's; the launcher starts the brokers
  // (`broker`: system/brokers/). Their flows read them in S7T_LINK_URL (`via`).
  linkZmq: { env: 'S7T_LINK_ZMQ_PORT', via: 'S7T_LINK_URL' },
  rabbitmq: { env: 'S7T_RABBITMQ_PORT', via: 'S7T_LINK_URL', broker: 'rabbitmq' },
  kafka: { env: 'S7T_KAFKA_PORT', via: 'S7T_LINK_URL', broker: 'kafka' },
  mosquitto: { env: 'S7T_MOSQUITTO_PORT', via: 'S7T_LINK_URL', broker: 'mosquitto' },
};

/** The logins a twin transport takes, and the options each becomes. */
const LOGINS = {
  token: 'a bearer token: {token}',
  mqtt: 'an MQTT user with role twin: {username, password}',
  opcua: 'an OPC UA user account: {user, password}',
};

/** The benchmark report's tables a path may be a row of (bench.tables). */
const TABLES = {
  probe: 'network floor and probe round trips',
  table1: 'Table 1, round trip per timed variable (productions)',
  table3: 'Table 3, bytes on the wire (productions)',
  table4: 'Table 4, load',
  table5: 'Table 5, local vs WAN',
  targets: 'a target: its WAN mean below the study\'s (the WebSocket–S7 path\'s targets are the report\'s own rows)',
  related: 'HTTP, MQTT over TCP and MQTT over WebSocket beside the related study',
  links: 'the edge↔cloud link over each transport: bytes on the link per box',
  stock: 'our paths beside the study\'s stock stacks',
  page: 'the browser twin\'s twin-side cost',
};

/**
 * The ws path with its edge↔cloud link over another transport: a row of the table.
 * @param {string} link the transport id (nodes/lib/link/transports/)
 * @param {string} name the transport as the report names it
 * @param {string[]} services the link's listener or broker (SERVICES)
 * @param {string} url the link's address, a template over {host} and the services' ports
 * @param {'broker'|'mqtt'|null} login the link's login on its broker (none: ZeroMQ has no broker)
 * @param {string} [id] the path's id where the transport has more than one broker (default ws-<link>)
 */
function linkPath(link, name, services, url, login, id = `ws-${link}`) {
  return {
    id,
    label: `WebSocket–S7, link over ${name}`,
    kind: 'link',
    link,
    linkLogin: login,
    wire: 'ws',
    transport: 'twin/transports/ws.js',
    // The link over the bundle's own MQTT broker needs the cloud's broker tab; any other broker
    // is started beside the cloud by the launcher.
    tabs: { cloud: ['cloud-ws', 'cloud-twin-ui', ...(services.includes('mqtt') ? ['cloud-mqtt'] : [])], edge: ['edge-ws'] },
    docs: 'docs/link-transports.md',
    services: ['http', ...services],
    twin: { url: 'ws://{host}:{http}/s7twin/twin', login: 'token', plant: true },
    edge: { S7T_CLOUD_URL: 'ws://{host}:{http}/s7twin/edge', S7T_LINK_TRANSPORT: link, S7T_LINK_URL: url },
    cloud: { S7T_LINK_TRANSPORT: link, S7T_LINK_URL: url },
    plc: {},
    probeSlots: 'all',
    bench: {
      probes: true, productions: true, firstSlot: 1, study: 'ws',
      tables: ['probe', 'table1', 'table3', 'table4', 'table5', 'links'],
      bytes: 'the twin\'s frame payloads, as on the ws path (the link\'s own bytes: the links table)',
    },
  };
}

const PATHS = [
  {
    id: 'ws',
    label: 'WebSocket–S7',
    kind: 'bundle',
    transport: 'twin/transports/ws.js',
    tabs: { cloud: ['cloud-ws', 'cloud-twin-ui'], edge: ['edge-ws'] },
    docs: 'docs/bridge.md',
    services: ['http'],
    twin: { url: 'ws://{host}:{http}/s7twin/twin', login: 'token', plant: true },
    edge: { S7T_CLOUD_URL: 'ws://{host}:{http}/s7twin/edge' },
    plc: {},
    probeSlots: 'all',
    bench: {
      probes: true, productions: true, firstSlot: 1, study: 'ws', page: true,
      tables: ['probe', 'table1', 'table3', 'table4', 'table5', 'stock', 'page', 'links'],
      bytes: 'TCP bytes of the connection (the opening handshake and WebSocket framing included)',
    },
  },
  {
    id: 'mqtt',
    label: 'MQTT',
    kind: 'bundle',
    transport: 'twin/transports/mqtt.js',
    tabs: { cloud: ['cloud-mqtt'], edge: [] },
    docs: 'docs/mqtt.md',
    services: ['mqtt'],
    twin: { url: 'mqtt://{host}:{mqtt}', login: 'mqtt', plant: true },
    edge: {},
    plc: { mqtt: { service: 'mqtt', login: true } },
    probeSlots: 'all',
    bench: {
      probes: true, productions: true, firstSlot: 1, study: 'mqtt',
      tables: ['probe', 'table1', 'table3', 'table4', 'table5', 'targets', 'related', 'stock'],
      bytes: 'TCP bytes of the connection',
    },
  },
  {
    id: 'opcua',
    label: 'OPC UA',
    kind: 'bundle',
    transport: 'twin/transports/opcua.js',
    tabs: { cloud: ['cloud-opcua'], edge: ['edge-opcua'] },
    docs: 'docs/opcua.md',
    services: ['opcua'],
    twin: { url: 'opc.tcp://{host}:{opcua}', login: 'opcua', plant: true },
    edge: { S7T_OPCUA_URL: 'opc.tcp://{host}:{opcua}' },
    plc: { opcua: true },
    // Each relayed slot costs the edge reads on every poll: the edge relays the first 122.
    probeSlots: 122,
    probeSlotsEnv: 'S7T_OPCUA_PROBE_SLOTS',
    bench: {
      probes: true, productions: true, firstSlot: 1, study: 'opcua',
      tables: ['probe', 'table1', 'table3', 'table4', 'table5', 'targets', 'stock'],
      bytes: 'bytes of the secure channel',
    },
  },
  {
    id: 'modbus',
    label: 'Modbus',
    kind: 'bundle',
    transport: 'twin/transports/modbus.js',
    tabs: { cloud: ['cloud-modbus'], edge: ['edge-modbus'] },
    docs: 'docs/modbus.md',
    services: ['modbus'],
    twin: { url: 'modbus://{host}:{modbus}' },
    edge: { S7T_MODBUS_CLOUD_HOST: '{host}', S7T_MODBUS_CLOUD_PORT: '{modbus}' },
    plc: { modbus: true },
    probeSlots: 122,
    probeSlotsEnv: 'S7T_MODBUS_PROBE_SLOTS',
    bench: {
      probes: true, productions: true, firstSlot: 1, study: 'modbus',
      tables: ['probe', 'table1', 'table3', 'table4', 'table5', 'targets', 'stock'],
      bytes: 'TCP bytes of the connection',
    },
  },
  {
    // The related study's second path: MQTT over WebSocket to the same broker.
    id: 'mqttws',
    label: 'MQTT over WebSocket',
    kind: 'bundle',
    transport: 'twin/transports/mqttws.js',
    tabs: { cloud: ['cloud-mqtt', 'cloud-twin-ui'], edge: [] },
    docs: 'docs/mqtt.md',
    services: ['mqttWs'],
    twin: { url: 'ws://{host}:{mqttWs}/mqtt', login: 'mqtt', plant: true },
    edge: {},
    plc: { mqtt: { service: 'mqtt', login: true } },
    probeSlots: 'all',
    // Productions only, as the related study measured it: its probes would be the MQTT path's.
    bench: {
      probes: false, productions: true, firstSlot: 1, page: true,
      tables: ['table1', 'table3', 'related', 'page'],
      bytes: 'TCP bytes of the connection (MQTT in WebSocket frames, the upgrade included)',
    },
  },
  {
    // The related study's third path: HTTP polling of the REST endpoint, which relays over the
    // WebSocket–S7 path's edge link.
    id: 'http',
    label: 'HTTP polling',
    kind: 'bundle',
    transport: 'twin/transports/http.js',
    tabs: { cloud: ['cloud-ws', 'cloud-twin-ui'], edge: ['edge-ws'] },
    docs: 'docs/browser-twin.md',
    services: ['http'],
    twin: { url: 'http://{host}:{http}/s7twin/rest', login: 'token' },
    edge: { S7T_CLOUD_URL: 'ws://{host}:{http}/s7twin/edge' },
    plc: {},
    probeSlots: 0,
    bench: {
      probes: false, productions: true, firstSlot: 1, page: true,
      tables: ['table1', 'table3', 'related', 'page'],
      bytes: 'TCP bytes of the keep-alive connections (request and response headers included)',
    },
  },
  // The WebSocket–S7 path with the edge↔cloud link over each message transport
  // (docs/link-transports.md): the twins and the flows are the ws path's.
  linkPath('amqp', 'AMQP (RabbitMQ)', ['rabbitmq'], 'amqp://{host}:{rabbitmq}', 'broker'),
  linkPath('kafka', 'Kafka', ['kafka'], 'kafka://{host}:{kafka}', 'broker'),
  linkPath('mqtt', 'MQTT', ['mqtt'], 'mqtt://{host}:{mqtt}', 'mqtt'),
  // The same MQTT link on Eclipse Mosquitto (the protocol study's MQTT broker), its users and
  // ACLs generated from the bundle's MQTT roles (system/brokers/mosquitto.js).
  linkPath('mqtt', 'MQTT (Mosquitto)', ['mosquitto'], 'mqtt://{host}:{mosquitto}', 'mqtt', 'ws-mosquitto'),
  linkPath('zmq', 'ZeroMQ', ['linkZmq'], 'tcp://{host}:{linkZmq}', null),
  {
    // The study's WebSocket–S7 stack: its own twin client, probe slot 0 only, no productions.
    id: 'stock',
    label: 'stock WS-S7 replica',
    kind: 'comparison',
    transport: 'bench/lib/stock-transport.js',
    flows: 'stock',
    docs: 'docs/bench.md',
    services: ['http'],
    twin: { url: 'ws://{host}:{http}/stock/twin' },
    edge: { S7T_STOCK_EDGE_URL: 'ws://{host}:{http}/stock/edge', S7T_STOCK_PLC_URL: 'ws://{host}:{http}/stock/plctounity' },
    plc: {},
    probeSlots: 1,
    bench: { probes: true, productions: false, firstSlot: 0, study: 'ws', tables: ['probe', 'table4', 'stock'] },
  },
  {
    // The stock broker knows no users: the PLC's second client logs in without any, at QoS 0.
    id: 'stock-mqtt',
    label: 'stock MQTT replica',
    kind: 'comparison',
    transport: 'twin/transports/mqtt.js',
    wire: 'mqtt',
    flows: 'stock-mqtt',
    docs: 'docs/bench.md',
    services: ['stockMqtt'],
    // The replicas' twins run the study's client settings whatever the tuning (MQTT at QoS 0,
    // OPC UA and Modbus polled every 50 ms); the replicas take no credentials.
    twin: { url: 'mqtt://{host}:{stockMqtt}', plant: true, options: { qos: 0 } },
    edge: {},
    plc: { mqtt: { service: 'stockMqtt', login: false } },
    probeSlots: 'all',
    bench: { probes: true, productions: true, firstSlot: 1, study: 'mqtt', tables: ['probe', 'table1', 'table3', 'table4', 'table5', 'stock'] },
  },
  {
    id: 'stock-opcua',
    label: 'stock OPC UA replica',
    kind: 'comparison',
    transport: 'twin/transports/opcua.js',
    wire: 'opcua',
    flows: 'stock-opcua',
    docs: 'docs/bench.md',
    services: ['stockOpcua'],
    // A hand-built flow names one plant in its node ids: the study's plant1.
    twin: { url: 'opc.tcp://{host}:{stockOpcua}', plant: 'plant1', options: { user: '', password: '', mode: 'poll', pollMs: 50 } },
    edge: { S7T_STOCK_OPCUA_URL: 'opc.tcp://{host}:{stockOpcua}', S7T_PLC_OPCUA_URL: 'opc.tcp://{plcHost}:{plcOpcua}' },
    plc: { opcua: true },
    probeSlots: 1,
    bench: { probes: true, productions: true, firstSlot: 0, study: 'opcua', tables: ['probe', 'table1', 'table3', 'table4', 'table5', 'stock'] },
  },
  {
    id: 'stock-modbus',
    label: 'stock Modbus replica',
    kind: 'comparison',
    transport: 'twin/transports/modbus.js',
    wire: 'modbus',
    flows: 'stock-modbus',
    docs: 'docs/bench.md',
    services: ['stockModbus'],
    twin: { url: 'modbus://{host}:{stockModbus}', options: { pollMs: 50 } },
    edge: {},
    plc: { modbus: true },
    probeSlots: 1,
    bench: { probes: true, productions: true, firstSlot: 0, study: 'modbus', tables: ['probe', 'table1', 'table3', 'table4', 'table5', 'stock'] },
  },
];

/**
 * The protocols of the protocol study (bench/study.js, docs/study.md): measured between processes
 * of their own, not through the PLC, so none is a path above; the ROS and DDS rows sit here beside
 * the wire protocols of the bundle's paths, so the study and the benchmark call each protocol by
 * one name. How each one is started is the study's business (bench/study/stacks.js).
 *   id     the study's name for it (`--stacks`)
 *   label  the name a reader sees
 *   wire   what is on the wire
 *   path   the bundle path whose wire protocol it measures, or null
 *   kind   'baseline' (raw sockets: the floor), 'bundle' (a stack this bundle's paths are built on),
 *          'other' (a protocol the bundle does not speak)
 */
const STUDY_STACKS = [
  { id: 'tcp', label: 'TCP (raw)', wire: 'TCP', path: null, kind: 'baseline' },
  { id: 'udp', label: 'UDP (raw)', wire: 'UDP', path: null, kind: 'baseline' },
  { id: 'ws', label: 'WebSocket + envelope', wire: 'WebSocket frames carrying the envelope', path: 'ws', kind: 'bundle' },
  { id: 'mqtt', label: 'MQTT (aedes)', wire: 'MQTT 3.1.1 over TCP', path: 'mqtt', kind: 'bundle' },
  { id: 'mosquitto', label: 'MQTT (Mosquitto)', wire: 'MQTT 3.1.1 over TCP', path: 'mqtt', kind: 'bundle' },
  { id: 'opcua', label: 'OPC UA C/S', wire: 'OPC UA binary over TCP', path: 'opcua', kind: 'bundle' },
  { id: 'ros', label: 'ROS 1', wire: 'XML-RPC to the master, TCPROS between nodes', path: null, kind: 'other' },
  { id: 'dds', label: 'DDS (Cyclone)', wire: 'RTPS over UDP', path: null, kind: 'other' },
  { id: 'fastdds', label: 'DDS (Fast DDS)', wire: 'RTPS over UDP', path: null, kind: 'other' },
];

const BY_ID = new Map(PATHS.map((p) => [p.id, p]));

/** Every path id, in the table's order (the order runs and reports use). */
const ids = () => PATHS.map((p) => p.id);

/**
 * A path by id.
 * @param {string} id
 * @returns {object|undefined}
 */
const get = (id) => BY_ID.get(id);

/** Ids of the bundle's paths (deployed by the assembled flows). */
const bundle = () => PATHS.filter((p) => p.kind === 'bundle').map((p) => p.id);

/** Ids of the comparison stacks (benchmark only: the study's replicas). */
const comparisons = () => PATHS.filter((p) => p.kind === 'comparison').map((p) => p.id);

/** Ids of the link paths: the ws path with its link over another transport. */
const links = () => PATHS.filter((p) => p.kind === 'link').map((p) => p.id);

/** Does the path run on the bundle's flows (a bundle path, or a link path over one)? */
const onBundleFlows = (id) => Boolean(get(id)) && (get(id).kind === 'bundle' || get(id).kind === 'link');

/** The link transport a path's edge↔cloud link takes: its own for a link path, else WebSocket. */
const linkOf = (id) => (get(id) && get(id).link) || 'ws';

/**
 * Ids of the paths that are rows of one of the report's tables (TABLES), in the table's order.
 * @param {string} table
 */
const inTable = (table) => PATHS.filter((p) => p.bench.tables.includes(table)).map((p) => p.id);

/**
 * The protocol name a path's transport speaks (a comparison: the path whose transport it borrows).
 * @param {string} id
 */
const wireOf = (id) => (get(id) && get(id).wire) || id;

/**
 * Probe slots a twin may use over a path, from slot 0 (0 when unknown).
 * @param {string} id
 * @param {number} allSlots the PLC's probe slots (its table's PROBE_SLOTS: 1,024 for the demo plant)
 */
function probeSlots(id, allSlots) {
  const p = get(id);
  if (!p) return 0;
  return p.probeSlots === 'all' ? allSlots : p.probeSlots;
}

/**
 * Fill a template's `{name}` fields (a field with no value becomes '').
 * @param {string} template
 * @param {object} vars
 * @returns {string}
 */
function expand(template, vars) {
  return template.replace(/\{(\w+)\}/g, (_, k) => (vars[k] === undefined || vars[k] === null ? '' : String(vars[k])));
}

/**
 * Transport options that reach a path: its URL filled in, its login, its plant, its fixed options.
 * @param {string} id
 * @param {object} o
 * @param {string} o.host the cloud's host as the twin sees it
 * @param {Object<string, number|string>} o.ports service → port as the twin sees it
 * @param {Object<string, object>} o.logins LOGINS key → transport options (e.g. {token})
 * @param {string} [o.plant] the system's plant
 * @returns {object} options for the path's transport ({} for an unknown path)
 */
function twinOptions(id, o) {
  const p = get(id);
  if (!p) return {};
  const t = p.twin;
  const out = { url: expand(t.url, { host: o.host, ...o.ports }), ...((t.login && o.logins[t.login]) || {}) };
  if (t.plant) out.plant = t.plant === true ? o.plant : t.plant;
  return { ...out, ...(t.options || {}) };
}

/**
 * The environment an edge's flows read to reach the given paths (every path but the link paths,
 * which each choose the edge's one link, when none is given).
 * @param {object} vars host, the services' ports, plcHost, plcS7, plcOpcua, plcModbus
 * @param {string[]} [only] path ids
 * @returns {Object<string, string>}
 */
function edgeEnv(vars, only = ids().filter((id) => get(id).kind !== 'link')) {
  const out = {};
  for (const id of only) for (const [k, v] of Object.entries(get(id).edge)) out[k] = expand(v, vars);
  return out;
}

/**
 * The environment a link path's cloud flows read to reach its broker (its `cloud` templates), or {}.
 * @param {string} id
 * @param {object} vars host and the services' ports as the cloud sees them
 * @returns {Object<string, string>}
 */
function cloudEnv(id, vars) {
  const p = get(id);
  return Object.fromEntries(Object.entries((p && p.cloud) || {}).map(([k, v]) => [k, expand(v, vars)]));
}

module.exports = {
  PATHS, STUDY_STACKS, SERVICES, LOGINS, TABLES, ids, get, bundle, comparisons, links, onBundleFlows, linkOf,
  inTable, wireOf, probeSlots, expand, twinOptions, edgeEnv, cloudEnv,
};
