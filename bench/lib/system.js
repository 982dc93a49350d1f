'use strict';
/**
 * The whole system for one benchmark profile, on ephemeral loopback ports: the virtual PLC, the
 * cloud and edge Node-RED with the assembled flows (flows/cloud.json, flows/edge.json) plus the
 * stock replica of the study's path (bench/flows/stock-*.json), and, for a WAN profile,
 * Toxiproxy in front of every cloud service twice: once for twins ("twin-cloud" link) and once
 * for the plant side, the edge and the PLC's own MQTT client ("cloud-edge" link).
 *
 * Both twins and the edge dial the cloud, so in a profile's link `up` means towards the cloud
 * (Toxiproxy's upstream) and `down` means from the cloud.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startToxiproxy } = require('./toxiproxy');
const { freePort, freePorts } = require('../../plc/net');
const { startPlc, startNodeRed } = require('./procs');
const tags = require('../../nodes/lib/core/tags');

const ROOT = path.join(__dirname, '..', '..');
const HOST = '127.0.0.1';
const DEFAULTS = {
  plant: 'bench',
  scanMs: 10, // PLC scan cycle, ms (the study's S7-1500 and issue 3's target)
  stockCycleMs: 50, // node-red-contrib-s7's minimum read cycle (MIN_CYCLE_TIME in red/s7.js)
  twinToken: 'bench-twin-token',
  edgeToken: 'bench-edge-token',
  mqttTwin: { username: 'twin', password: 'bench-twin-pw' },
  mqttPlc: { username: 'plc', password: 'bench-plc-pw' },
  mqttMonitor: { username: 'monitor', password: 'bench-monitor-pw' },
  opcuaTwin: { user: 'twin', password: 'bench-twin-ua' },
  opcuaEdge: { user: 'edge', password: 'bench-edge-ua' },
};

/**
 * Protocol tunings (issue 4): "study" reproduces the study's intervals, "tuned" is the fastest
 * configuration the path owners documented as still correct (docs/modbus.md, docs/mqtt.md, the
 * OPC UA flow comments). `env` goes to both Node-RED processes, `transport` to the twin clients.
 */
const TUNINGS = {
  tuned: {
    env: { S7T_MODBUS_POLL_MS: '10', S7T_MODBUS_CLOUD_POLL_MS: '10', S7T_OPCUA_SAMPLING_MS: '10', S7T_OPCUA_PUBLISHING_MS: '10', S7T_OPCUA_MIN_SAMPLING_MS: '10', S7T_OPCUA_MIN_PUBLISHING_MS: '10' },
    transport: { modbus: { pollMs: 10 }, opcua: { mode: 'subscribe', samplingIntervalMs: 10, publishingIntervalMs: 10 }, mqtt: { qos: 0 }, http: { pollMs: 10 } },
  },
  study: {
    // Modbus 80 ms everywhere; OPC UA twin polling at 50 ms, server minimum sampling 50 ms (the
    // value the study patched into 104-opcuaserver.js), edge subscriptions at 10 ms; MQTT QoS 0.
    env: { S7T_MODBUS_POLL_MS: '80', S7T_MODBUS_CLOUD_POLL_MS: '80', S7T_OPCUA_SAMPLING_MS: '10', S7T_OPCUA_PUBLISHING_MS: '10', S7T_OPCUA_MIN_SAMPLING_MS: '50', S7T_OPCUA_MIN_PUBLISHING_MS: '50' },
    // HTTP: the related study polled once per reading (every 2 s, one sensor): no interval that
    // would mean anything here, so the same 10 ms as tuned.
    transport: { modbus: { pollMs: 80 }, opcua: { mode: 'poll', pollMs: 50 }, mqtt: { qos: 0 }, http: { pollMs: 10 } },
  },
};
/**
 * Probe slots each path answers, from slot 0. The WebSocket and MQTT paths reach every PLC slot;
 * the Modbus and OPC UA edges relay only the first N (set here and passed to the flows as
 * S7T_MODBUS_PROBE_SLOTS / S7T_OPCUA_PROBE_SLOTS: each relayed slot costs them reads on every
 * poll); the stock WS, OPC UA and Modbus replicas map slot 0 only. Load levels needing more slots
 * are not run.
 */
