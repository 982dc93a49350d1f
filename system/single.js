'use strict';
/**
 * One plant's whole system on ephemeral loopback ports: the virtual PLC, the cloud and the edge
 * Node-RED, and, for a WAN profile, Toxiproxy in front of every cloud service twice: once for
 * twins ("twin-cloud" link) and once for the plant side, the edge and the PLC's own MQTT client
 * ("cloud-edge" link). Which protocol paths run, and what each needs (flow tabs, cloud services,
 * PLC interfaces, the edge's settings, how a twin reaches it), comes from the table of paths
 * (nodes/lib/core/paths.js). The benchmark (bench/lib/system.js) and the end-to-end tests
 * (test/helpers/system.js) start it here.
 *
 * Both twins and the edge dial the cloud, so in a link `up` means towards the cloud (Toxiproxy's
 * upstream) and `down` means from the cloud.
 */
const os = require('node:os');
const path = require('node:path');
const paths = require('../nodes/lib/core/paths');
const { freePort, freePorts } = require('../plc/net');
const { startToxiproxy } = require('./toxiproxy');
const { startNodeRed } = require('./nodered');
const { createPlcProcess } = require('./plc');
const flows = require('./flows');
const { linkPathOf, startLink } = require('./link');

const HOST = '127.0.0.1';
/**
 * Development credentials of a system on loopback, named after its user (`bench-twin-token`,
 * `bench-plc-pw`, …), so a log says whose system a token belongs to.
 * @param {string} name e.g. 'bench'
 * @param {string} plant the plant id
 * @returns {object} plant, tokens (no viewer token), MQTT users, OPC UA accounts
 */
function credentialsFor(name, plant) {
  return {
    plant,
    twinToken: `${name}-twin-token`,
    viewerToken: '',
    edgeToken: `${name}-edge-token`,
    mqttTwin: { username: 'twin', password: `${name}-twin-pw` },
    mqttPlc: { username: 'plc', password: `${name}-plc-pw` },
    mqttMonitor: { username: 'monitor', password: `${name}-monitor-pw` },
    // The link over the bundle's MQTT broker: the plant's edge and the cloud's end of it.
    mqttEdge: { username: 'edge', password: `${name}-edge-pw` },
    mqttLink: { username: 'link', password: `${name}-link-pw` },
    opcuaTwin: { user: 'twin', password: `${name}-twin-ua` },
    opcuaEdge: { user: 'edge', password: `${name}-edge-ua` },
  };
}
/** The credentials of a system whose caller gives none. */
const CREDENTIALS = credentialsFor('system', 'plant1');
/**
 * One folder for the OPC UA client certificates of every twin endpoint: creating a certificate
 * takes seconds, so it is made once. Given explicitly: the transport passes an undefined pkiDir
 * through to its client side, which then has no certificate folder.
 */
const TWIN_PKI = path.join(os.tmpdir(), 's7twin-bench-opcua-pki');

/**
 * Wait until the stock OPC UA server (node-red-contrib-opcua) holds the replica's variables. Its
 * flow adds them once the server node runs, and the replica's edge subscribes once at start and
 * never again (a monitored item on a node that did not exist yet stays dead), so the edge may
 * start only after that, as the study's edge was deployed against a running cloud.
 * @param {string} url opc.tcp:// of the cloud's stock server
 * @param {number} timeoutMs
 */
async function waitStockOpcuaVariables(url, timeoutMs) {
  const { createSession } = require('../nodes/lib/opcua/session');
  const { probeNodeId } = require('../nodes/lib/opcua/tags');
  const side = createSession({ name: 'bench', endpointUrl: url, pkiDir: TWIN_PKI, monitor: [] });
  const end = Date.now() + timeoutMs;
  try {
    await side.connect();
    for (;;) {
      const [r] = await side.read([probeNodeId('res', 0)]).catch(() => [{}]);
      if (r.good) return;
      if (Date.now() > end) {
        throw Object.assign(new Error(`the stock OPC UA server at ${url} has no replica variables after ${timeoutMs} ms`), { code: 'E_START_TIMEOUT' });
      }
      await new Promise((res) => setTimeout(res, 200));
    }
  } finally {
    await side.close().catch(() => {});
  }
}

