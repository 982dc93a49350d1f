'use strict';
/**
 * Twin transport over the OPC UA path (contract 5): a node-opcua client session on the cloud OPC
 * UA server (`s7twin-opcua-server`), logged in as the twin account.
 *   - send(values): one Write request with every input that changed in one twin tick. Inputs that
 *     are conditions of a timed pair (dmg for sd) are put first, so the server applies them first.
 *   - PLC outputs: read every `pollMs` (mode 'poll', the study's 50 ms Session.Read coroutine) or
 *     from a subscription (mode 'subscribe': samplingIntervalMs / publishingIntervalMs), monitored
 *     only once an onValues callback exists (a probe-only load twin costs the server no items).
 *   - After a reconnect (session recreated) the whole input image is written again and the
 *     outputs are read once as a snapshot, so twin and PLC agree on the plant as it is now.
 *   - stats(): frames and bytes on the wire (counted on the client's TCP socket).
 *   - probe(slot, value): one Write of the cloud server's probe request `ns=1;s="Probe"."Req"[slot]`
 *     (UInt32). onProbe(cb(slot, value)) reports changes of the probe response `."Res"[slot]` of
 *     every slot this transport has probed, from the subscription (mode 'subscribe', items added
 *     when a slot is first probed, sampling interval 0: exception-based on the server) or from
 *     the poll's Read (mode 'poll', in the same Read as the outputs). The first probe of a slot
 *     reads its response once first, so a value left from an earlier run is not reported as an
 *     answer: only a change is. Probes of one slot are written in order (one Write chain).
 */
const ot = require('../../nodes/lib/opcua/tags');
const { TransportError, createErrorCounter } = require('./common');
const tags = require('../../nodes/lib/core/tags');
const { createSide } = require('../../nodes/lib/opcua/session');

const DEFAULTS = {
  mode: 'poll', // 'poll' (study) or 'subscribe' (tuned)
  pollMs: 50, // study: "a coroutine executed at fixed intervals (50 ms)"
  publishingIntervalMs: 10, // subscribe mode
  samplingIntervalMs: 10, // subscribe mode
  user: 'twin',
  password: 'twin',
  plant: 'plant1',
  connectTimeoutMs: 15000, // connect() gives up after this
  maxProbeSlot: tags.PROBE_SLOTS - 1, // the cloud server has at most the PLC's probe slots (S7T_OPCUA_PROBE_SLOTS there)
  maxErrorCodes: 50, // distinct error codes remembered
};


// Inputs that some timed pair uses as a `with` condition: written before the triggers.
const CONDITIONS = new Set(tags.timedPairs().flatMap((p) => Object.keys(p.with)));

/**
 * @param {object} opts
 * @param {string} opts.url opc.tcp://host:port of the cloud OPC UA server (or opts.endpointUrl)
 * @param {'poll'|'subscribe'} [opts.mode]
 * @param {number} [opts.pollMs]
 * @param {number} [opts.publishingIntervalMs]
 * @param {number} [opts.samplingIntervalMs]
 * @param {string} [opts.user] twin account (default twin)
 * @param {string} [opts.password]
 * @param {string} [opts.plant]
 * @param {string} [opts.securityMode] None | Sign | SignAndEncrypt
 * @param {string} [opts.securityPolicy] None | Basic256Sha256
 * @param {string} [opts.pkiDir] client certificate folder
 * @param {(line: string) => void} [opts.log]
 */
