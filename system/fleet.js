'use strict';
/**
 * A fleet on one machine: redis-server, N cloud Node-RED instances on it (S7T_REDIS_URL), sharing
 * the plants' links over Redis, and M plants, each a virtual PLC with its own edge Node-RED. The
 * fleet tests (test/e2e/fleet.test.js) and the benchmark's fleet section (bench/lib/fleet-bench.js)
 * start it with startFleet, on free ports; `bash scripts/start.sh --fleet` lays out the same fleet
 * on fixed ports (system/start.js) with the helpers below.
 *
 * - Plants are plant1..plantM. Edge k is told every instance's URL, starting with instance
 *   (k-1) mod N, so the plants' edges spread over the instances and fail over to the others.
 * - Tokens are scoped (S7T_TOKENS): one edge token per plant, a twin token and a viewer token for
 *   every plant (twins name theirs with ?plant=).
 * - The cloud flow is the bundle's (flows/cloud.json) with only the asked paths' tabs enabled
 *   (ws, and mqtt: the brokers cluster over the same Redis). OPC UA and Modbus are per instance
 *   (docs/fleet.md says why): off, but for the plants named in `bridges`, whose PLC serves both,
 *   whose edge bridges both to its home instance, and whose home instance serves both with the
 *   plant's table (tabs of their own, as for another plant beside the first in one cloud).
 * - Every instance has a REST endpoint for each plant with a table of its own
 *   (/s7twin/rest-<plant>), beside the bundle's one (/s7twin/rest, plant1).
 * - Each plant's PLC publishes over MQTT to instance (k-1) mod N's broker when mqtt is on.
 * - A plant may have a table of its own (`tables`): its PLC runs it and its edge has it
 *   (S7T_IO_TABLE); the cloud instances learn it from the edge and share it over Redis.
 */
const { loadTable, demoTable } = require('../nodes/lib/core/io-table');
const path = require('node:path');
const { freePort, freePorts } = require('../plc/net');
const { startNodeRed } = require('./nodered');
const { startPlc } = require('./plc');
const { bundleFlows, withPathsDisabled, withModbusMap, plantTabs } = require('./flows');
const { startRedis } = require('./redis');
const { TWIN_PKI } = require('./single');

const HOST = '127.0.0.1';
const DEFAULTS = {
  scanMs: 10,
  twinToken: 'fleet-twin-token',
  viewerToken: 'fleet-viewer-token',
  edgeToken: (plant) => `fleet-edge-${plant}`,
  mqttTwin: { username: 'twin', password: 'fleet-twin-pw' },
  mqttMonitor: { username: 'monitor', password: 'fleet-monitor-pw' },
  mqttPlc: (plant) => ({ username: `plc-${plant}`, password: `fleet-plc-${plant}` }),
  opcuaTwin: { user: 'twin', password: 'fleet-twin-ua' },
  opcuaEdge: { user: 'edge', password: 'fleet-edge-ua' },
};

/** The plants of a fleet: plant1..plantM. */
const plantIds = (m) => Array.from({ length: m }, (_, k) => `plant${k + 1}`);

/** The instance plant k (0-based) dials first, so the plants' edges spread over the instances. */
const homeInstance = (k, n) => k % n;

/**
 * Every instance's URL, starting with instance `first` and going round: the order an edge or a
 * twin dials them in, moving to the next when one goes.
 * @param {number} first 0-based
 * @param {number} n instances
 * @param {(i: number) => string} urlOf
 * @returns {string} comma-separated
 */
const dialOrder = (first, n, urlOf) => Array.from({ length: n }, (_, j) => urlOf((first + j) % n)).join(',');

/**
 * Scoped tokens (S7T_TOKENS) for a fleet: the twin and viewer tokens for every plant (twins name
 * theirs with ?plant=), an edge token per plant.
 * @param {{twin: string, viewer?: string, edge: (plant: string) => string, plants: string[]}} o
 * @returns {string}
 */
function fleetTokens(o) {
  return [
    `${o.twin}:twin:*`,
    ...(o.viewer ? [`${o.viewer}:viewer:*`] : []),
    ...o.plants.map((p) => `${o.edge(p)}:edge:${p}`),
  ].join(',');
}

/**
 * The edge's flow in a fleet: the WebSocket–S7 path only (OPC UA and Modbus are per instance:
 * docs/fleet.md says why).
 */
const fleetEdgeFlows = () => withPathsDisabled(bundleFlows('edge'), ['ws']);