/** The environment both Node-RED processes get: plant, tokens, users, probe slots. */
function commonEnv(c, scanMs) {
  const env = {
    S7T_PLANT: c.plant,
    S7T_CLOUD_HOST: HOST,
    S7T_SCAN_MS: String(scanMs),
    S7T_TWIN_TOKEN: c.twinToken,
    S7T_VIEWER_TOKEN: c.viewerToken,
    S7T_EDGE_TOKEN: c.edgeToken,
    S7T_MQTT_USERS: [
      ...[c.mqttTwin, c.mqttPlc, c.mqttMonitor].map((u) => `${u.username}:${u.password}:${u.username}`),
      ...(c.mqttEdge ? [`${c.mqttEdge.username}:${c.mqttEdge.password}:edge@${c.plant}`] : []),
      ...(c.mqttLink ? [`${c.mqttLink.username}:${c.mqttLink.password}:link`] : []),
    ].join(','),
    S7T_MQTT_PLC_USER: c.mqttPlc.username,
    S7T_MQTT_PLC_PASSWORD: c.mqttPlc.password,
    S7T_MQTT_MONITOR_USER: c.mqttMonitor.username,
    S7T_MQTT_MONITOR_PASSWORD: c.mqttMonitor.password,
    S7T_PLC_RACK: '0',
    S7T_PLC_SLOT: '1',
    S7T_OPCUA_TWIN_USER: c.opcuaTwin.user,
    S7T_OPCUA_TWIN_PASSWORD: c.opcuaTwin.password,
    S7T_OPCUA_EDGE_USER: c.opcuaEdge.user,
    S7T_OPCUA_EDGE_PASSWORD: c.opcuaEdge.password,
  };
  // The edges that relay a limited number of probe slots are told how many.
  for (const id of paths.ids()) {
    const p = paths.get(id);
    if (p.probeSlotsEnv) env[p.probeSlotsEnv] = String(p.probeSlots);
  }
  return env;
}

/** Each cloud service's port variable set to the given ports. */
const servicePortsEnv = (ports) => Object.fromEntries(Object.entries(paths.SERVICES).map(([name, svc]) => [svc.env, String(ports[name])]));

/**
 * The virtual PLC's options for the wanted paths: S7 always, OPC UA and Modbus when a path needs
 * them, and an MQTT client per broker a path has the PLC publish to (plant-side ports).
 */
function plcOptions(want, o, c, plantPorts) {
  const needs = want.map((id) => paths.get(id).plc);
  const brokers = [];
  for (const n of needs) {
    if (!n.mqtt || brokers.some((b) => b.service === n.mqtt.service)) continue;
    brokers.push({
      service: n.mqtt.service, login: n.mqtt.login,
      client: { url: `mqtt://${HOST}:${plantPorts[n.mqtt.service]}`, plant: c.plant, ...(n.mqtt.login ? c.mqttPlc : {}), qos: 0 },
    });
  }
  // The PLC's own client logs in to the bundle's broker; more clients go to the others (the stock
  // replica's broker knows no users).
  const main = brokers.find((b) => b.login);
  return {
    scanMs: o.scanMs,
    s7: { host: HOST, port: 0 },
    opcua: needs.some((n) => n.opcua) ? { host: HOST, port: 0 } : false,
    modbus: needs.some((n) => n.modbus) ? { host: HOST, port: 0 } : false,
    mqtt: main ? main.client : false,
    mqttMore: brokers.filter((b) => b !== main).map((b) => b.client),
    ...(o.plcInputLog ? { inputLog: o.plcInputLog } : {}),
  };
}

/**
 * How a twin reaches each path (the twin-side ports), and the browser twin's page.
 * @returns {Object<string, object>} path id (and 'page') → transport options
 */
function twinEndpoints(c, twinPorts) {
  const logins = { token: { token: c.twinToken }, mqtt: { ...c.mqttTwin }, opcua: { ...c.opcuaTwin } };
  const out = {};
  for (const id of paths.ids()) {
    out[id] = paths.twinOptions(id, { host: HOST, ports: twinPorts, logins, plant: c.plant });
    if (paths.wireOf(id) === 'opcua') out[id].pkiDir = TWIN_PKI;
  }
  // The browser twin's page, loaded through the twin-side link like every twin (its MQTT broker
  // URL given too: the page would otherwise dial the cloud's own port).
  out.page = {
    url: `http://${HOST}:${twinPorts.http}/s7twin/ui/`, mqttUrl: `ws://${HOST}:${twinPorts.mqttWs}/mqtt`,
    token: c.twinToken, mqtt: { user: c.mqttTwin.username, password: c.mqttTwin.password },
  };
  return out;
}

/**
 * The flows of one role: the wanted paths' tabs (or the given parts), the wanted comparison
 * stacks, and the caller's extra flows (another plant's tabs: system/flows.js plantTabs).
 */
