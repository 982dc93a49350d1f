'use strict';
/**
 * The edge side of the OPC UA path: two OPC UA client sessions (nodes/lib/opcua/session.js).
 *   cloud server --(subscription on the command variables)--> edge --(Write)--> PLC inputs
 *   PLC server  --(subscription on the PLC outputs)---------> edge --(Write)--> cloud state variables
 * Never touches RED; the `s7twin-opcua-bridge` node wraps it.
 *
 * - Values that arrive in one publish response are written in one Write request, so inputs the
 *   twin changed together (a box entering the detector: sd and dmg) reach the PLC in one scan.
 * - Except a value that changed more than once before it could be written (sd 1 → 0 → 1 while
 *   one box leaves the detector and the next enters, all in one publish): merging would drop the
 *   0 and the PLC would never see the second box. Such changes are replayed in the order of their
 *   source timestamps, as successive Writes, each held for `pulseHoldMs` so a PLC scan sees it
 *   (tag-writer.js).
 * - Only changes are forwarded: a value equal to what was last written to that side is dropped.
 * - Cloud → PLC carries fresh commands only: a bridge that starts never writes what it did not
 *   receive. What the cloud server held when the edge started or reconnected is no command:
 *   written into the PLC it would undo what the other paths set there meanwhile. So on every
 *   cloud session (the first, and each one node-opcua repairs or recreates) the command variables
 *   are read, and that is the baseline (baseline.js); initial values, republished notifications
 *   and samples older than that read are dropped, and afterwards a value goes to the PLC only when
 *   it differs from the last one seen from the cloud (fresh.js).
 * - Nothing goes to the PLC late: a command that arrives while the PLC side is down, or whose
 *   write fails, is dropped and counted (`dropped`), never kept for later; a PLC that comes back
 *   gets nothing from the bridge until a twin sends a new command.
 * - Only tags the dictionary marks cloudWritable go to the PLC, with type and range checks; a
 *   refused value is counted, never written.
 * - PLC → cloud mirrors the PLC: when the cloud side comes back (new or repaired session) the
 *   PLC's current outputs are written to it once, so the cloud mirrors the PLC again after a
 *   cloud server restart; while the cloud is down, the latest value per tag is kept for it.
 * - Probe slots (the benchmark's load table) go through a relay of their own with its own two
 *   sessions (nodes/lib/opcua/probes.js), so probes never queue in front of plant tags.
 */
const { EventEmitter } = require('node:events');
const { tableOf, demoTable } = require('../core/io-table');
const ot = require('./tags');
const { createSession } = require('./session');
const { createProbeRelay } = require('./probes');
const { createFreshFilter } = require('./fresh');
const { createBaseline } = require('./baseline');
const { DEFAULTS: FIRST_SESSION } = require('./first-session');
const { createRelayCore } = require('./relay');
const { createTagWriter, inTimeOrder } = require('./tag-writer');

const DEFAULTS = {
  plcEndpoint: 'opc.tcp://127.0.0.1:4840',
  cloudEndpoint: 'opc.tcp://127.0.0.1:4841',
  plant: 'plant1',
  publishingIntervalMs: 10,
  samplingIntervalMs: 10,
  retryMs: FIRST_SESSION.retryMs, // a first session that failed (login refused, ...) is tried again after 5 s
  pulseHoldMs: 20, // a value replayed from a pulse stays this long before the next (two 10 ms PLC scans)
  maxFrames: 64, // pulses queued per side before they are merged (memory stays bounded)
  probeSlots: 128, // probe slots relayed (0 = no probe relay, no extra sessions); must match the cloud server's
  baselineRetryMs: 1000, // a baseline read of the cloud's commands that failed is tried again after 1 s
};

/**
 * The bridge's counters, all 0.
 * @returns {object}
 */
function bridgeCounters() {
  return {
    toPlc: 0, toCloud: 0, // values written
    toPlcWrites: 0, toCloudWrites: 0, // Write requests
    refused: 0, // values that failed the dictionary's checks (never written)
    writeErrors: 0, // values a server refused or writes that failed
    unchanged: 0, // notifications equal to what the target already has
    resyncs: 0,
    pulses: 0, // values that changed again before they were written: replayed, not merged
    merged: 0, // queued pulses merged because the target was down or too far behind
    dropped: 0, // commands not written to the PLC because it was down or the write failed (never later)
    baselineErrors: 0, // baseline reads of the cloud's commands that failed (tried again)
  };
}

