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
 * - Latest value per slot: probes are not pulses, only the newest request of a slot matters. What
 *   arrives while a Write runs is written by the next one, all pending slots in one request
 *   (split into Writes of at most maxItemsPerWrite), so the Write rate stays bounded by the
 *   round trip, not by the number of twins.
 * - Only UInt32 values of slots < slots are written, only to Req on the PLC and Res on the cloud;
 *   anything else is counted (refused) and dropped.
 * - A value equal to what the target was last written is dropped.
 * - Requests go to the PLC only when a twin made them (issue 16): what the cloud's Req variables
 *   hold when a cloud session starts (the first, or one node-opcua repaired or recreated) is
 *   read as the baseline, and initial values, republished and older notifications are not
 *   requests (nodes/lib/opcua/fresh.js, the tag bridge's rule). A stale request written into a
 *   PLC slot would overwrite a fresh one another path (WebSocket, Modbus) put there. A request
 *   that arrives while the PLC is down, or whose write fails, is dropped and counted, never
 *   written later; a restarted PLC gets nothing until the next request.
 * - When the cloud's session is (re)created, the PLC's latest responses are written to it once
 *   (a restarted cloud server gets them back).
 * - Subscriptions survive reconnects through node-opcua's session repair; no item is ever added
 *   twice (opcua-side.js).
 * - Cost: on the cloud server `slots` monitored items on Req; those variables have
 *   MinimumSamplingInterval 0 and are monitored with sampling interval 0: exception-based, no
 *   timer per item (revised to the server's minimum sampling interval as coalescing window). On
 *   the PLC the Res items are sampled every samplingIntervalMs (the PLC's variables have a
 *   MinimumSamplingInterval of one scan, so they cannot be exception-based), like the plant tags:
 *   that costs the PLC a read per item per 10 ms (measured: +16 % of a core for 128 items, +64 %
 *   for 1,024). So a PLC Res[i] is monitored only from the first non-zero request of slot i on:
 *   the PLC pays for the slots in use, not for N.
 */
const { codedError } = require('../core/errors');
const { EventEmitter } = require('node:events');
const ot = require('./tags');
const tags = require('../core/tags');
const { createSide } = require('./session');
const { createFreshFilter } = require('./fresh');

const DEFAULTS = {
  slots: 128, // relayed slots 0..127; the benchmark uses 1..users
  maxSlots: tags.PROBE_SLOTS, // the PLC's probe slots (io-table plc.probeSlots)
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
 * @returns {EventEmitter} events 'status' {side: 'plc-probes'|'cloud-probes', status, detail}, 'error'
 */
function createProbeRelay(opts = {}) {
  const o = { ...DEFAULTS, ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) };
  if (!Number.isInteger(o.slots) || o.slots < 1 || o.slots > o.maxSlots) {
    throw new ProbeRelayError('E_CONFIG', `probe slots must be an integer 1..${o.maxSlots}, got ${opts.slots}`);
  }
  const ee = new EventEmitter();
  const counters = {
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
  const fresh = createFreshFilter(); // which cloud Req notifications are requests a twin made
  const range = Array.from({ length: o.slots }, (_, i) => i);
  const common = { publishingIntervalMs: o.publishingIntervalMs, pkiDir: o.pkiDir };
  const plc = createSide({
    ...common, name: 'plc-probes', endpointUrl: o.plcEndpoint, credentials: o.plcCredentials,
    samplingIntervalMs: o.samplingIntervalMs,
    monitor: [], // added per slot in use (see watch)
  });
  const cloud = createSide({
    ...common, name: 'cloud-probes', endpointUrl: o.cloudEndpoint, credentials: o.cloudCredentials,
    securityMode: o.cloudSecurityMode, securityPolicy: o.cloudSecurityPolicy,
    samplingIntervalMs: 0,
    monitor: range.map((i) => ot.probeNodeId('req', i, { ns: o.cloudNamespaceIndex })), serverClocks: true,
  });
  const sides = { plc, cloud };
  const target = {
    plc: (i) => ot.plcProbeNodeId('req', i),
    cloud: (i) => ot.probeNodeId('res', i, { ns: o.cloudNamespaceIndex }),
  };
  const expect = { plc: 'req', cloud: 'res' }; // what a notification of the *other* side must be
  const pending = { plc: new Map(), cloud: new Map() }; // slot -> value still to write there
  const known = { plc: new Map(), cloud: new Map() }; // slot -> value that side was written
  const responses = new Map(); // slot -> the PLC's response as last seen (for the cloud's resync)
  const flushing = { plc: false, cloud: false };
  let stopped = false;
  const retryTimers = new Set();
  const watched = new Set(); // slots whose PLC response is (to be) monitored
  const lastUsed = new Map(); // slot -> time (ms) of its latest non-zero request
  let sweepTimer = null;
  let sweeping = false;

  /** Delete the PLC Res items of slots idle for idleMs; a slot asked for meanwhile is watched again. */
  async function sweep() {
    if (sweeping || stopped || !plc.connected) return;
    const started = Date.now();
    const idle = [...watched].filter((i) => started - (lastUsed.get(i) || 0) >= o.idleMs);
    if (!idle.length) return;
    sweeping = true;
    try {
      const removed = await plc.removeMonitor(idle.map((i) => ot.plcProbeNodeId('res', i)));
      const slots = removed.map((id) => ot.parseProbeNodeId(id).slot);
      for (const i of slots) watched.delete(i);
      counters.unwatched += slots.length;
      const again = slots.filter((i) => (lastUsed.get(i) || 0) >= started);
      if (again.length) watch(again);
    } catch (err) {
      fail(err);
    } finally {
      sweeping = false;
    }
  }

  /** Monitor the PLC's Res of these slots (once each; again on the next session if it failed now). */
  function watch(slots) {
    const fresh = slots.filter((i) => !watched.has(i));
    if (!fresh.length) return;
    for (const i of fresh) watched.add(i);
    addPlcItems(fresh);
  }
  function addPlcItems(slots) {
    if (!plc.connected || stopped) return; // the next 'session' adds them
    plc.addMonitor(slots.map((i) => ot.plcProbeNodeId('res', i))).catch((err) => {
      counters.monitorErrors += 1;
      fail(err);
    });
  }

  function fail(err) {
    if (ee.listenerCount('error')) ee.emit('error', err);
  }

  plc.on('values', (batch) => take('cloud', batch));
  cloud.on('values', (batch) => take('plc', batch));
  for (const [side, s] of Object.entries(sides)) {
    s.on('status', (status, detail) => {
      if (status !== 'connected') {
        if (side === 'cloud') fresh.hold(); // republished notifications after a reconnect are no requests
        else dropPlcPending(); // what the PLC did not get now, it never gets
      }
      ee.emit('status', { side: `${side}-probes`, status, detail });
    });
  }
  // A (re)created cloud session: a restarted server gets the PLC's responses back, and what its
  // Req variables hold now is the requests' new baseline.
  cloud.on('session', () => {
    counters.resyncs += 1;
    known.cloud.clear();
    for (const [slot, v] of responses) if (!pending.cloud.has(slot)) pending.cloud.set(slot, v);
    flush('cloud');
    fresh.hold();
    baseline();
  });
  // A (re)created PLC session: its response items come back; it gets no request until a twin
  // makes one (what the relay believed it had is forgotten).
  plc.on('session', () => {
    if (watched.size) addPlcItems([...watched]); // items it already has are skipped
    known.plc.clear();
  });

  let baselineRun = 0; // the latest baseline read; an older one that answers late is ignored
  /** Read every relayed cloud Req: the baseline of the requests (opcua-fresh.js), again every baselineRetryMs until it works. */
  async function baseline() {
    const run = ++baselineRun;
    while (!stopped && run === baselineRun && cloud.connected) {
      try {
        const entries = [];
        for (let first = 0; first < o.slots; first += o.maxItemsPerWrite) {
          const ids = range.slice(first, first + o.maxItemsPerWrite).map((i) => ot.probeNodeId('req', i, { ns: o.cloudNamespaceIndex }));
          for (const r of await cloud.read(ids)) {
            if (r.good) entries.push({ key: ot.parseProbeNodeId(r.nodeId).slot, value: Number(r.value), clock: r.clock });
          }
        }
        if (run !== baselineRun) return;
        // Requests a twin made after the read was served, while it was on its way: judged now.
        const later = fresh.rebase(entries);
        if (later.length) take('plc', later, true);
        return;
      } catch (err) {
        counters.baselineErrors += 1;
        fail(err);
        await new Promise((resolve) => {
          const t = setTimeout(() => { retryTimers.delete(t); resolve(); }, o.baselineRetryMs);
          t.resolve = resolve;
          retryTimers.add(t);
        });
      }
    }
  }

  /** Requests waiting for the PLC when it went away: dropped and counted, never written late. */
  function dropPlcPending() {
    counters.dropped += pending.plc.size;
    pending.plc.clear();
  }

  /**
   * Notifications of one side → pending values for the other.
   * @param {'plc'|'cloud'} to
   * @param {object[]} batch notifications of the other side
   * @param {boolean} [judged] requests the fresh filter already let through (kept aside until the baseline)
   */
  function take(to, batch, judged = false) {
    const from = to === 'plc' ? 'cloud' : 'plc';
    const slotsInUse = [];
    for (const n of batch) {
      if (!n.status || !n.status.isGood()) continue;
      const id = ot.parseProbeNodeId(n.nodeId);
      let value;
      try {
        if (!id || id.kind !== expect[to] || id.slot >= o.slots) throw new ProbeRelayError('E_PROBE_SLOT', `${from}: not a relayed probe variable: ${n.nodeId}`);
        value = ot.checkProbeValue(n.value);
      } catch (err) {
        counters.refused += 1;
        fail(err);
        continue;
      }
      if (to === 'plc') {
        if (!judged && !fresh.accept(id.slot, value, n.clock, n)) continue; // not a request a twin made now
        if (!plc.connected) { counters.dropped += 1; continue; }
      } else {
        responses.set(id.slot, value);
      }
      pending[to].set(id.slot, value);
      if (to === 'plc' && value !== 0) { slotsInUse.push(id.slot); lastUsed.set(id.slot, Date.now()); }
    }
    if (slotsInUse.length) watch(slotsInUse);
    flush(to);
  }

  async function flush(to) {
    if (flushing[to]) return; // the running flush takes what arrived meanwhile
    const side = sides[to];
    flushing[to] = true;
    try {
      while (side.connected && pending[to].size && !stopped) {
        const entries = [];
        for (const [slot, v] of pending[to]) {
          if (entries.length >= o.maxItemsPerWrite) break;
          pending[to].delete(slot);
          if (known[to].get(slot) === v) counters.unchanged += 1; else entries.push([slot, v]);
        }
        if (!entries.length) continue;
        const items = entries.map(([slot, v]) => ({ nodeId: target[to](slot), dataType: 'UInt32', value: v }));
        let results;
        try {
          results = await side.write(items);
        } catch (err) {
          // Not written. For the cloud: back in the queue unless a newer value arrived meanwhile.
          // For the PLC: dropped (counted), later it would be late.
          if (to === 'plc') counters.dropped += entries.length;
          else for (const [slot, v] of entries) if (!pending[to].has(slot)) pending[to].set(slot, v);
          counters.writeErrors += entries.length;
          fail(err);
          break;
        }
        counters[to === 'plc' ? 'toPlcWrites' : 'toCloudWrites'] += 1;
        results.forEach((r, k) => {
          const [slot, v] = entries[k];
          if (r.good) {
            known[to].set(slot, v);
            counters[to === 'plc' ? 'toPlc' : 'toCloud'] += 1;
          } else {
            counters.writeErrors += 1;
            fail(Object.assign(new ProbeRelayError('E_WRITE_REFUSED', `${to}: write of probe slot ${slot} refused: ${r.status}`)));
          }
        });
      }
    } finally {
      flushing[to] = false;
      if (to === 'plc' && !side.connected) dropPlcPending();
    }
  }

  /** First sessions that fail (refused login, ...) are retried every retryMs; node-opcua retries lost ones. */
  async function connectSide(s) {
    while (!stopped) {
      try {
        await s.connect();
        return;
      } catch (err) {
        if (stopped) return;
        fail(err);
        await new Promise((resolve) => {
          const t = setTimeout(() => { retryTimers.delete(t); resolve(); }, o.retryMs ?? 5000);
          t.resolve = resolve;
          retryTimers.add(t);
        });
      }
    }
  }

  return Object.defineProperties(ee, Object.getOwnPropertyDescriptors({
    counters,
    sides,
    slots: o.slots,
    /** Connect both sides; resolves when both have a session (or the relay was stopped). */
    async start() {
      if (o.idleMs > 0 && !sweepTimer) {
        sweepTimer = setInterval(sweep, Math.max(100, o.idleMs / 4));
        sweepTimer.unref();
      }
      await Promise.all([connectSide(plc), connectSide(cloud)]);
    },
    async stop() {
      stopped = true;
      clearInterval(sweepTimer);
      sweepTimer = null;
      for (const t of retryTimers) { clearTimeout(t); t.resolve(); }
      retryTimers.clear();
      await Promise.allSettled([plc.close(), cloud.close()]);
    },
    /** Counters; `requests`: how the cloud's Req notifications were judged (opcua-fresh.js). */
    stats() {
      return {
        ...counters, requests: { ...fresh.counters, holding: fresh.holding }, slots: o.slots,
        monitoredItems: { plc: plc.monitoredItemCount, cloud: cloud.monitoredItemCount },
      };
    },
  }));
}

module.exports = { createProbeRelay, ProbeRelayError, DEFAULTS };