function roleFlows(role, want, o) {
  const bundleWanted = want.some(paths.onBundleFlows);
  let base;
  if (o.parts) base = Object.assign(flows.partFlows(o.parts[role] || []), { disabledTabs: [] });
  else base = flows.withPathsDisabled(bundleWanted ? flows.bundleFlows(role) : [], want);
  const beside = want.filter((id) => paths.get(id).kind === 'comparison').flatMap((id) => flows.comparisonFlows(id, role));
  const extra = (o.extraFlows && o.extraFlows[role]) || [];
  return { flows: [...base, ...beside, ...extra], disabledTabs: base.disabledTabs };
}

/**
 * Another plant beside a system's, dialing the same cloud: its own virtual PLC running its table
 * and its own edge Node-RED (the bundle's edge flow, the Modbus nodes set to its table's blocks,
 * S7T_IO_TABLE naming its table). The cloud serves it with the tabs the caller gave in
 * `extraFlows` (plantTabs for its OPC UA and Modbus servers, and an I/O table node naming the
 * plant) and a token scoped to it (S7T_TOKENS).
 * @param {object} sys what startSystem made so far: {c, scanMs, want, plantPorts, common, stoppers, log, link}
 *   (link: the link over another transport, system/link.js, which its edge takes too)
 * @param {object} p
 * @param {string} p.plant its id
 * @param {object} p.table its table (a table)
 * @param {string} p.tableFile the table's file (S7T_IO_TABLE of its edge)
 * @param {string} p.edgeToken its edge's token (scoped to it in the cloud's S7T_TOKENS)
 * @param {{opcua?: number, modbus?: number}} [p.ports] its cloud OPC UA and Modbus servers' ports
 * @returns {Promise<{plant: string, plc: object, edge: object, plcPorts: object}>}
 */
async function startPlant(sys, p) {
  const { c, want, plantPorts, link } = sys;
  if (link && link.path.linkLogin === 'mqtt') {
    // The link's MQTT users are the first plant's (its edge's role names its plant).
    throw Object.assign(new Error(`another plant over the ${link.path.id} link: its edge would need an MQTT user of its own`), { code: 'E_SYSTEM_ARGS' });
  }
  const ports = { ...plantPorts, ...(p.ports || {}) };
  const plcOpts = plcOptions(want, { scanMs: sys.scanMs }, { ...c, plant: p.plant }, ports);
  const plc = createPlcProcess({ ...plcOpts, table: p.table.definition });
  await plc.start();
  sys.stoppers.push(() => plc.stop());
  const edgeFlows = flows.withModbusMap(roleFlows('edge', want, {}).flows, p.table);
  const pp = plc.ports;
  const edge = await startNodeRed({
    role: 'edge',
    port: await freePort(),
    flows: edgeFlows,
    env: {
      ...sys.common,
      S7T_PLANT: p.plant,
      S7T_IO_TABLE: p.tableFile,
      S7T_EDGE_TOKEN: p.edgeToken,
      S7T_PLC_HOST: HOST,
      S7T_PLC_PORT: String(pp.s7),
      S7T_PLC_OPCUA_PORT: String(pp.opcua || ''),
      S7T_PLC_MODBUS_PORT: String(pp.modbus || ''),
      ...servicePortsEnv(ports),
      ...paths.edgeEnv({ host: HOST, ...ports, plcHost: HOST, plcS7: pp.s7, plcOpcua: pp.opcua || '', plcModbus: pp.modbus || '' }),
      ...(link ? link.edgeEnv(ports) : {}),
    },
  });
  sys.stoppers.push(() => edge.stop());
  sys.log(`${p.plant}: virtual PLC (pid ${plc.pid}, table ${p.table.name}) and edge Node-RED (pid ${edge.pid}) up`);
  return { plant: p.plant, plc, edge, plcPorts: pp };
}

