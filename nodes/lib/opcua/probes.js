'use strict';
/**
 * The edge's probe relay on the OPC UA path, for the benchmark's load table: probe slot i of a
 * virtual twin goes
 *   cloud Req[i] --(subscription)--> edge --(Write)--> PLC Req[i]   (the PLC copies Req → Res each scan)
 *   PLC Res[i]   --(subscription)--> edge --(Write)--> cloud Res[i]
 * for every i < slots, node ids `ns=<ns>;s="Probe"."Req"[i]` / `."Res"[i]` on both servers.
 * Never touches RED; the bridge (nodes/lib/opcua/bridge.js) starts it next to the tag relay.
 *
 * - Two client sessions of its own (nodes/lib/opcua/session.js), not the tag sessions: a burst of
 *   probe notifications or writes never queues in front of a plant tag's (the tag relay writes
 *   one frame at a time per side, and its pulse holds would delay probes in turn).
 * - Latest value per slot, written in bounded Writes (probe-writer.js).
 * - Only UInt32 values of slots < slots are written, only to Req on the PLC and Res on the cloud;
 *   anything else is counted (refused) and dropped.
 * - A value equal to what the target was last written is dropped.
 * - Requests go to the PLC only when a twin made them: what the cloud's Req variables hold when a
 *   cloud session starts (the first, or one node-opcua repaired or recreated) is read as the
 *   baseline (baseline.js), and initial values, republished and older notifications are not
 *   requests (fresh.js, the tag bridge's rule). A stale request written into a PLC slot would
 *   overwrite a fresh one another path (WebSocket, Modbus) put there. A request that arrives while
 *   the PLC is down, or whose write fails, is dropped and counted, never written later; a
 *   restarted PLC gets nothing until the next request.
 * - When the cloud's session is (re)created, the PLC's latest responses are written to it once
 *   (a restarted cloud server gets them back).
 * - Subscriptions survive reconnects through node-opcua's session repair; no item is ever added
 *   twice (session.js).
 * - Cost: on the cloud server `slots` monitored items on Req; those variables have
 *   MinimumSamplingInterval 0 and are monitored with sampling interval 0: exception-based, no
 *   timer per item (revised to the server's minimum sampling interval as coalescing window). On
 *   the PLC only the responses of the slots in use are monitored (probe-watch.js).
 */
const { codedError } = require('../core/errors');
const { EventEmitter } = require('node:events');
const ot = require('./tags');
const { demoTable } = require('../core/io-table');
const { createSession } = require('./session');
const { createFreshFilter } = require('./fresh');
const { createBaseline } = require('./baseline');
const { createRelayCore } = require('./relay');
const { createProbeWriter } = require('./probe-writer');
const { createProbeWatch } = require('./probe-watch');

const DEFAULTS = {
  slots: 128, // relayed slots 0..127; the benchmark uses 1..users
  maxSlots: null, // the PLC's probe slots (the table's plc.probeSlots: 1,024 for the demo plant)
  publishingIntervalMs: 10,
  samplingIntervalMs: 10, // PLC Res items; the cloud Req items ask 0 (exception-based)
  maxItemsPerWrite: 256, // one Write request carries at most this many slots
  // A PLC Res item whose slot saw no request for this long is deleted (and added again with the
  // slot's next request): the PLC samples it every samplingIntervalMs while it exists. Kept for
  // good, the 80 slots of an 80-twin OPC UA load level doubled the PLC's CPU under whatever ran
  // after it (docs/opcua.md). 0 = keep them.
  idleMs: 3000,
  cloudNamespaceIndex: 1,
  baselineRetryMs: 1000, // a failed baseline read of the cloud's requests is tried again after 1 s
};

/** Error with a stable `code`. */
const ProbeRelayError = codedError('ProbeRelayError');

/**
 * A notification of a relayed probe variable: its slot and value.
 * @param {{nodeId: string, value: *}} n a notification (session.js)
 * @param {'req'|'res'} kind what it must be: Req from the cloud, Res from the PLC
 * @param {number} slots relayed slots
 * @param {string} from the side it came from, in the error
 * @returns {{slot: number, value: number}}
 * @throws {ProbeRelayError} E_PROBE_SLOT; OpcuaTagError E_PROBE_VALUE (not a UInt32)
 */