/**
 * The tags the bridge relays and their node ids on both servers: the commands (the inputs the
 * dictionary marks cloudWritable) from the cloud to the PLC, the states (the PLC's outputs on the
 * cloud) from the PLC to the cloud.
 * @param {string} plant
 * @param {object} [table] the plant's I/O table (default: the demo plant's)
 * @returns {{commandIds: string[], stateIds: string[], cloudIdOf: Map<string, string>,
 *   tagOfCloudId: Map<string, object>, tagOfPlcId: Map<string, object>}}
 */
function bridgeTags(plant, table = demoTable()) {
  const commandTags = table.inputs.filter((t) => t.cloudWritable);
  const stateTags = ot.cloudTags(table).filter((t) => t.dir === 'out');
  const cloudIdOf = new Map(stateTags.concat(commandTags).map((t) => [t.short, ot.cloudNodeId(t, { plant })]));
  return {
    commandIds: commandTags.map((t) => cloudIdOf.get(t.short)),
    stateIds: stateTags.map((t) => ot.plcNodeId(t)),
    cloudIdOf,
    tagOfCloudId: new Map([...cloudIdOf].map(([s, id]) => [id, table.get(s)])),
    tagOfPlcId: new Map(stateTags.map((t) => [ot.plcNodeId(t), t])),
  };
}

/**
 * The bridge's sessions: the PLC's (monitoring its outputs), the cloud's (monitoring the
 * commands, with server clocks for the baseline), and the probe relay (null when probeSlots is 0).
 */
function bridgeSessions(o, { stateIds, commandIds }) {
  const common = { publishingIntervalMs: o.publishingIntervalMs, samplingIntervalMs: o.samplingIntervalMs, pkiDir: o.pkiDir };
  const plc = createSession({ ...common, name: 'plc', endpointUrl: o.plcEndpoint, credentials: o.plcCredentials, monitor: stateIds });
  const cloud = createSession({
    ...common, name: 'cloud', endpointUrl: o.cloudEndpoint, credentials: o.cloudCredentials,
    securityMode: o.cloudSecurityMode, securityPolicy: o.cloudSecurityPolicy, monitor: commandIds, serverClocks: true,
  });
  const probes = o.probeSlots > 0 ? createProbeRelay({
    ...common, slots: o.probeSlots, plcEndpoint: o.plcEndpoint, cloudEndpoint: o.cloudEndpoint,
    plcCredentials: o.plcCredentials, cloudCredentials: o.cloudCredentials,
    cloudSecurityMode: o.cloudSecurityMode, cloudSecurityPolicy: o.cloudSecurityPolicy, retryMs: o.retryMs,
    idleMs: o.probeIdleMs, table: o.table,
  }) : null;
  return { plc, cloud, probes };
}

/**
 * Create the bridge (not started).
 * @param {object} [opts]
 * @param {string} [opts.plcEndpoint] the PLC's OPC UA server
 * @param {string} [opts.cloudEndpoint] the cloud OPC UA server
 * @param {string} [opts.plant]
 * @param {object} [opts.table] the plant's I/O table (a table or a definition; default: the demo plant's)
 * @param {{user:string,password:string}} [opts.cloudCredentials] the edge account on the cloud server
 * @param {{user:string,password:string}} [opts.plcCredentials] default anonymous
 * @param {string} [opts.cloudSecurityMode] None | Sign | SignAndEncrypt (default None)
 * @param {string} [opts.cloudSecurityPolicy] None | Basic256Sha256 (default None)
 * @param {number} [opts.publishingIntervalMs] both subscriptions (default 10)
 * @param {number} [opts.samplingIntervalMs] every monitored item (default 10)
 * @param {string} [opts.pkiDir] client PKI folder
 * @param {number} [opts.pulseHoldMs] how long a replayed pulse value stays before the next (default 20)
 * @param {number} [opts.probeSlots] probe slots Req[i]/Res[i], i < probeSlots, relayed (default 128, 0 = off)
 * @param {number} [opts.probeIdleMs] a PLC probe response idle this long stops being monitored (probes.js idleMs)
 * @param {number} [opts.baselineRetryMs] a failed baseline read of the cloud's commands is tried again after this long (default 1000)
 * @returns {EventEmitter} events: 'forward' {to, values}, 'status' {side, status}, 'error' (never thrown)
 */