const ALL_SLOTS = tags.PROBE_SLOTS;
const PROBE_SLOTS = { ws: ALL_SLOTS, mqtt: ALL_SLOTS, modbus: 122, opcua: 122, stock: 1, mqttws: ALL_SLOTS, http: 0, 'stock-mqtt': ALL_SLOTS, 'stock-opcua': 1, 'stock-modbus': 1 };
/**
 * Protocols carried by the bundle's assembled flows (the stock replicas are not: STOCK). mqttws and
 * http are the related study's other two paths: MQTT over WebSocket to the same broker, and HTTP
 * polling of the REST endpoint (s7twin-rest), which relays over the WebSocket–S7 path's edge link.
 */
const BUNDLE_PROTOCOLS = ['ws', 'mqtt', 'opcua', 'modbus', 'mqttws', 'http'];
/**
 * The flow tabs a path runs on besides its own: MQTT over WebSocket on the MQTT tab's broker,
 * HTTP on the WebSocket–S7 tab's edge link; the browser twin's tab ('page': the page and the REST
 * endpoint) with every path the page speaks.
 */
const USES_TABS = { ws: ['page'], mqttws: ['mqtt', 'page'], http: ['ws', 'page'] };
/**
 * The stock replicas of the study's paths, built from the nodes the study used: flows
 * bench/flows/<flows>-cloud.json and <flows>-edge.json (examples/s7twin-<flows>.json is the same
 * pair as one importable file). `transport` is the bundle's twin transport that speaks to the
 * replica where the wire protocol is the same (null: the WS replica's own client,
 * bench/lib/stock-transport.js); `productions` whether it carries the whole plant (the WS replica
 * maps probe slot 0 only); `firstSlot` the first PLC probe slot it answers (the replicas with an
 * edge map slot 0 only; stock MQTT reaches every slot, as ours).
 */
const STOCK = {
  stock: { flows: 'stock', transport: null, productions: false, firstSlot: 0 },
  'stock-mqtt': { flows: 'stock-mqtt', transport: 'mqtt', productions: true, firstSlot: 1 },
  'stock-opcua': { flows: 'stock-opcua', transport: 'opcua', productions: true, firstSlot: 0 },
  'stock-modbus': { flows: 'stock-modbus', transport: 'modbus', productions: true, firstSlot: 0 },
};
/** The first PLC probe slot a path's probes and load twins use (bundle paths: 1; slot 0 is the replicas'). */
const firstProbeSlot = (p) => (STOCK[p] ? STOCK[p].firstSlot : 1);
/**
 * The stock OPC UA server's minimum sampling interval with the study's edit of the contrib node
 * (section 5.2: 500 → 50 ms), applied by a preload (bench/lib/stock-opcua-sampling.js) when a run
 * asks for it (`stockOpcuaSamplingMs`); without it the node runs as installed (500 ms).
 */
const STUDY_OPCUA_SAMPLING_MS = 50;
/** The study's plant id in the stock OPC UA replica's node ids (a hand-built flow names one plant). */
const STOCK_OPCUA_PLANT = 'plant1';

/** Read a flow file, or [] when it is not there yet. */
function readFlows(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    if (err.code === 'ENOENT') return [];
    throw err;
  }
}

/** Which bundle path a flow tab carries, from the node types on it (null: none of them). */
const TAB_PATHS = [['modbus', /modbus/i], ['opcua', /opcua/i], ['mqtt', /mqtt|broker/i], ['page', /^s7twin-(ui|rest)$/], ['ws', /^s7twin-(link|s7$|plc$)/]];
function tabProtocol(types) {
  for (const [p, re] of TAB_PATHS) if (types.some((t) => re.test(t))) return p;
  return null;
}

/**
 * The assembled flows with the tabs of unwanted bundle paths disabled, as a user who runs one
 * path would disable the others in the editor: Node-RED starts none of their nodes, so a run of
 * `--protocols ws` is not measured beside Modbus and OPC UA poll loops that no twin uses (each
 * polls every 10 ms in the tuned profile), nor beside edge clients retrying a PLC interface that
 * was not started.
 * @param {object[]} flows
 * @param {Set<string>} want protocols to run
 * @returns {object[]} a copy; `disabledTabs` lists the labels of what was disabled
 */