function createTransport(opts = {}) {
  const o = { ...DEFAULTS, ...opts };
  const url = o.url || o.endpointUrl;
  if (!url || !/^opc\.tcp:\/\//.test(url)) throw new TransportError('E_TRANSPORT_CONFIG', 'the opcua transport needs a url (opc.tcp://host:port)');
  if (o.mode !== 'poll' && o.mode !== 'subscribe') throw new TransportError('E_TRANSPORT_CONFIG', `mode must be poll or subscribe, got ${JSON.stringify(o.mode)}`);
  const pollMs = Number(o.pollMs);
  if (!(pollMs >= 1)) throw new TransportError('E_TRANSPORT_CONFIG', `pollMs must be >= 1, got ${o.pollMs}`);
  const plant = ot.checkPlant(o.plant);
  const log = o.log || (() => {});
  const states = ot.cloudTags().filter((t) => t.dir === 'out');
  const stateIds = states.map((t) => ot.cloudNodeId(t, { plant }));
  const tagOfId = new Map(states.map((t, i) => [stateIds[i], t]));
  const side = createSide({
    name: 'twin',
    endpointUrl: url,
    credentials: { user: String(o.user), password: String(o.password) },
    securityMode: o.securityMode,
    securityPolicy: o.securityPolicy,
    pkiDir: o.pkiDir,
    publishingIntervalMs: Number(o.publishingIntervalMs),
    samplingIntervalMs: Number(o.samplingIntervalMs),
    // States are monitored only for a transport that has an onValues callback (see connect):
    // a load-test twin that only probes would otherwise cost the server 11 sampled items each.
    monitor: [],
  });
  const valueCbs = [];
  const image = {}; // every input value sent so far (written whole after a reconnect)
  const outputs = {}; // last output values handed to the twin
  const stats = { sent: 0, received: 0, errors: 0, errorCodes: {}, polls: 0, pollErrors: 0, coalesced: 0, resyncs: 0, probes: 0, probeAnswers: 0 };
  const probeCbs = [];
  const probeRes = new Map(); // slot -> last response value seen (primed by a Read on first use)
  const probeReady = new Map(); // slot -> promise: the slot's response primed (and monitored)
  const resIdOf = (slot) => ot.probeNodeId('res', slot);
  let pollTimer = null;
  let polling = false;
  let closed = false;
  let writing = null; // the Write in flight; the next one waits for it (keeps their order)
  let sessions = 0;

  const countError = createErrorCounter(stats, { max: o.maxErrorCodes, log, label: 'opcua transport' });

  function deliver(values, kind) {
    const changed = {};
    for (const [k, v] of Object.entries(values)) if (kind === 'snap' || outputs[k] !== v) changed[k] = v;
    Object.assign(outputs, values);
    if (!Object.keys(changed).length) return;
    stats.received += 1;
    for (const cb of valueCbs) cb(changed, kind);
  }

  function decode(results) {
    const values = {};
    for (const r of results) {
      const tag = tagOfId.get(r.nodeId);
      if (tag && r.good) values[tag.short] = ot.fromVariant(tag, r.value);
    }
    return values;
  }

  async function snapshot() {
    try {
      deliver(decode(await side.read(stateIds)), 'snap');
    } catch (err) {
      countError(err.code || 'E_READ', err.message);
    }
  }

  /** A probe response value: reported only when it changed (see the header). */
  function probeValue(slot, value) {
    if (!probeRes.has(slot) || probeRes.get(slot) === value) return;
    probeRes.set(slot, value);
    stats.probeAnswers += 1;
    for (const cb of probeCbs) cb(slot, value);
  }

  /** Before a slot's first probe: read its response (the baseline), then monitor it when subscribing. */
  function primeProbe(slot) {
    let p = probeReady.get(slot);
    if (p) return p;
    p = (async () => {
      const [r] = await side.read([resIdOf(slot)]);
      if (!r.good) throw Object.assign(new TransportError('E_PROBE_SLOT', `probe slot ${slot}: ${r.status} (more slots than the server's S7T_OPCUA_PROBE_SLOTS?)`));
      if (!probeRes.has(slot)) probeRes.set(slot, Number(r.value));
      if (o.mode === 'subscribe') await side.addMonitor([resIdOf(slot)], { samplingIntervalMs: 0 });
    })();
    probeReady.set(slot, p);
    p.catch(() => probeReady.delete(slot)); // tried again by the next probe of the slot
    return p;
  }

  async function poll() {
    if (polling || !side.connected) return;
    polling = true;
    stats.polls += 1;
    try {
      const slots = [...probeRes.keys()];
      const results = await side.read(slots.length ? stateIds.concat(slots.map(resIdOf)) : stateIds);
      for (let k = 0; k < slots.length; k++) {
        const r = results[stateIds.length + k];
        if (r.good) probeValue(slots[k], Number(r.value));
      }
      deliver(decode(results.slice(0, stateIds.length)), 'state');
    } catch (err) {
      stats.pollErrors += 1;
      countError(err.code || 'E_READ', err.message);
    } finally {
      polling = false;
    }
  }

  function write(values) {
    const keys = Object.keys(values).sort((a, b) => Number(CONDITIONS.has(b)) - Number(CONDITIONS.has(a)));
    const items = [];
    for (const k of keys) {
      const tag = tags.get(k);
      if (!tag || tag.dir !== 'in') { countError('E_UNKNOWN_TAG', `not an input: ${k}`); continue; }
      let v;
      try { v = ot.toVariant(tag, values[k]); } catch (err) { countError(err.code, err.message); continue; }
      items.push({ nodeId: ot.cloudNodeId(tag, { plant }), dataType: v.dataType, value: v.value });
    }
    if (!items.length) return;
    stats.sent += 1;
    const prev = writing || Promise.resolve();
    const p = prev.then(() => side.write(items)).then((results) => {
      for (const r of results) if (!r.good) countError(r.status, r.nodeId);
    }, (err) => countError(err.code || 'E_WRITE', err.message));
    writing = p;
    p.finally(() => { if (writing === p) writing = null; });
  }

  side.on('values', (batch) => {
    const values = {};
    for (const n of batch) {
      const tag = tagOfId.get(n.nodeId);
      if (!tag) {
        const id = ot.parseProbeNodeId(n.nodeId);
        if (id && id.kind === 'res' && n.status && n.status.isGood()) probeValue(id.slot, Number(n.value));
        continue;
      }
      if (tag && n.status && n.status.isGood()) values[tag.short] = ot.fromVariant(tag, n.value);
    }
    deliver(values, 'state');
  });
  side.on('session', () => {
    sessions += 1;
    if (sessions === 1) return; // the first session: connect() takes the snapshot
    stats.resyncs += 1;
    if (Object.keys(image).length) write({ ...image });
    snapshot();
  });

  return {
    /** Open the session; resolves once connected with a first snapshot delivered. */
    async connect() {
      if (closed) throw new TransportError('E_CLOSED', 'transport closed');
      let timer;
      const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new TransportError('E_CONNECT_TIMEOUT', `no session on ${url} within ${o.connectTimeoutMs} ms`)), o.connectTimeoutMs);
      });
      if (o.mode === 'subscribe' && valueCbs.length) await side.addMonitor(stateIds); // part of the first subscription
      try {
        await Promise.race([side.connect(), timeout]);
      } catch (err) {
        await side.close();
        throw err.code === 'E_SESSION' ? new TransportError('E_UNAUTHORIZED', err.message) : err;
      } finally {
        clearTimeout(timer);
      }
      await snapshot();
      if (o.mode === 'poll') pollTimer = setInterval(poll, pollMs);
    },
    /** Write every input that changed in one tick, in one Write request. */
    send(values) {
      if (!values || !Object.keys(values).length) return;
      Object.assign(image, values);
      if (side.connected) write(values); else stats.coalesced += 1; // written whole on reconnect
    },
    onValues(cb) {
      valueCbs.push(cb);
      // Registered after connect(): start monitoring the states now.
      if (o.mode === 'subscribe' && side.connected) side.addMonitor(stateIds).catch((err) => countError(err.code || 'E_SUBSCRIBE', err.message));
    },
    /**
     * Write `value` to probe request slot `slot` on the cloud server; the answer comes through
     * onProbe. Errors (bad slot or value, not connected, refused) are counted, never thrown.
     * @param {number} slot 0..maxProbeSlot
     * @param {number} value UInt32
     */
    probe(slot, value) {
      if (!tags.isProbeSlot(slot, o.maxProbeSlot + 1)) { countError('E_PROBE_SLOT', `probe slot ${slot}`); return; }
      try { ot.checkProbeValue(value); } catch (err) { countError(err.code, err.message); return; }
      if (!side.connected) { countError('E_NOT_CONNECTED', 'probe while disconnected'); return; }
      stats.probes += 1;
      const item = { nodeId: ot.probeNodeId('req', slot), dataType: 'UInt32', value };
      const prev = writing || Promise.resolve();
      const p = prev.then(() => primeProbe(slot)).then(() => side.write([item])).then((results) => {
        for (const r of results) if (!r.good) countError(r.status, r.nodeId);
      }, (err) => countError(err.code || 'E_WRITE', err.message));
      writing = p;
      p.finally(() => { if (writing === p) writing = null; });
    },
    /** @param {(slot: number, value: number) => void} cb called with every changed probe response */
    onProbe(cb) { probeCbs.push(cb); },
    /** Close for good: poll timer, session and connection. */
    async close() {
      closed = true;
      if (pollTimer) clearInterval(pollTimer);
      pollTimer = null;
      if (writing) await writing.catch(() => {});
      await side.close();
    },
    stats() {
      const s = side.stats();
      return {
        ...stats, errorCodes: { ...stats.errorCodes }, connected: side.connected, mode: o.mode,
        bytesOut: s.bytesOut, bytesIn: s.bytesIn, writes: s.writes, reads: s.reads, notifications: s.notifications,
        reconnects: s.reconnects, connectionsLost: s.connectionsLost,
      };
    },
  };
}

module.exports = { DEFAULTS, TransportError, createTransport };