/**
 * The edge's flow for a plant that bridges OPC UA and Modbus to its home instance: the WebSocket–S7,
 * OPC UA and Modbus tabs, the Modbus nodes set to the plant's table's blocks.
 * @param {object} table the plant's table (nodes/lib/core/io-table.js)
 */
const bridgingEdgeFlows = (table) => withModbusMap(withPathsDisabled(bundleFlows('edge'), ['ws', 'opcua', 'modbus']), table);

/**
 * What a plant's home instance adds to the bundle's cloud flow to serve it over OPC UA and Modbus:
 * the OPC UA and Modbus tabs for that plant alone, on its ports, with its table.
 * @param {string} plant
 * @param {object} table
 * @param {{opcua: number, modbus: number}} ports
 * @returns {object[]}
 */
const bridgedPlantFlows = (plant, table, ports) => plantTabs(['cloud-opcua', 'cloud-modbus'], {
  suffix: plant, plant, table, env: { OPC_PORT: ports.opcua, MB_PORT: ports.modbus },
});

/**
 * A REST endpoint (s7twin-rest) for one plant on an instance's browser twin tab, at
 * /s7twin/rest-<plant>: it relays over the instance's one link to the plant's edge wherever that is.
 * @param {string} plant
 * @returns {object}
 */
const restFor = (plant) => ({
  id: `rest.${plant}`, type: 's7twin-rest', z: 'ui.cloud.tab', name: `${plant} REST`, server: 'ws.cloud.twins', edge: 'ws.cloud.edge',
  path: `/s7twin/rest-${plant}`, plant, timeoutS: 5, x: 200, y: 600, wires: [[]],
});

/**
 * @param {object} o
 * @param {number} [o.instances] cloud instances (default 2)
 * @param {number} [o.plants] plants, each a PLC and an edge (default 2)
 * @param {string[]} [o.protocols] ws (always) and optionally mqtt
 * @param {boolean} [o.inputLogs] give every PLC an input log (plc/input-log.js) in `o.dir`
 * @param {string} [o.dir] folder for the input logs
 * @param {object} [o.env] extra environment for every Node-RED
 * @param {Object<string, string>} [o.tables] plant id → its I/O table's file (default: the demo plant's)
 * @param {string[]} [o.bridges] plants whose PLC serves OPC UA and Modbus and whose edge bridges
 *   both to the plant's home instance, which serves them with the plant's table
 * @param {(line: string) => void} [o.log]
 */