function withPathsDisabled(flows, want) {
  want = new Set([...want].flatMap((p) => [p, ...(USES_TABS[p] || [])]));
  const disabled = [];
  const out = flows.map((n) => {
    if (n.type !== 'tab') return n;
    const p = tabProtocol(flows.filter((m) => m.z === n.id).map((m) => m.type));
    if (!p || want.has(p)) return n;
    disabled.push(n.label || n.id);
    return { ...n, disabled: true };
  });
  out.disabledTabs = disabled;
  return out;
}

/**
 * Which protocol paths the assembled flows carry (from the node types they contain), so the
 * benchmark runs what exists and reports the rest as not available instead of failing.
 * @returns {Object<string, boolean>} ws, mqtt, opcua, modbus and every STOCK replica
 */
function availablePaths() {
  const cloud = readFlows(path.join(ROOT, 'flows', 'cloud.json'));
  const edge = readFlows(path.join(ROOT, 'flows', 'edge.json'));
  const types = new Set([...cloud, ...edge].map((n) => n.type));
  const has = (re) => [...types].some((t) => re.test(t));
  const transport = (p) => fs.existsSync(path.join(ROOT, 'twin', 'transports', `${p}.js`));
  return {
    ws: has(/^s7twin-link/) && transport('ws'),
    mqtt: has(/mqtt|broker/i) && transport('mqtt'),
    opcua: has(/opcua/i) && transport('opcua'),
    modbus: has(/modbus/i) && transport('modbus'),
    mqttws: has(/mqtt|broker/i) && transport('mqttws'),
    http: has(/^s7twin-rest$/) && has(/^s7twin-link/) && transport('http'),
    // bench/flows: the study's nodes only (core, node-red-contrib-s7/-opcua/-modbus/-aedes)
    ...Object.fromEntries(Object.entries(STOCK).map(([p, r]) => [p, fs.existsSync(path.join(__dirname, '..', 'flows', `${r.flows}-cloud.json`))])),
  };
}

/**
 * Wait until the stock OPC UA server (node-red-contrib-opcua) holds the replica's variables. Its
 * flow adds them once the server node runs, and the replica's edge subscribes once at start and
 * never again (a monitored item on a node that did not exist yet stays dead), so the edge may
 * start only after that, as the study's edge was deployed against a running cloud.
 * @param {string} url opc.tcp:// of the cloud's stock server
 * @param {number} timeoutMs
 */
async function waitStockOpcuaVariables(url, timeoutMs) {
  const { createSide } = require(path.join(ROOT, 'nodes', 'lib', 'opcua', 'session'));
  const { probeNodeId } = require(path.join(ROOT, 'nodes', 'lib', 'opcua', 'tags'));
  const side = createSide({ name: 'bench', endpointUrl: url, pkiDir: path.join(os.tmpdir(), 's7twin-bench-opcua-pki'), monitor: [] });
  const end = Date.now() + timeoutMs;
  try {
    await side.connect();
    for (;;) {
      const [r] = await side.read([probeNodeId('res', 0)]).catch(() => [{}]);
      if (r.good) return;
      if (Date.now() > end) throw Object.assign(new Error(`the stock OPC UA server at ${url} has no replica variables after ${timeoutMs} ms`), { code: 'E_START_TIMEOUT' });
      await new Promise((res) => setTimeout(res, 200));
    }
  } finally {
    await side.close().catch(() => {});
  }
}