function probeNotification(n, kind, slots, from) {
  const id = ot.parseProbeNodeId(n.nodeId);
  if (!id || id.kind !== kind || id.slot >= slots) throw new ProbeRelayError('E_PROBE_SLOT', `${from}: not a relayed probe variable: ${n.nodeId}`);
  return { slot: id.slot, value: ot.checkProbeValue(n.value) };
}

/** The relay's counters, all 0. */
function relayCounters() {
  return {
    toPlc: 0, toCloud: 0, // slot values written
    toPlcWrites: 0, toCloudWrites: 0, // Write requests
    refused: 0, // notifications that were not a UInt32 of a relayed slot (never written)
    writeErrors: 0,
    unchanged: 0,
    resyncs: 0,
    monitorErrors: 0, // PLC response items that could not be created (tried again on the next session)
    unwatched: 0, // PLC response items deleted after idleMs without a request
    dropped: 0, // requests not written to the PLC because it was down or the write failed (never later)
    baselineErrors: 0, // baseline reads of the cloud's requests that failed (tried again)
  };
}

/**
 * The relay's sessions: the PLC's (response items added per slot in use, probe-watch.js) and the
 * cloud's (every relayed Req, exception-based, with server clocks for the baseline).
 */
function relaySessions(o) {
  const common = { publishingIntervalMs: o.publishingIntervalMs, pkiDir: o.pkiDir };
  const plc = createSession({
    ...common, name: 'plc-probes', endpointUrl: o.plcEndpoint, credentials: o.plcCredentials,
    samplingIntervalMs: o.samplingIntervalMs, monitor: [],
  });
  const cloud = createSession({
    ...common, name: 'cloud-probes', endpointUrl: o.cloudEndpoint, credentials: o.cloudCredentials,
    securityMode: o.cloudSecurityMode, securityPolicy: o.cloudSecurityPolicy,
    samplingIntervalMs: 0, monitor: Array.from({ length: o.slots }, (_, i) => cloudRequestId(o, i)), serverClocks: true,
  });
  return { plc, cloud };
}

/** Node id of the cloud's Req[slot]. */
function cloudRequestId(o, slot) {
  return ot.probeNodeId('req', slot, { ns: o.cloudNamespaceIndex });
}

/**
 * Every relayed cloud Req, read in chunks of maxItemsPerWrite: the requests' baseline (good values only).
 * @returns {Promise<Array<{key: number, value: number, clock: bigint|null}>>}
 */
async function readRequests(cloud, o) {
  const entries = [];
  for (let first = 0; first < o.slots; first += o.maxItemsPerWrite) {
    const ids = [];
    for (let i = first; i < Math.min(o.slots, first + o.maxItemsPerWrite); i++) ids.push(cloudRequestId(o, i));
    for (const r of await cloud.read(ids)) {
      if (r.good) entries.push({ key: ot.parseProbeNodeId(r.nodeId).slot, value: Number(r.value), clock: r.clock });
    }
  }
  return entries;
}

/**
 * Create the probe relay (not started).
 * @param {object} opts
 * @param {string} opts.plcEndpoint
 * @param {string} opts.cloudEndpoint
 * @param {number} [opts.slots] relayed slots (default 128, 1..1024)
 * @param {{user:string,password:string}} [opts.cloudCredentials]
 * @param {{user:string,password:string}} [opts.plcCredentials]
 * @param {string} [opts.cloudSecurityMode]
 * @param {string} [opts.cloudSecurityPolicy]
 * @param {number} [opts.publishingIntervalMs]
 * @param {number} [opts.samplingIntervalMs]
 * @param {string} [opts.pkiDir]
 * @param {number} [opts.retryMs] a first session that failed is tried again after this long (first-session.js)
 * @param {number} [opts.idleMs] see DEFAULTS
 * @param {object} [opts.table] the plant's I/O table: its probe slots and node ids (default: the demo plant's)
 * @returns {EventEmitter} events 'status' {side: 'plc-probes'|'cloud-probes', status, detail}, 'error'
 */