/**
 * Start the system.
 * @param {object} o
 * @param {string[]} [o.protocols] path ids to run (nodes/lib/core/paths.js; default: the bundle's);
 *   at most one link path (ws-amqp, ws-kafka, ws-mqtt, ws-mosquitto, ws-zmq: the edge↔cloud link over that
 *   transport, its broker started here; system/link.js), and then not beside ws or http
 * @param {{cloud?: string[], edge?: string[]}} [o.parts] run these flow parts (flows/parts/) instead
 *   of the assembled flows with the unwanted paths' tabs disabled
 * @param {object|null} [o.links] {'twin-cloud': {up, down}, 'cloud-edge': {up, down}}: Toxiproxy
 *   in both links; none: plain loopback
 * @param {object} [o.credentials] plant, tokens and users (CREDENTIALS's fields)
 * @param {number} [o.scanMs] PLC scan cycle (default 10)
 * @param {object} [o.env] extra S7T_* for both Node-RED processes (wins over everything)
 * @param {object} [o.cloudEnv] extra S7T_* for the cloud only
 * @param {object} [o.transport] path id → options added to its twin endpoint
 * @param {number} [o.cloudPort] the cloud's HTTP port (default: a free one)
 * @param {object} [o.plc] a PLC process of the caller's (createPlcProcess, started) instead of one
 *   of the system's
 * @param {string} [o.plcInputLog] the virtual PLC's input log file (plc/input-log.js)
 * @param {{cloud?: object[], edge?: object[]}} [o.extraFlows] more flow nodes for a role (another
 *   plant's tabs: system/flows.js plantTabs)
 * @param {(line:string)=>void} [o.log]
 * @returns {Promise<object>} {endpoints, cloudPorts, procs, pids, cloud, edge, plc, toxiproxy,
 *   plantProxies, stop(), signal(name, sig), restart(name), addPlant(p): another plant beside it
 *   (startPlant)}
 */