function createOpcuaBridge(opts = {}) {
  const o = { ...DEFAULTS, ...opts };
  const plant = ot.checkPlant(o.plant);
  const table = tableOf(o.table);
  o.table = table;
  const ee = new EventEmitter();
  const ids = bridgeTags(plant, table);
  const { commandIds, cloudIdOf, tagOfCloudId, tagOfPlcId } = ids;
  const counters = bridgeCounters();
  const fresh = createFreshFilter(); // which cloud notifications are fresh commands
  const core = createRelayCore(ee);
  const { isStopped, fail } = core;
  const plcImage = {}; // the PLC's outputs as last seen, by short name (for the cloud's resync)

  const { plc, cloud, probes } = bridgeSessions(o, ids);
  if (probes) {
    probes.on('status', (ev) => ee.emit('status', ev));
    probes.on('error', (err) => fail(err));
  }

  const writing = { counters, pulseHoldMs: o.pulseHoldMs, maxFrames: o.maxFrames, wait: core.wait, isStopped, fail, table };
  const toPlc = createTagWriter({
    ...writing, name: 'plc', side: plc, nodeIdOf: (k) => ot.plcNodeId(k, table), countAs: { values: 'toPlc', writes: 'toPlcWrites' },
    keepUnwritten: false, onForward: (values) => ee.emit('forward', { to: 'plc', values }),
  });
  const toCloud = createTagWriter({
    ...writing, name: 'cloud', side: cloud, nodeIdOf: (k) => cloudIdOf.get(k), countAs: { values: 'toCloud', writes: 'toCloudWrites' },
    keepUnwritten: true, onForward: (values) => ee.emit('forward', { to: 'cloud', values }),
  });
  const baseline = createBaseline({
    session: cloud, fresh, isStopped, wait: core.wait, retryMs: o.baselineRetryMs,
    read: async () => (await cloud.read(commandIds)).filter((r) => r.good).map((r) => {
      const tag = tagOfCloudId.get(r.nodeId);
      return { key: tag.short, value: ot.fromVariant(tag, r.value), clock: r.clock };
    }),
    // Commands a twin wrote after the read was served, while it was on its way: judged now.
    onLater: (later) => commandsToPlc(later, true),
    onError: (err) => { counters.baselineErrors += 1; fail(err); },
  });

  plc.on('values', (batch) => statesToCloud(batch.map((n) => [tagOfPlcId.get(n.nodeId), n])));
  cloud.on('values', (batch) => commandsToPlc(batch.map((n) => [tagOfCloudId.get(n.nodeId), n])));
  // A (re)created cloud session gets the PLC's outputs again (relay.js says why).
  core.wire({ plc, cloud, names: { plc: 'plc', cloud: 'cloud' }, fresh, toPlc, toCloud, cloudImage: plcImage, baseline, counters });

  /**
   * Cloud notifications → the PLC: fresh commands only, checked against the dictionary, and only
   * while the PLC is there.
   * @param {Array<[object, object]>} entries [tag, notification]
   * @param {boolean} [judged] commands the fresh filter already let through (kept aside until the baseline)
   */
  function commandsToPlc(entries, judged = false) {
    for (const [tag, n] of inTimeOrder(entries)) {
      const value = ot.fromVariant(tag, n.value);
      if (!judged && !fresh.accept(tag.short, value, n.clock, [tag, n])) continue; // not a command (fresh.js)
      try { table.checkWrite(tag.short, value); } catch (err) { counters.refused += 1; fail(err); continue; }
      if (!plc.connected) { counters.dropped += 1; continue; }
      toPlc.push(tag.short, value);
    }
    toPlc.settle();
  }

  /** PLC notifications → the cloud; while the cloud is down it gets the latest image on its return, not every pulse it missed. */
  function statesToCloud(entries) {
    for (const [tag, n] of inTimeOrder(entries)) {
      const value = ot.fromVariant(tag, n.value);
      plcImage[tag.short] = value;
      toCloud.push(tag.short, value);
    }
    if (!cloud.connected) toCloud.collapse();
    toCloud.settle();
  }

  /** Connect both sides; resolves when both have a session (or the bridge was stopped). */
  async function start() {
    await Promise.all([core.connect([plc, cloud], o.retryMs), probes && probes.start()]);
  }

  function stop() {
    return core.stop(() => [plc.close(), cloud.close(), probes && probes.stop()]);
  }

  // defineProperties, not Object.assign: assign would read the getters once, now.
  return Object.defineProperties(ee, Object.getOwnPropertyDescriptors({
    start,
    stop,
    counters,
    sides: { plc, cloud },
    probes,
    /**
     * Both sides' client counters plus the bridge's; `commands`: how the cloud's command
     * notifications were judged (fresh.js); `probes`: the probe relay's (null when off).
     */
    stats() {
      return {
        ...counters, commands: { ...fresh.counters, holding: fresh.holding },
        plc: plc.stats(), cloud: cloud.stats(), monitoredItems: { plc: plc.monitoredItemCount, cloud: cloud.monitoredItemCount },
        probes: probes ? probes.stats() : null,
      };
    },
  }));
}

module.exports = { createOpcuaBridge, DEFAULTS, bridgeTags };