function createProbeRelay(opts = {}) {
  const o = { ...DEFAULTS, ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) };
  o.table = o.table || demoTable();
  o.maxSlots = o.maxSlots ?? o.table.PROBE_SLOTS;
  if (!Number.isInteger(o.slots) || o.slots < 1 || o.slots > o.maxSlots) {
    throw new ProbeRelayError('E_CONFIG', `probe slots must be an integer 1..${o.maxSlots}, got ${opts.slots}`);
  }
  const ee = new EventEmitter();
  const counters = relayCounters();
  const fresh = createFreshFilter(); // which cloud Req notifications are requests a twin made
  const core = createRelayCore(ee);
  const { isStopped, fail } = core;
  const { plc, cloud } = relaySessions(o);
  const responses = new Map(); // slot -> the PLC's response as last seen (for the cloud's resync)
  const watch = createProbeWatch({ plc, idleMs: o.idleMs, counters, isStopped, fail, table: o.table });
  const writing = { counters, maxItemsPerWrite: o.maxItemsPerWrite, isStopped, fail };
  const refusedError = (to) => (slot, status) => new ProbeRelayError('E_WRITE_REFUSED', `${to}: write of probe slot ${slot} refused: ${status}`);
  const toPlc = createProbeWriter({
    ...writing, side: plc, nodeIdOf: (i) => ot.plcProbeNodeId('req', i, o.table), countAs: { values: 'toPlc', writes: 'toPlcWrites' },
    keepUnwritten: false, refusedError: refusedError('plc'),
  });
  const toCloud = createProbeWriter({
    ...writing, side: cloud, nodeIdOf: (i) => ot.probeNodeId('res', i, { ns: o.cloudNamespaceIndex }),
    countAs: { values: 'toCloud', writes: 'toCloudWrites' }, keepUnwritten: true, refusedError: refusedError('cloud'),
  });
  const baseline = createBaseline({
    session: cloud, fresh, isStopped, wait: core.wait, retryMs: o.baselineRetryMs,
    read: () => readRequests(cloud, o),
    // Requests a twin made after the read was served, while it was on its way: judged now.
    onLater: (later) => requestsToPlc(later, true),
    onError: (err) => { counters.baselineErrors += 1; fail(err); },
  });

  plc.on('values', (batch) => responsesToCloud(batch));
  cloud.on('values', (batch) => requestsToPlc(batch));
  // A (re)created cloud session gets the PLC's responses back (relay.js says why); a (re)created
  // PLC session gets its response items back.
  core.wire({
    plc, cloud, names: { plc: 'plc-probes', cloud: 'cloud-probes' }, fresh, toPlc, toCloud, cloudImage: responses, baseline, counters,
    onPlcSession: () => watch.resume(),
  });

  /** The good notifications of relayed probe variables of `kind`; the others are refused and counted. */
  function relayed(batch, kind, from) {
    const out = [];
    for (const n of batch) {
      if (!n.status || !n.status.isGood()) continue;
      try {
        out.push({ ...probeNotification(n, kind, o.slots, from), n });
      } catch (err) {
        counters.refused += 1;
        fail(err);
      }
    }
    return out;
  }

  /**
   * Cloud Req notifications → the PLC: requests a twin made now, only while the PLC is there.
   * @param {object[]} batch notifications
   * @param {boolean} [judged] requests the fresh filter already let through (kept aside until the baseline)
   */
  function requestsToPlc(batch, judged = false) {
    const inUse = [];
    for (const { slot, value, n } of relayed(batch, 'req', 'cloud')) {
      if (!judged && !fresh.accept(slot, value, n.clock, n)) continue; // not a request a twin made now
      if (!plc.connected) { counters.dropped += 1; continue; }
      toPlc.set(slot, value);
      if (value !== 0) inUse.push(slot);
    }
    if (inUse.length) watch.used(inUse);
    toPlc.flush();
  }

  /** PLC Res notifications → the cloud. */
  function responsesToCloud(batch) {
    for (const { slot, value } of relayed(batch, 'res', 'plc')) {
      responses.set(slot, value);
      toCloud.set(slot, value);
    }
    toCloud.flush();
  }

  return Object.defineProperties(ee, Object.getOwnPropertyDescriptors({
    counters,
    sides: { plc, cloud },
    slots: o.slots,
    /** Connect both sides; resolves when both have a session (or the relay was stopped). */
    async start() {
      watch.start();
      await core.connect([plc, cloud], o.retryMs);
    },
    stop() {
      watch.stop();
      return core.stop(() => [plc.close(), cloud.close()]);
    },
    /** Counters; `requests`: how the cloud's Req notifications were judged (fresh.js). */
    stats() {
      return {
        ...counters, requests: { ...fresh.counters, holding: fresh.holding }, slots: o.slots,
        monitoredItems: { plc: plc.monitoredItemCount, cloud: cloud.monitoredItemCount },
      };
    },
  }));
}

module.exports = { createProbeRelay, ProbeRelayError, DEFAULTS, probeNotification };