async function startSystem(o = {}) {
  const log = o.log || (() => {});
  const c = { ...CREDENTIALS, ...(o.credentials || {}) };
  const scanMs = o.scanMs || 10;
  const want = [...new Set(o.protocols || paths.bundle())];
  for (const id of want) {
    if (!paths.get(id)) throw Object.assign(new Error(`unknown protocol path "${id}" (have: ${paths.ids().join(', ')})`), { code: 'E_SYSTEM_ARGS' });
  }
  const linkPath = linkPathOf(want);
  const stoppers = [];
  const stop = async () => {
    for (const s of stoppers.reverse()) await s().catch((err) => log(`stop: ${err.message}`));
    stoppers.length = 0;
  };
  try {
    // Order matters for ports: the cloud binds its ports first, and only then does Toxiproxy
    // create its proxies on ephemeral ports. (Proxies made earlier can take a port that was
    // picked for the cloud but not yet bound: a twin then reaches the wrong service.)
    let tp = null;
    if (o.links) {
      tp = await startToxiproxy();
      stoppers.push(() => tp.stop());
    }
    // The link's broker before the cloud's ports are picked (it starts for seconds, and a port
    // picked but not yet bound can be taken meanwhile); the system's ports then take its port.
    const link = linkPath ? await startLink(linkPath, { tp, credentials: c, log }) : null;
    if (link) stoppers.push(() => link.stop());
    const cloudPorts = await freePorts(Object.keys(paths.SERVICES), HOST);
    if (o.cloudPort) cloudPorts.http = o.cloudPort;
    if (link && link.service) cloudPorts[link.service] = link.port;
    const common = commonEnv(c, scanMs);
    const cloudFlows = roleFlows('cloud', want, o);
    const edgeFlows = roleFlows('edge', want, o);
    const off = [...new Set([...cloudFlows.disabledTabs, ...edgeFlows.disabledTabs])];
    if (off.length) log(`flow tabs disabled (paths not in this run): ${off.join(', ')}`);
    const cloudOpts = {
      role: 'cloud',
      port: cloudPorts.http,
      flows: cloudFlows.flows,
      env: {
        ...common, ...servicePortsEnv(cloudPorts), S7T_MQTT_HOST: HOST, S7T_OPCUA_HOST: HOST, S7T_MODBUS_HOST: HOST,
        ...(link ? link.cloudEnv(cloudPorts) : {}), ...(o.cloudEnv || {}), ...(o.env || {}),
      },
    };
    const procs = {};
    procs.cloud = await startNodeRed(cloudOpts);
    stoppers.push(() => procs.cloud.stop());
    log(`cloud Node-RED up (pid ${procs.cloud.pid}, port ${procs.cloud.port})`);

    // Proxies, now that every cloud port is bound: one per service for twins, one for the plant.
    let twinPorts = { ...cloudPorts };
    let plantPorts = { ...cloudPorts };
    if (tp) {
      twinPorts = {};
      plantPorts = {};
      for (const [svc, port] of Object.entries(cloudPorts)) {
        const a = await tp.createProxy({ name: `twin-${svc}`, upstream: `${HOST}:${port}` });
        await tp.addLatency(a.name, o.links['twin-cloud'] || {});
        twinPorts[svc] = a.port;
        // The link's broker has its plant-side proxy already (system/link.js).
        const b = (link && link.plantProxy(svc)) || await tp.createProxy({ name: `plant-${svc}`, upstream: `${HOST}:${port}` });
        await tp.addLatency(b.name, o.links['cloud-edge'] || {});
        plantPorts[svc] = b.port;
      }
    }
    // A link over a broker has a second hop, broker → cloud: cut with the plant's in a link fault.
    const brokerProxies = link && tp ? link.proxies : [];

    // A restart comes back on the same ports, as a real PLC does.
    const plc = o.plc || createPlcProcess(plcOptions(want, { scanMs, plcInputLog: o.plcInputLog }, c, plantPorts));
    procs.plc = await plc.start();
    if (!o.plc) stoppers.push(() => plc.stop());
    log(`virtual PLC up (pid ${plc.pid}, S7 ${plc.ports.s7})`);
    if (want.includes('stock-opcua')) await waitStockOpcuaVariables(`opc.tcp://${HOST}:${cloudPorts.stockOpcua}`, 60000);

    // The edge reaches every cloud service through the plant-side proxies (same variable names,
    // other ports): it never learns the cloud's real ports.
    const ports = plc.ports;
    const edgeOpts = {
      role: 'edge',
      port: await freePort(),
      flows: edgeFlows.flows,
      env: {
        ...common,
        S7T_PLC_HOST: HOST,
        S7T_PLC_PORT: String(ports.s7),
        S7T_PLC_OPCUA_PORT: String(ports.opcua || ''),
        S7T_PLC_MODBUS_PORT: String(ports.modbus || ''),
        ...servicePortsEnv(plantPorts),
        ...paths.edgeEnv({ host: HOST, ...plantPorts, plcHost: HOST, plcS7: ports.s7, plcOpcua: ports.opcua || '', plcModbus: ports.modbus || '' }),
        ...(link ? link.edgeEnv(plantPorts) : {}),
        ...(o.env || {}),
      },
    };
    procs.edge = await startNodeRed(edgeOpts);
    stoppers.push(() => procs.edge.stop());
    log(`edge Node-RED up (pid ${procs.edge.pid}, port ${procs.edge.port})`);

    const endpoints = twinEndpoints(c, twinPorts);
    for (const [id, extra] of Object.entries(o.transport || {})) if (endpoints[id]) Object.assign(endpoints[id], extra);
    return {
      credentials: c,
      endpoints,
      cloudPorts,
      twinPorts,
      procs,
      get cloud() { return procs.cloud; },
      get edge() { return procs.edge; },
      plc,
      get pids() { return { cloud: procs.cloud.pid, edge: procs.edge.pid, plc: procs.plc.pid }; },
      toxiproxy: tp,
      plantProxies: tp ? [...Object.keys(cloudPorts).map((svc) => `plant-${svc}`), ...brokerProxies] : [],
      /** The edge↔cloud link: its transport, its broker (if the launcher started one), the ports the edge reaches it on. */
      link: {
        transport: linkPath ? linkPath.link : 'ws',
        broker: link && link.broker,
        edgePorts: (linkPath ? linkPath.services.filter((svc) => svc !== 'http') : ['http']).map((svc) => plantPorts[svc]),
      },
      stop,
      /** Another plant beside this one (startPlant): its PLC and edge, stopped with the system. */
      addPlant: (p) => startPlant({ c, scanMs, want, plantPorts, common, stoppers, log, link }, p),
      /**
       * Signal one process (the fault suite: SIGKILL, SIGSTOP, SIGCONT).
       * @param {'cloud'|'edge'|'plc'} name
       * @param {string} signal
       */
      signal(name, signal) { process.kill(procs[name].pid, signal); },
      /**
       * Start a process again with its options and ports (after it was stopped or killed);
       * `pids`, `cloud`, `edge` follow.
       * @param {'cloud'|'edge'|'plc'} name
       */
      async restart(name) {
        if (name === 'plc') {
          await plc.stop().catch(() => {}); // reaps a killed child
          procs.plc = await plc.start();
        } else if (name === 'edge') {
          // The edge comes back with its own disk, as a real one does: its idempotency keys
          // (lib/s7/key-store.js) are there, so no key is written twice across the restart.
          const { userDir } = procs.edge;
          await procs.edge.stop({ keep: true }).catch(() => {}); // reaps a killed child
          procs.edge = await startNodeRed({ ...edgeOpts, userDir });
        } else {
          await procs[name].stop().catch(() => {}); // reaps a killed child, removes its user dir
          procs[name] = await startNodeRed(cloudOpts);
        }
        return procs[name];
      },
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

module.exports = { startSystem, credentialsFor, CREDENTIALS, HOST, TWIN_PKI };