async function startFleet(o = {}) {
  const log = o.log || (() => {});
  const n = o.instances || 2;
  const m = o.plants || 2;
  const want = new Set(['ws', ...(o.protocols || [])]);
  const plants = plantIds(m);
  // Each plant's own table, read once (null: the demo plant's).
  const own = new Map(plants.map((p) => [p, o.tables && o.tables[p] ? loadTable({ file: o.tables[p] }) : null]));
  const tableOf = (plant) => own.get(plant) || demoTable();
  const bridged = new Set(o.bridges || []);
  for (const p of bridged) {
    if (!plants.includes(p)) throw Object.assign(new Error(`bridges: no plant "${p}" (have: ${plants.join(', ')})`), { code: 'E_SYSTEM_ARGS' });
  }
  const stoppers = [];
  const stop = async () => {
    for (const s of stoppers.splice(0).reverse()) await s().catch((err) => log(`stop: ${err.message}`));
  };
  try {
    const redis = await startRedis();
    stoppers.push(() => redis.stop());
    log(`redis-server up (pid ${redis.pid}, ${redis.url})`);
    const tokens = fleetTokens({ twin: DEFAULTS.twinToken, viewer: DEFAULTS.viewerToken, edge: DEFAULTS.edgeToken, plants });
    const mqttUsers = [
      `${DEFAULTS.mqttTwin.username}:${DEFAULTS.mqttTwin.password}:twin`,
      `${DEFAULTS.mqttMonitor.username}:${DEFAULTS.mqttMonitor.password}:monitor`,
      ...plants.map((p) => `${DEFAULTS.mqttPlc(p).username}:${DEFAULTS.mqttPlc(p).password}:plc@${p}`),
    ].join(',');
    const common = {
      S7T_REDIS_URL: redis.url,
      S7T_TOKENS: tokens,
      // No plain tokens: every token of the fleet is scoped (the plain ones would be for S7T_PLANT).
      S7T_TWIN_TOKEN: '',
      S7T_EDGE_TOKEN: '',
      S7T_VIEWER_TOKEN: '',
      S7T_SCAN_MS: String(o.scanMs || DEFAULTS.scanMs),
      S7T_MQTT_USERS: mqttUsers,
      S7T_MQTT_MONITOR_USER: DEFAULTS.mqttMonitor.username,
      S7T_MQTT_MONITOR_PASSWORD: DEFAULTS.mqttMonitor.password,
      S7T_OPCUA_TWIN_USER: DEFAULTS.opcuaTwin.user,
      S7T_OPCUA_TWIN_PASSWORD: DEFAULTS.opcuaTwin.password,
      S7T_OPCUA_EDGE_USER: DEFAULTS.opcuaEdge.user,
      S7T_OPCUA_EDGE_PASSWORD: DEFAULTS.opcuaEdge.password,
      ...(o.env || {}),
    };
    const cloudFlows = withPathsDisabled(bundleFlows('cloud'), want);
    const edgeFlows = fleetEdgeFlows();
    const rests = plants.filter((p) => own.get(p)).map(restFor);

    // Cloud instances.
    const ports = await freePorts([
      ...Array.from({ length: n }, (_, i) => ['http', 'mqtt', 'mqttWs'].map((k) => `${k}${i}`)).flat(),
      ...[...bridged].flatMap((p) => [`opcua-${p}`, `modbus-${p}`]),
    ], HOST);
    /** The cloud OPC UA and Modbus ports of a bridged plant, on its home instance. */
    const bridgePorts = (plant) => ({ opcua: ports[`opcua-${plant}`], modbus: ports[`modbus-${plant}`] });
    const clouds = [];
    const cloudOpts = [];
    for (let i = 0; i < n; i++) {
      const [http, mqtt, mqttWs] = ['http', 'mqtt', 'mqttWs'].map((k) => ports[`${k}${i}`]);
      const served = plants.filter((p, k) => bridged.has(p) && homeInstance(k, n) === i);
      const flows = [...cloudFlows, ...rests, ...served.flatMap((p) => bridgedPlantFlows(p, tableOf(p), bridgePorts(p)))];
      cloudOpts.push({
        role: 'cloud', port: http, flows,
        env: { ...common, S7T_CLOUD_PORT: String(http), S7T_MQTT_HOST: HOST, S7T_MQTT_PORT: String(mqtt), S7T_MQTT_WS_PORT: String(mqttWs) },
        mqttPort: mqtt,
      });
    }
    // Started one after the other: two Node-RED starting at once on two loaded cores take longer each.
    for (let i = 0; i < n; i++) {
      clouds[i] = await startNodeRed(cloudOpts[i]);
      log(`cloud instance ${i + 1} up (pid ${clouds[i].pid}, port ${clouds[i].port})`);
    }
    stoppers.push(() => Promise.all(clouds.map((c) => c && c.stop())));
    const edgeUrl = (i) => `ws://${HOST}:${cloudOpts[i].port}/s7twin/edge`;
    const twinUrl = (i) => `ws://${HOST}:${cloudOpts[i].port}/s7twin/twin`;
    const rotated = (start, f) => dialOrder(start, n, f);

    // Plants: a PLC and an edge each.
    const plcs = [];
    const plcOpts = [];
    const edges = [];
    const edgeOpts = [];
    const inputLogs = {};
    stoppers.push(() => Promise.all(edges.map((e) => e && e.stop())));
    stoppers.push(() => Promise.all(plcs.map((p) => p && p.stop())));
    for (let k = 0; k < m; k++) {
      const plant = plants[k];
      const home = homeInstance(k, n);
      const bridges = bridged.has(plant);
      if (o.inputLogs) inputLogs[plant] = path.join(o.dir, `plc-inputs-${plant}.jsonl`);
      plcOpts[k] = {
        scanMs: o.scanMs || DEFAULTS.scanMs,
        s7: { host: HOST, port: 0 },
        opcua: bridges ? { host: HOST, port: 0 } : false,
        modbus: bridges ? { host: HOST, port: 0 } : false,
        mqtt: want.has('mqtt') ? { url: `mqtt://${HOST}:${cloudOpts[home].mqttPort}`, plant, ...DEFAULTS.mqttPlc(plant), qos: 0 } : false,
        ...(o.inputLogs ? { inputLog: inputLogs[plant] } : {}),
        ...(own.get(plant) ? { table: own.get(plant).definition } : {}),
      };
      plcs[k] = await startPlc(plcOpts[k]);
      const pp = plcs[k].ports;
      // A restart comes back on the same ports.
      for (const kind of ['s7', 'opcua', 'modbus']) if (plcOpts[k][kind]) plcOpts[k][kind] = { ...plcOpts[k][kind], port: pp[kind] };
      const bridgeEnv = bridges ? {
        S7T_PLC_OPCUA_PORT: String(pp.opcua), S7T_PLC_MODBUS_PORT: String(pp.modbus),
        S7T_OPCUA_URL: `opc.tcp://${HOST}:${bridgePorts(plant).opcua}`,
        S7T_MODBUS_CLOUD_HOST: HOST, S7T_MODBUS_CLOUD_PORT: String(bridgePorts(plant).modbus),
      } : {};
      edgeOpts[k] = {
        role: 'edge', port: await freePort(HOST), flows: bridges ? bridgingEdgeFlows(tableOf(plant)) : edgeFlows,
        env: {
          ...common,
          S7T_PLANT: plant,
          S7T_EDGE_TOKEN: DEFAULTS.edgeToken(plant),
          S7T_CLOUD_URL: rotated(home, edgeUrl),
          S7T_PLC_HOST: HOST,
          S7T_PLC_PORT: String(plcs[k].ports.s7),
          ...(o.tables && o.tables[plant] ? { S7T_IO_TABLE: o.tables[plant] } : {}),
          ...bridgeEnv,
        },
      };
      edges[k] = await startNodeRed(edgeOpts[k]);
      log(`${plant}: PLC (pid ${plcs[k].pid}, S7 ${plcs[k].ports.s7}) and edge (pid ${edges[k].pid}) up, edge dials instance ${home + 1} first`);
    }

    const procs = () => ({
      redis: redis.pid,
      ...Object.fromEntries(clouds.map((c, i) => [`cloud${i + 1}`, c.pid])),
      ...Object.fromEntries(edges.map((e, k) => [`edge-${plants[k]}`, e.pid])),
      ...Object.fromEntries(plcs.map((p, k) => [`plc-${plants[k]}`, p.pid])),
    });
    return {
      redis,
      plants,
      clouds,
      edges,
      plcs,
      inputLogs,
      get pids() { return procs(); },
      /** ws transport options for a twin of `plant` on instance i (0-based) first, then the others. */
      twin: (plant, i, extra = {}) => ({ url: rotated(i, twinUrl), token: DEFAULTS.twinToken, plant, ...extra }),
      /** The same with the viewer token. */
      viewer: (plant, i, extra = {}) => ({ url: rotated(i, twinUrl), token: DEFAULTS.viewerToken, plant, ...extra }),
      /** An edge's URL on instance i, and its token (to try a second edge). */
      edgeUrl,
      edgeToken: DEFAULTS.edgeToken,
      /** MQTT twin options on instance i. */
      mqttTwin: (plant, i) => ({ url: `mqtt://${HOST}:${cloudOpts[i].mqttPort}`, plant, ...DEFAULTS.mqttTwin, qos: 0 }),
      /** OPC UA twin options for a bridged plant, on its home instance. */
      opcuaTwin: (plant, extra = {}) => ({ url: `opc.tcp://${HOST}:${bridgePorts(plant).opcua}`, plant, ...DEFAULTS.opcuaTwin, pkiDir: TWIN_PKI, ...extra }),
      /** Modbus twin options for a bridged plant, on its home instance. */
      modbusTwin: (plant, extra = {}) => ({ url: `modbus://${HOST}:${bridgePorts(plant).modbus}`, ...extra }),
      /** HTTP (REST) twin options for a plant with a table of its own, on instance i. */
      restTwin: (plant, i, extra = {}) => ({ url: `http://${HOST}:${cloudOpts[i].port}/s7twin/rest-${plant}`, token: DEFAULTS.twinToken, ...extra }),
      /** Kill a process outright: 'cloud1'.., 'edge-plant1'.., 'plc-plant1'... */
      kill(name, signal = 'SIGKILL') { process.kill(procs()[name], signal); },
      /**
       * Restart a cloud instance on its port (a running one is stopped first, as Ctrl-C stops it),
       * with its user directory (its command log and its files), as a real instance finds its disk again.
       */
      async restartCloud(i) {
        const { userDir } = clouds[i];
        await clouds[i].stop({ keep: true }).catch(() => {});
        clouds[i] = await startNodeRed({ ...cloudOpts[i], userDir });
        return clouds[i];
      },
      logs: () => Object.fromEntries([
        ...clouds.map((c, i) => [`cloud${i + 1}`, c.logs()]),
        ...edges.map((e, k) => [`edge-${plants[k]}`, e.logs()]),
      ]),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

module.exports = { startFleet, plantIds, homeInstance, dialOrder, fleetTokens, fleetEdgeFlows, DEFAULTS };
