'use strict';
/**
 * The benchmark's system: the launcher's (system/single.js) with the benchmark's credentials,
 * protocol tunings and the study's stock replicas, for one network profile; and the twin clients
 * of every path (nodes/lib/core/paths.js) it measures.
 */
const path = require('node:path');
const system = require('../../system');
const paths = require('../../nodes/lib/core/paths');
// The probe slots of the PLC's table (S7T_IO_TABLE's, else the demo plant's 1,024).
const tags = require('../../nodes/lib/core/io-table').processTable();

const ROOT = path.join(__dirname, '..', '..');
const DEFAULTS = {
  scanMs: 10, // PLC scan cycle, ms (the study's S7-1500, and the loopback round-trip target's)
  stockCycleMs: 50, // node-red-contrib-s7's minimum read cycle (MIN_CYCLE_TIME in red/s7.js)
  credentials: system.credentialsFor('bench', 'bench'),
};

/**
 * Protocol tunings: "study" reproduces the study's intervals, "tuned" is the fastest
 * configuration the path owners documented as still correct (docs/modbus.md, docs/mqtt.md, the
 * OPC UA flow comments). `env` goes to both Node-RED processes, `transport` to the twin clients
 * of the bundle's paths (by path id).
 */
const TUNINGS = {
  tuned: {
    env: {
      S7T_MODBUS_POLL_MS: '10', S7T_MODBUS_CLOUD_POLL_MS: '10',
      S7T_OPCUA_SAMPLING_MS: '10', S7T_OPCUA_PUBLISHING_MS: '10', S7T_OPCUA_MIN_SAMPLING_MS: '10', S7T_OPCUA_MIN_PUBLISHING_MS: '10',
    },
    transport: {
      modbus: { pollMs: 10 }, opcua: { mode: 'subscribe', samplingIntervalMs: 10, publishingIntervalMs: 10 },
      mqtt: { qos: 0 }, mqttws: { qos: 0 }, http: { pollMs: 10 },
    },
  },
  study: {
    // Modbus 80 ms everywhere; OPC UA twin polling at 50 ms, server minimum sampling 50 ms (the
    // value the study patched into 104-opcuaserver.js), edge subscriptions at 10 ms; MQTT QoS 0.
    env: {
      S7T_MODBUS_POLL_MS: '80', S7T_MODBUS_CLOUD_POLL_MS: '80',
      S7T_OPCUA_SAMPLING_MS: '10', S7T_OPCUA_PUBLISHING_MS: '10', S7T_OPCUA_MIN_SAMPLING_MS: '50', S7T_OPCUA_MIN_PUBLISHING_MS: '50',
    },
    // HTTP: the related study polled once per reading (every 2 s, one sensor): no interval that
    // would mean anything here, so the same 10 ms as tuned.
    transport: { modbus: { pollMs: 80 }, opcua: { mode: 'poll', pollMs: 50 }, mqtt: { qos: 0 }, mqttws: { qos: 0 }, http: { pollMs: 10 } },
  },
};

/** The bundle's paths (the assembled flows carry them; the stock replicas are STOCK). */
const BUNDLE_PROTOCOLS = paths.bundle();
/**
 * Probe slots each path answers, from slot 0 (nodes/lib/core/paths.js probeSlots): the
 * WebSocket and MQTT paths reach every PLC slot, the Modbus and OPC UA edges relay only the first
 * N, the stock WS, OPC UA and Modbus replicas map slot 0 only. Load levels needing more slots are
 * not run.
 */
const PROBE_SLOTS = Object.fromEntries(paths.ids().map((id) => [id, paths.probeSlots(id, tags.PROBE_SLOTS)]));
/**
 * The stock replicas of the study's paths, built from the nodes the study used: flows
 * bench/flows/<flows>-cloud.json and <flows>-edge.json (examples/s7twin-<flows>.json is the same
 * pair as one importable file). `transport` is the bundle's twin transport that speaks to the
 * replica where the wire protocol is the same (null: the WS replica's own client,
 * bench/lib/stock-transport.js); `productions` whether it carries the whole plant; `firstSlot`
 * the first PLC probe slot it answers.
 */