/**
 * Start the system for one network profile.
 * @param {object} o
 * @param {string} o.profileName
 * @param {object|null} o.links {'twin-cloud': {up, down}, 'cloud-edge': {up, down}} or null (loopback)
 * @param {string[]} o.protocols among ws, mqtt, opcua, modbus and the STOCK replicas
 * @param {number} [o.scanMs]
 * @param {number} [o.stockCycleMs]
 * @param {number} [o.stockOpcuaSamplingMs] the stock OPC UA server's minimum sampling interval
 *   instead of the 500 ms its node hard-codes (the study's edit, by preload); default: as installed
 * @param {'tuned'|'study'} [o.tuning] protocol intervals (default tuned)
 * @param {object} [o.env] extra S7T_* for both Node-RED processes
 * @param {string} [o.plcInputLog] the virtual PLC's input log file (plc/input-log.js)
 * @param {(line:string)=>void} [o.log]
 * @returns {Promise<object>} {endpoints, pids, procs, toxiproxy, plantProxies, stop(), signal(), restart()}
 */
async function startSystem(o) {
  const log = o.log || (() => {});
  const scanMs = o.scanMs || DEFAULTS.scanMs;
  const want = new Set(o.protocols);
  const tuning = TUNINGS[o.tuning || 'tuned'];
  if (!tuning) throw Object.assign(new Error(`unknown tuning "${o.tuning}" (tuned or study)`), { code: 'E_BENCH_ARGS' });
  const bundle = BUNDLE_PROTOCOLS.some((p) => want.has(p));
  const stoppers = [];
  const stop = async () => {
    for (const s of stoppers.reverse()) await s().catch((err) => log(`stop: ${err.message}`));
    stoppers.length = 0;
  };
  try {
    // Order matters for ports: the cloud binds its ports first, and only then does Toxiproxy
    // create its proxies on ephemeral ports. (Proxies made earlier can take a port that was
    // picked for the cloud but not yet bound: a twin then reaches the wrong service.)
    const cloudPorts = await freePorts(['http', 'mqtt', 'mqttWs', 'opcua', 'modbus', 'stockMqtt', 'stockOpcua', 'stockModbus'], HOST);
    let tp = null;
    if (o.links) {
      tp = await startToxiproxy();
      stoppers.push(() => tp.stop());
    }
    const common = {
      S7T_PLANT: DEFAULTS.plant,
      S7T_CLOUD_HOST: HOST,
      S7T_SCAN_MS: String(scanMs),
      S7T_TWIN_TOKEN: DEFAULTS.twinToken,
      S7T_EDGE_TOKEN: DEFAULTS.edgeToken,
      S7T_MQTT_USERS: [DEFAULTS.mqttTwin, DEFAULTS.mqttPlc, DEFAULTS.mqttMonitor].map((u) => `${u.username}:${u.password}:${u.username}`).join(','),
      S7T_MQTT_PLC_USER: DEFAULTS.mqttPlc.username,
      S7T_MQTT_PLC_PASSWORD: DEFAULTS.mqttPlc.password,
      S7T_MQTT_MONITOR_USER: DEFAULTS.mqttMonitor.username,
      S7T_MQTT_MONITOR_PASSWORD: DEFAULTS.mqttMonitor.password,
      S7T_STOCK_CYCLE_MS: String(o.stockCycleMs || DEFAULTS.stockCycleMs),
      S7T_PLC_RACK: '0',
      S7T_PLC_SLOT: '1',
      S7T_OPCUA_TWIN_USER: DEFAULTS.opcuaTwin.user,
      S7T_OPCUA_TWIN_PASSWORD: DEFAULTS.opcuaTwin.password,
      S7T_OPCUA_EDGE_USER: DEFAULTS.opcuaEdge.user,
      S7T_OPCUA_EDGE_PASSWORD: DEFAULTS.opcuaEdge.password,
      S7T_OPCUA_INSECURE: 'true', // security None, as the study (no TLS anywhere in its measurements)
      S7T_MODBUS_PROBE_SLOTS: String(PROBE_SLOTS.modbus),
      S7T_OPCUA_PROBE_SLOTS: String(PROBE_SLOTS.opcua),
      ...tuning.env,
      ...(o.env || {}),
    };
    const bundleCloud = withPathsDisabled(bundle ? readFlows(path.join(ROOT, 'flows', 'cloud.json')) : [], want);
    const bundleEdge = withPathsDisabled(bundle ? readFlows(path.join(ROOT, 'flows', 'edge.json')) : [], want);
    const stockFlows = (role) => Object.entries(STOCK).filter(([p]) => want.has(p))
      .flatMap(([, r]) => readFlows(path.join(__dirname, '..', 'flows', `${r.flows}-${role}.json`)));
    const cloudFlows = [...bundleCloud, ...stockFlows('cloud')];
    const edgeFlows = [...bundleEdge, ...stockFlows('edge')];
    const off = [...new Set([...bundleCloud.disabledTabs, ...bundleEdge.disabledTabs])];
    if (off.length) log(`flow tabs disabled (paths not in this run): ${off.join(', ')}`);
    const cloudOpts = {
      role: 'cloud',
      port: cloudPorts.http,
      flows: cloudFlows,
      env: {
        ...common,
        S7T_CLOUD_PORT: String(cloudPorts.http),
        S7T_MQTT_HOST: HOST,
        S7T_OPCUA_HOST: HOST,
        S7T_MODBUS_HOST: HOST,
        S7T_MQTT_PORT: String(cloudPorts.mqtt),
        S7T_MQTT_WS_PORT: String(cloudPorts.mqttWs),
        S7T_OPCUA_PORT: String(cloudPorts.opcua),
        S7T_MODBUS_PORT: String(cloudPorts.modbus),
        S7T_STOCK_MQTT_PORT: String(cloudPorts.stockMqtt),
        S7T_STOCK_OPCUA_PORT: String(cloudPorts.stockOpcua),
        S7T_STOCK_MODBUS_PORT: String(cloudPorts.stockModbus),
        ...(o.stockOpcuaSamplingMs !== undefined && o.stockOpcuaSamplingMs !== null ? {
          S7T_STOCK_OPCUA_MIN_SAMPLING_MS: String(o.stockOpcuaSamplingMs),
          NODE_OPTIONS: `${process.env.NODE_OPTIONS || ''} --require ${JSON.stringify(path.join(__dirname, 'stock-opcua-sampling.js'))}`.trim(),
        } : {}),
      },
    };
    const procs = {};
    procs.cloud = await startNodeRed(cloudOpts);
    const cloud = procs.cloud;
    stoppers.push(() => procs.cloud.stop());
    log(`cloud Node-RED up (pid ${cloud.pid}, port ${cloud.port})`);

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
        const b = await tp.createProxy({ name: `plant-${svc}`, upstream: `${HOST}:${port}` });
        await tp.addLatency(b.name, o.links['cloud-edge'] || {});
        plantPorts[svc] = b.port;
      }
    }

    const mqttOn = want.has('mqtt') || want.has('mqttws');
    const plcOpts = {
      scanMs,
      s7: { host: HOST, port: 0 },
      opcua: want.has('opcua') || want.has('stock-opcua') ? { host: HOST, port: 0 } : false,
      modbus: want.has('modbus') || want.has('stock-modbus') ? { host: HOST, port: 0 } : false,
      mqtt: mqttOn ? { url: `mqtt://${HOST}:${plantPorts.mqtt}`, plant: DEFAULTS.plant, ...DEFAULTS.mqttPlc, qos: 0 } : false,
      // The stock broker knows no users: the PLC's second client logs in without any, at QoS 0.
      mqttMore: want.has('stock-mqtt') ? [{ url: `mqtt://${HOST}:${plantPorts.stockMqtt}`, plant: DEFAULTS.plant, qos: 0 }] : [],
      ...(o.plcInputLog ? { inputLog: o.plcInputLog } : {}),
    };
    procs.plc = await startPlc(plcOpts);
    const plc = procs.plc;
    // A restart comes back on the same ports, as a real PLC does.
    for (const k of ['s7', 'opcua', 'modbus']) if (plcOpts[k]) plcOpts[k] = { ...plcOpts[k], port: plc.ports[k] };
    stoppers.push(() => procs.plc.stop());
    log(`virtual PLC up (pid ${plc.pid}, S7 ${plc.ports.s7})`);
    if (want.has('stock-opcua')) await waitStockOpcuaVariables(`opc.tcp://${HOST}:${cloudPorts.stockOpcua}`, 60000);


    // The edge reaches every cloud service through the plant-side proxies (same process env
    // names, other ports): it never learns the cloud's real ports.
    const edgeOpts = {
      role: 'edge',
      port: await freePort(),
      flows: edgeFlows,
      env: {
        ...common,
        S7T_PLC_HOST: HOST,
        S7T_PLC_PORT: String(plc.ports.s7),
        S7T_PLC_OPCUA_PORT: String(plc.ports.opcua || ''),
        S7T_PLC_MODBUS_PORT: String(plc.ports.modbus || ''),
        S7T_CLOUD_PORT: String(plantPorts.http),
        S7T_CLOUD_URL: `ws://${HOST}:${plantPorts.http}/s7twin/edge`,
        S7T_MQTT_URL: `mqtt://${HOST}:${plantPorts.mqtt}`,
        S7T_MQTT_PORT: String(plantPorts.mqtt),
        S7T_OPCUA_PORT: String(plantPorts.opcua),
        S7T_OPCUA_URL: `opc.tcp://${HOST}:${plantPorts.opcua}`,
        S7T_MODBUS_PORT: String(plantPorts.modbus),
        S7T_MODBUS_CLOUD_HOST: HOST,
        S7T_MODBUS_CLOUD_PORT: String(plantPorts.modbus),
        S7T_STOCK_EDGE_URL: `ws://${HOST}:${plantPorts.http}/stock/edge`,
        S7T_STOCK_PLC_URL: `ws://${HOST}:${plantPorts.http}/stock/plctounity`,
        S7T_STOCK_MODBUS_PORT: String(plantPorts.stockModbus),
        S7T_STOCK_OPCUA_URL: `opc.tcp://${HOST}:${plantPorts.stockOpcua}`,
        S7T_PLC_OPCUA_URL: `opc.tcp://${HOST}:${plc.ports.opcua || ''}`,
      },
    };
    procs.edge = await startNodeRed(edgeOpts);
    const edge = procs.edge;
    stoppers.push(() => procs.edge.stop());
    log(`edge Node-RED up (pid ${edge.pid}, port ${edge.port})`);

    const endpoints = {
      ws: { url: `ws://${HOST}:${twinPorts.http}/s7twin/twin`, token: DEFAULTS.twinToken },
      stock: { url: `ws://${HOST}:${twinPorts.http}/stock/twin` },
      mqtt: { url: `mqtt://${HOST}:${twinPorts.mqtt}`, plant: DEFAULTS.plant, ...DEFAULTS.mqttTwin, ...tuning.transport.mqtt },
      // pkiDir given explicitly: the transport passes an undefined pkiDir through to its client
      // side, which then has no certificate folder. One folder for every run: creating the
      // client certificate takes seconds, so it is made once.
      opcua: { url: `opc.tcp://${HOST}:${twinPorts.opcua}`, plant: DEFAULTS.plant, ...DEFAULTS.opcuaTwin, pkiDir: path.join(os.tmpdir(), 's7twin-bench-opcua-pki'), ...tuning.transport.opcua },
      modbus: { url: `modbus://${HOST}:${twinPorts.modbus}`, ...tuning.transport.modbus },
      mqttws: { url: `ws://${HOST}:${twinPorts.mqttWs}/mqtt`, plant: DEFAULTS.plant, ...DEFAULTS.mqttTwin, ...tuning.transport.mqtt },
      http: { url: `http://${HOST}:${twinPorts.http}/s7twin/rest`, token: DEFAULTS.twinToken, ...tuning.transport.http },
      // The browser twin's page, loaded through the twin-side link like every twin (its MQTT
      // broker URL given too: the page would otherwise dial the cloud's own port).
      page: { url: `http://${HOST}:${twinPorts.http}/s7twin/ui/`, mqttUrl: `ws://${HOST}:${twinPorts.mqttWs}/mqtt`, token: DEFAULTS.twinToken, mqtt: { user: DEFAULTS.mqttTwin.username, password: DEFAULTS.mqttTwin.password } },
      // The stock replicas' twins run the study's client settings whatever the tuning: the Unity
      // client polled OPC UA (Session.Read) and Modbus (ReadHoldingRegisters) every 50 ms and
      // published MQTT at QoS 0 (section 3.2.2); the replicas take no credentials.
      'stock-mqtt': { url: `mqtt://${HOST}:${twinPorts.stockMqtt}`, plant: DEFAULTS.plant, qos: 0 },
      'stock-opcua': { url: `opc.tcp://${HOST}:${twinPorts.stockOpcua}`, plant: STOCK_OPCUA_PLANT, user: '', password: '', pkiDir: path.join(os.tmpdir(), 's7twin-bench-opcua-pki'), mode: 'poll', pollMs: 50 },
      'stock-modbus': { url: `modbus://${HOST}:${twinPorts.stockModbus}`, pollMs: 50 },
    };
    return {
      profileName: o.profileName,
      tuning: o.tuning || 'tuned',
      endpoints,
      cloudPorts,
      get pids() { return { cloud: procs.cloud.pid, edge: procs.edge.pid, plc: procs.plc.pid }; },
      procs,
      toxiproxy: tp,
      plantProxies: tp ? Object.keys(cloudPorts).map((svc) => `plant-${svc}`) : [],
      stop,
      /**
       * Signal one process (the fault suite: SIGKILL, SIGSTOP, SIGCONT).
       * @param {'cloud'|'edge'|'plc'} name
       * @param {string} signal
       */
      signal(name, signal) { process.kill(procs[name].pid, signal); },
      /**
       * Start a process again with its options and ports (after it was killed); `pids` follows.
       * @param {'cloud'|'edge'|'plc'} name
       */
      async restart(name) {
        await procs[name].stop().catch(() => {}); // reaps a killed child, removes its user dir
        procs[name] = name === 'plc' ? await startPlc(plcOpts) : await startNodeRed(name === 'cloud' ? cloudOpts : edgeOpts);
        return procs[name];
      },
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Options for one protocol's twin transport (twin/transports/<p>.js) from the system's endpoints.
 * @param {string} protocol
 * @param {object} endpoints from startSystem
 * @param {object} [extra] e.g. {id}
 */
function transportOptions(protocol, endpoints, extra = {}) {
  return { protocol, ...endpoints[protocol], ...extra };
}

/**
 * Create a transport for a protocol: the bundle's twin transports, or the stock replica's client.
 * @param {string} protocol
 * @param {object} endpoints
 * @param {object} [extra]
 */
function createTransport(protocol, endpoints, extra = {}) {
  if (protocol === 'stock') return require('./stock-transport').createTransport(transportOptions('stock', endpoints, extra));
  // A stock replica speaks the wire protocol of a bundle path: that path's twin transport, pointed at the replica.
  const wire = STOCK[protocol] ? STOCK[protocol].transport : protocol;
  // eslint-disable-next-line global-require
  const mod = require(path.join(ROOT, 'twin', 'transports', `${wire}.js`));
  return mod.createTransport({ ...transportOptions(protocol, endpoints, extra), protocol: wire });
}

/**
 * Whether a protocol's twin client offers probes (the load runner needs them).
 * @param {string} protocol
 */
function hasProbe(protocol) {
  if (STOCK[protocol]) return true; // every replica maps probe slot 0 at least
  try {
    const src = fs.readFileSync(path.join(ROOT, 'twin', 'transports', `${protocol}.js`), 'utf8');
    if (!/\bprobe\s*\(slot/.test(src)) return false;
  } catch {
    return false;
  }
  // The Modbus twin client writes probe registers on the cloud server, but the edge must relay
  // them to the PLC; docs/modbus.md lists that relay as a known gap. Probe only when it exists.
  if (protocol === 'modbus') return /HR1000|probe/i.test(readFlows(path.join(ROOT, 'flows', 'edge.json')).filter((n) => /modbus/i.test(JSON.stringify(n))).map((n) => n.func || '').join('\n'));
  return true;
}

module.exports = { startSystem, availablePaths, createTransport, transportOptions, readFlows, withPathsDisabled, hasProbe, firstProbeSlot, DEFAULTS, TUNINGS, BUNDLE_PROTOCOLS, PROBE_SLOTS, STOCK, STUDY_OPCUA_SAMPLING_MS };
