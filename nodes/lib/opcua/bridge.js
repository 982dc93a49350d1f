'use strict';
/**
 * The edge side of the OPC UA path: two OPC UA client connections (nodes/lib/opcua/session.js).
 *   cloud server --(subscription on the command variables)--> edge --(Write)--> PLC inputs
 *   PLC server  --(subscription on the PLC outputs)---------> edge --(Write)--> cloud state variables
 * Never touches RED; the `s7twin-opcua-bridge` node wraps it.
 *
 * - Values that arrive in one publish response are written in one Write request, so inputs the
 *   twin changed together (a box entering the detector: sd and dmg) reach the PLC in one scan.
 * - Except a value that changed more than once before it could be written (sd 1 → 0 → 1 while
 *   one box leaves the detector and the next enters, all in one publish): merging would drop the
 *   0 and the PLC would never see the second box. Such changes are replayed in the order of their
 *   source timestamps, as successive Writes, each held for `pulseHoldMs` so a PLC scan sees it.
 * - Only changes are forwarded: a value equal to what was last written to that side is dropped.
 * - Cloud → PLC carries fresh commands only (issue 16: a bridge that starts never writes what it
 *   did not receive). What the cloud server held when the edge started or reconnected is no
 *   command: written into the PLC it would undo what the other paths set there meanwhile. So on
 *   every cloud session (the first, and each one node-opcua repairs or recreates) the command
 *   variables are read, and that is the baseline; initial values, republished notifications and
 *   samples older than that read are dropped, and afterwards a value goes to the PLC only when
 *   it differs from the last one seen from the cloud (nodes/lib/opcua/fresh.js).
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
const tags = require('../core/tags');
const ot = require('./tags');
const { createSide } = require('./session');
const { createProbeRelay } = require('./probes');
const { createFreshFilter } = require('./fresh');

const DEFAULTS = {
  plcEndpoint: 'opc.tcp://127.0.0.1:4840',
  cloudEndpoint: 'opc.tcp://127.0.0.1:4841',
  plant: 'plant1',
  publishingIntervalMs: 10,
  samplingIntervalMs: 10,
  retryMs: 5000, // a first session that failed (login refused, ...) is tried again after 5 s
  pulseHoldMs: 20, // a value replayed from a pulse stays this long before the next (two 10 ms PLC scans)
  maxFrames: 64, // pulses queued per side before they are merged (memory stays bounded)
  probeSlots: 128, // probe slots relayed (0 = no probe relay, no extra sessions); must match the cloud server's
  baselineRetryMs: 1000, // a baseline read of the cloud's commands that failed is tried again after 1 s
};

/**
 * Create the bridge (not started).
 * @param {object} [opts]
 * @param {string} [opts.plcEndpoint] the PLC's OPC UA server
 * @param {string} [opts.cloudEndpoint] the cloud OPC UA server
 * @param {string} [opts.plant]
 * @param {{user:string,password:string}} [opts.cloudCredentials] the edge account on the cloud server
 * @param {{user:string,password:string}} [opts.plcCredentials] default anonymous
 * @param {string} [opts.cloudSecurityMode] None | Sign | SignAndEncrypt (default None)
 * @param {string} [opts.cloudSecurityPolicy] None | Basic256Sha256 (default None)
 * @param {number} [opts.publishingIntervalMs] both subscriptions (default 10)
 * @param {number} [opts.samplingIntervalMs] every monitored item (default 10)
 * @param {string} [opts.pkiDir] client PKI folder
 * @param {number} [opts.pulseHoldMs] how long a replayed pulse value stays before the next (default 20)
 * @param {number} [opts.probeSlots] probe slots Req[i]/Res[i], i < probeSlots, relayed (default 128, 0 = off)
 * @param {number} [opts.probeIdleMs] a PLC probe response idle this long stops being monitored (opcua-probes.js idleMs)
 * @param {number} [opts.baselineRetryMs] a failed baseline read of the cloud's commands is tried again after this long (default 1000)
 * @returns {EventEmitter} events: 'forward' {to, values}, 'status' {side, status}, 'error' (never thrown)
 */