const STOCK = Object.fromEntries(paths.comparisons().map((id) => {
  const p = paths.get(id);
  return [id, { flows: p.flows, transport: p.wire || null, productions: p.bench.productions, firstSlot: p.bench.firstSlot }];
}));
/** The first PLC probe slot a path's probes and load twins use (bundle paths: 1; slot 0 is the replicas'). */
const firstProbeSlot = (p) => (paths.get(p) ? paths.get(p).bench.firstSlot : 1);
/**
 * The stock OPC UA server's minimum sampling interval with the study's edit of the contrib node
 * (section 5.2: 500 → 50 ms), applied by a preload (bench/lib/stock-opcua-sampling.js) when a run
 * asks for it (`stockOpcuaSamplingMs`); without it the node runs as installed (500 ms).
 */
const STUDY_OPCUA_SAMPLING_MS = 50;

/**
 * Start the system for one network profile.
 * @param {object} o
 * @param {string} o.profileName
 * @param {object|null} o.links {'twin-cloud': {up, down}, 'cloud-edge': {up, down}} or null (loopback)
 * @param {string[]} o.protocols path ids (nodes/lib/core/paths.js)
 * @param {number} [o.scanMs]
 * @param {number} [o.stockCycleMs]
 * @param {number} [o.stockOpcuaSamplingMs] the stock OPC UA server's minimum sampling interval
 *   instead of the 500 ms its node hard-codes (the study's edit, by preload); default: as installed
 * @param {'tuned'|'study'} [o.tuning] protocol intervals (default tuned)
 * @param {object} [o.env] extra S7T_* for both Node-RED processes
 * @param {string} [o.plcInputLog] the virtual PLC's input log file (plc/input-log.js)
 * @param {(line:string)=>void} [o.log]
 * @returns {Promise<object>} system/single.js startSystem's, with profileName and tuning
 */
async function startSystem(o) {
  const tuning = TUNINGS[o.tuning || 'tuned'];
  if (!tuning) throw Object.assign(new Error(`unknown tuning "${o.tuning}" (tuned or study)`), { code: 'E_BENCH_ARGS' });
  const sampling = o.stockOpcuaSamplingMs !== undefined && o.stockOpcuaSamplingMs !== null;
  const sys = await system.startSystem({
    protocols: o.protocols,
    links: o.links,
    credentials: DEFAULTS.credentials,
    scanMs: o.scanMs || DEFAULTS.scanMs,
    plcInputLog: o.plcInputLog,
    log: o.log,
    env: {
      S7T_STOCK_CYCLE_MS: String(o.stockCycleMs || DEFAULTS.stockCycleMs),
      S7T_OPCUA_INSECURE: 'true', // security None, as the study (no TLS anywhere in its measurements)
      ...tuning.env,
      ...(o.env || {}),
    },
    cloudEnv: sampling ? {
      S7T_STOCK_OPCUA_MIN_SAMPLING_MS: String(o.stockOpcuaSamplingMs),
      NODE_OPTIONS: `${process.env.NODE_OPTIONS || ''} --require ${JSON.stringify(path.join(__dirname, 'stock-opcua-sampling.js'))}`.trim(),
    } : {},
    transport: tuning.transport,
  });
  return Object.assign(sys, { profileName: o.profileName, tuning: o.tuning || 'tuned' });
}

/**
 * Create a twin transport for a path, pointed at the system's endpoint for it: the path's twin
 * transport (nodes/lib/core/paths.js), a replica's the one of the protocol it speaks.
 * @param {string} protocol a path id
 * @param {object} endpoints from startSystem
 * @param {object} [extra] e.g. {id}
 */
function createTransport(protocol, endpoints, extra = {}) {
  const p = paths.get(protocol);
  if (!p) throw Object.assign(new Error(`unknown protocol path "${protocol}"`), { code: 'E_BENCH_ARGS' });
  const mod = require(path.join(ROOT, p.transport));
  return mod.createTransport({ ...endpoints[protocol], ...extra, protocol: paths.wireOf(protocol) });
}

/**
 * Whether the benchmark probes a path (probe round trips and load levels need the probe slots).
 * @param {string} protocol
 */
const hasProbe = (protocol) => Boolean(paths.get(protocol) && paths.get(protocol).bench.probes);

module.exports = {
  startSystem, createTransport, hasProbe, firstProbeSlot,
  DEFAULTS, TUNINGS, BUNDLE_PROTOCOLS, PROBE_SLOTS, STOCK, STUDY_OPCUA_SAMPLING_MS,
};