function createOpcuaBridge(opts = {}) {
  const o = { ...DEFAULTS, ...opts };
  const plant = ot.checkPlant(o.plant);
  const ee = new EventEmitter();
  const commandTags = tags.inputs.filter((t) => t.cloudWritable);
  const stateTags = ot.cloudTags().filter((t) => t.dir === 'out');
  const cloudIdOf = new Map(stateTags.concat(commandTags).map((t) => [t.short, ot.cloudNodeId(t, { plant })]));
  const tagOfCloudId = new Map([...cloudIdOf].map(([s, id]) => [id, tags.get(s)]));
  const tagOfPlcId = new Map(stateTags.map((t) => [ot.plcNodeId(t), t]));
  const counters = {
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
  // Which cloud notifications are fresh commands (the baseline read on every cloud session).
  const fresh = createFreshFilter();

  const common = {
    publishingIntervalMs: o.publishingIntervalMs, samplingIntervalMs: o.samplingIntervalMs, pkiDir: o.pkiDir,
  };
  const plc = createSide({
    ...common, name: 'plc', endpointUrl: o.plcEndpoint, credentials: o.plcCredentials,
    monitor: [...tagOfPlcId.keys()],
  });
  const cloud = createSide({
    ...common, name: 'cloud', endpointUrl: o.cloudEndpoint, credentials: o.cloudCredentials,
    securityMode: o.cloudSecurityMode, securityPolicy: o.cloudSecurityPolicy,
    monitor: commandTags.map((t) => cloudIdOf.get(t.short)), serverClocks: true,
  });
  const sides = { plc, cloud };
  const probes = o.probeSlots > 0 ? createProbeRelay({
    ...common, slots: o.probeSlots, plcEndpoint: o.plcEndpoint, cloudEndpoint: o.cloudEndpoint,
    plcCredentials: o.plcCredentials, cloudCredentials: o.cloudCredentials,
    cloudSecurityMode: o.cloudSecurityMode, cloudSecurityPolicy: o.cloudSecurityPolicy, retryMs: o.retryMs,
    idleMs: o.probeIdleMs,
  }) : null;
  if (probes) {
    probes.on('status', (ev) => ee.emit('status', ev));
    probes.on('error', (err) => fail(err));
  }
  // Per target side: what it has (last written or seen) and what still has to go there, as
  // frames in time order: one frame = one Write; a new frame starts only where a tag changes again.
  const known = { plc: {}, cloud: {} };
  const pending = { plc: [], cloud: [] };
  const flushing = { plc: false, cloud: false };
  const lastWrite = { plc: null, cloud: null }; // {at, keys} of the last Write to each side
  let stopped = false;
  const retryTimers = new Set(); // connect retries, pulse holds and baseline retries, cleared on stop
  const plcImage = {}; // the PLC's outputs as last seen, by short name (for the cloud's resync)
  let baselineRun = 0; // the latest baseline read; an older one that answers late is ignored

  function fail(err) {
    if (ee.listenerCount('error')) ee.emit('error', err);
  }

  plc.on('values', (batch) => take('cloud', batch.map((n) => [tagOfPlcId.get(n.nodeId), n])));
  cloud.on('values', (batch) => take('plc', batch.map((n) => [tagOfCloudId.get(n.nodeId), n])));
  for (const [side, s] of Object.entries(sides)) {
    s.on('status', (status, detail) => {
      if (status !== 'connected') {
        if (side === 'cloud') fresh.hold(); // republished notifications after a reconnect are no commands
        else dropPlcPending(); // what the PLC did not get now, it never gets
      }
      ee.emit('status', { side, status, detail });
    });
  }
  // A (re)created cloud session: it may have lost its values (a restarted server), so it gets the
  // PLC's outputs again (values it already has are filtered by `known` only after a read-back, so
  // forget what we believed it had); and what it holds now is the commands' new baseline.
  cloud.on('session', () => {
    counters.resyncs += 1;
    known.cloud = {};
    collapse('cloud');
    Object.assign(pending.cloud[0], plcImage);
    flush('cloud');
    fresh.hold();
    baseline();
  });
  // A (re)created PLC session: the PLC may have restarted with other inputs; it gets nothing from
  // here until a twin sends a new command (what the bridge believed it had is forgotten).
  plc.on('session', () => {
    known.plc = {};
  });

  /**
   * Read the cloud's command variables: the baseline against which notifications are judged
   * (opcua-fresh.js). Tried again every baselineRetryMs while the session lasts.
   */
  async function baseline() {
    const run = ++baselineRun;
    const ids = commandTags.map((t) => cloudIdOf.get(t.short));
    while (!stopped && run === baselineRun && cloud.connected) {
      try {
        const results = await cloud.read(ids);
        if (run !== baselineRun) return;
        const later = fresh.rebase(results.filter((r) => r.good).map((r) => {
          const tag = tagOfCloudId.get(r.nodeId);
          return { key: tag.short, value: ot.fromVariant(tag, r.value), clock: r.clock };
        }));
        // Commands a twin wrote after the read was served, while it was on its way: judged now.
        if (later.length) take('plc', later, true);
        return;
      } catch (err) {
        counters.baselineErrors += 1;
        fail(err);
        await hold(o.baselineRetryMs);
      }
    }
  }

  /** Commands waiting for the PLC when it went away: dropped and counted, never written late. */
  function dropPlcPending() {
    for (const frame of pending.plc) counters.dropped += Object.keys(frame).length;
    pending.plc = [];
  }

  /** Merge every queued frame into one (latest value per tag): the image, not the history. */
  function collapse(to) {
    if (pending[to].length > 1) counters.merged += pending[to].length - 1;
    pending[to] = [Object.assign({}, ...pending[to])];
  }

  /**
   * Queue values from one side for the other and write them (coalesced while a write runs).
   * @param {'plc'|'cloud'} to
   * @param {Array<[object, object]>} entries [tag, notification]
   * @param {boolean} [judged] commands the fresh filter already let through (kept aside until the baseline)
   */
  function take(to, entries, judged = false) {
    // In time order (a publish lists its changes item by item); changes without a timestamp keep
    // their place (Array.prototype.sort is stable).
    const ordered = entries.filter(([tag, n]) => tag && n.status && n.status.isGood());
    ordered.sort((a, b) => (a[1].ts ?? 0) - (b[1].ts ?? 0));
    const q = pending[to];
    for (const [tag, n] of ordered) {
      const value = ot.fromVariant(tag, n.value);
      if (to === 'plc') {
        if (!judged && !fresh.accept(tag.short, value, n.clock, [tag, n])) continue; // not a command (opcua-fresh.js)
        try { tags.checkWrite(tag.short, value); } catch (err) { counters.refused += 1; fail(err); continue; }
        if (!sides.plc.connected) { counters.dropped += 1; continue; }
      } else {
        plcImage[tag.short] = value;
      }
      let frame = q[q.length - 1];
      if (!frame || (tag.short in frame && frame[tag.short] !== value)) {
        if (frame) counters.pulses += 1;
        frame = {};
        q.push(frame);
      }
      frame[tag.short] = value;
    }
    // The cloud, when down, gets the PLC's latest image on its return, not every pulse it missed;
    // a target too far behind gets the latest values.
    if ((to === 'cloud' && !sides.cloud.connected) || q.length > o.maxFrames) collapse(to);
    flush(to);
  }

  function hold(ms) {
    return new Promise((resolve) => {
      const t = setTimeout(() => { retryTimers.delete(t); resolve(); }, ms);
      t.resolve = resolve;
      retryTimers.add(t);
    });
  }

  async function flush(to) {
    if (flushing[to]) return; // the running flush picks the rest up
    const side = sides[to];
    flushing[to] = true;
    try {
      while (side.connected && pending[to].length && !stopped) {
        const frame = pending[to].shift();
        const batch = {};
        for (const [k, v] of Object.entries(frame)) {
          if (known[to][k] === v) counters.unchanged += 1; else batch[k] = v;
        }
        const keys = Object.keys(batch);
        if (!keys.length) continue;
        // The previous Write set one of these tags to another value a moment ago (a pulse): leave
        // that value long enough for the target (a PLC scan) to see it.
        const last = lastWrite[to];
        if (last && keys.some((k) => last.keys.has(k))) {
          const wait = last.at + o.pulseHoldMs - performance.now();
          if (wait > 0) await hold(wait);
          if (stopped || !side.connected) {
            if (to === 'plc') { counters.dropped += keys.length; dropPlcPending(); } else { pending[to].unshift(batch); collapse(to); }
            break;
          }
        }
        const items = keys.map((k) => {
          const tag = tags.get(k);
          const v = ot.toVariant(tag, batch[k]);
          return { nodeId: to === 'plc' ? ot.plcNodeId(tag) : cloudIdOf.get(k), dataType: v.dataType, value: v.value };
        });
        let results;
        try {
          results = await side.write(items);
        } catch (err) {
          // Not written. The cloud gets them with its next session (unless newer values arrived
          // meanwhile); the PLC never: later they would be late (dropped, counted).
          if (to === 'plc') counters.dropped += keys.length;
          else { pending[to].unshift(batch); collapse(to); }
          counters.writeErrors += keys.length;
          fail(err);
          break;
        }
        lastWrite[to] = { at: performance.now(), keys: new Set(keys) };
        counters[to === 'plc' ? 'toPlcWrites' : 'toCloudWrites'] += 1;
        const written = {};
        results.forEach((r, i) => {
          if (r.good) { known[to][keys[i]] = batch[keys[i]]; written[keys[i]] = batch[keys[i]]; } else {
            counters.writeErrors += 1;
            const err = new Error(`${to}: write of ${keys[i]} refused: ${r.status}`);
            err.code = 'E_WRITE_REFUSED';
            fail(err);
          }
        });
        counters[to === 'plc' ? 'toPlc' : 'toCloud'] += Object.keys(written).length;
        if (Object.keys(written).length) ee.emit('forward', { to, values: written });
      }
    } finally {
      flushing[to] = false;
      if (to === 'plc' && !side.connected) dropPlcPending();
    }
  }

  /**
   * Connect one side. node-opcua retries lost connections by itself; what it does not retry is a
   * first session that failed (a refused login, a certificate problem): that is retried here,
   * every retryMs, until it works or the bridge stops.
   */
  async function connectSide(s) {
    while (!stopped) {
      try {
        await s.connect();
        return;
      } catch (err) {
        if (stopped) return;
        fail(err);
        await new Promise((resolve) => {
          const t = setTimeout(() => { retryTimers.delete(t); resolve(); }, o.retryMs);
          retryTimers.add(t);
        });
      }
    }
  }

  /** Connect both sides; resolves when both have a session (or the bridge was stopped). */
  async function start() {
    await Promise.all([connectSide(plc), connectSide(cloud), probes && probes.start()]);
  }

  async function stop() {
    stopped = true;
    for (const t of retryTimers) { clearTimeout(t); if (t.resolve) t.resolve(); }
    retryTimers.clear();
    await Promise.allSettled([plc.close(), cloud.close(), probes && probes.stop()]);
  }

  // defineProperties, not Object.assign: assign would read the getters once, now.
  return Object.defineProperties(ee, Object.getOwnPropertyDescriptors({
    start,
    stop,
    counters,
    sides,
    probes,
    /**
     * Both sides' client counters plus the bridge's; `commands`: how the cloud's command
     * notifications were judged (opcua-fresh.js); `probes`: the probe relay's (null when off).
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

module.exports = { createOpcuaBridge, DEFAULTS };
