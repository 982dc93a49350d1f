'use strict';
/**
 * What the edge's `s7twin-s7` node does, without Node-RED: streams PLC changes as `state`
 * envelopes and `snap`s (the first read after each connect, and on request), and answers every
 * request (cmd, probe) exactly once (lib/s7/requests.js); a command with an idempotency key is
 * written at most once (lib/s7/keyed.js). The node wires this to its config node's connection,
 * its output and its status.
 *
 * One state per PLC scan, not per read: right after a write the edge reads again at once (the
 * chase, lib/s7/read-pacer.js), and that read shows the inputs just written before the PLC has
 * scanned them; its outputs change a scan later. A read whose changes are all inputs is held for
 * at most `holdMs` (one scan and a margin) and goes out merged with the next read that changes an
 * output, so a command costs one state, not two. Outputs are never held.
 */
const envelope = require('../core/envelope');
const { tableOf } = require('../core/io-table');
const { createStateDiffer } = require('./edge');
const { createProbeTracker } = require('./probes');
const { MAX_ITEMS } = require('./job');
const { createRequests, lateness, answerFields } = require('./requests');
const { createKeyedCommands } = require('./keyed');
const { createKeyStore } = require('./key-store');

const PROBE_TIMEOUT_MS = 5000; // a probe whose response slot never shows its value is answered E_PROBE_TIMEOUT
const HOLD_MS = 12; // how long input-only changes wait for the scan's outputs (a 10 ms scan and a margin)

/**
 * States out of reads, one per scan: input-only changes wait (at most holdMs) for the outputs of
 * the scan that takes them, and go out in the same frame.
 * @param {number} holdMs 0: every read with changes is a state at once
 * @param {(d: object) => void} emitState
 * @param {object} [table] the plant's I/O table (which tags are inputs; default the demo plant's)
 * @returns {{changed(d: object): void, clear(): void}}
 */
function createScanMerger(holdMs, emitState, table) {
  const io = tableOf(table);
  const isInput = (short) => { const t = io.get(short); return Boolean(t && t.dir === 'in'); };
  let held = null;
  let timer = null;
  const flush = () => {
    clearTimeout(timer);
    timer = null;
    if (!held) return;
    const d = held;
    held = null;
    emitState(d);
  };
  return {
    changed(d) {
      const keys = Object.keys(d);
      if (!keys.length) return;
      held = held ? Object.assign(held, d) : { ...d };
      if (holdMs <= 0 || !keys.every(isInput)) { flush(); return; }
      if (!timer) timer = setTimeout(flush, holdMs);
    },
    /** Forget what waits (a snap carries every value; the connection is gone). */
    clear() { clearTimeout(timer); timer = null; held = null; },
  };
}

/** The node's status for a connection state (lib/runtime/status.js kinds). */
function statusOf(state, detail) {
  if (state === 'connected') return ['connected', 'PLC connected'];
  if (state === 'connecting') return ['connecting', 'connecting to PLC'];
  return ['disconnected', detail === 'closed' ? 'PLC disconnected' : 'PLC down'];
}

/** The node's counters, all zero. */
function newCounters() {
  return {
    cmds: 0, acks: 0, refused: 0, writeErrors: 0, states: 0, snaps: 0, probes: 0, probeRes: 0,
    probeTimeouts: 0, invalid: 0, expired: 0, superseded: 0,
    keyRepeats: 0, keyReused: 0, keyAsks: 0, keyRefused: 0, // idempotency keys (lib/s7/keyed.js)
  };
}

/**
 * @param {object} b
 * @param {import('node:events').EventEmitter & object} b.conn lib/s7/connection.js (shared)
 * @param {string} b.src this edge's envelope source
 * @param {object} [b.table] the plant's I/O table (default: the demo plant's): what a command may
 *   write and how the areas read decode
 * @param {number} [b.probeTimeoutMs] see PROBE_TIMEOUT_MS
 * @param {number} [b.holdMs] see HOLD_MS (0: a state per read with changes)
 * @param {object} [b.keyStore] lib/s7/key-store.js (default: one in memory only; the node passes
 *   one kept in a file of the Node-RED user directory, so keys survive a restart)
 * @param {(msg: object) => void} b.send a message out of the node
 * @param {(kind: string, text: string) => void} b.setStatus
 * @returns {{counters: object, input(msg: object, done: (err?: Error) => void): void,
 *   stats(): object, close(): void}}
 */
function createS7Bridge(b) {
  const { conn } = b;
  const counters = newCounters();
  const sender = envelope.createSender(b.src); // one sender per node: seq continues across reconnects
  const differ = createStateDiffer(b.table);
  let snapNext = true; // the first read after (re)connect goes out as a snap
  const merger = createScanMerger(b.holdMs ?? HOLD_MS, (d) => {
    counters.states += 1;
    emit(sender.make('state', { d }));
  }, b.table);

  const emit = (env, client) => {
    const msg = { topic: env.k, payload: env };
    if (client !== undefined) msg._client = client;
    b.send(msg);
  };
  const answerErr = (err, about, client) => {
    const ref = about && about.src && about.seq ? { src: about.src, seq: about.seq } : undefined;
    const env = sender.error(err.code || 'E_INTERNAL', err.message, ref, about && about.cid, about && about.dl);
    if (err.d) env.d = err.d; // a probe frame written in part: the slots that were
    // The edge's answer about a keyed command echoes its key, unless the key was not recorded.
    if (about && about.key !== undefined && about.k === 'cmd' && !err.unrecorded) env.key = about.key;
    if (err.repeat) env.repeat = true;
    emit(env, client);
  };
  const probes = createProbeTracker({
    reads: conn, responseDb: tableOf(b.table).TABLE.plc.probeResponseDb,
    maxRanges: Math.max(1, MAX_ITEMS - conn.ioAddrs.length), timeoutMs: b.probeTimeoutMs || PROBE_TIMEOUT_MS, counters,
    onAnswer: (f) => emit(sender.make('probe-res', { d: f.got, ...answerFields(f.about) }), f.client),
    onFail: (f, code, message) => answerErr({ code, message }, f.about, f.client),
  });
  const answer = (k, fields, client) => emit(sender.make(k, fields), client);
  const requests = createRequests({ conn, counters, probes, answerErr, table: b.table, answer });
  const keyStore = b.keyStore || createKeyStore({ file: null });
  const keyed = createKeyedCommands({ store: keyStore, counters, requests, answer, answerErr });

  const handlers = {
    status: (s, detail) => b.setStatus(...statusOf(s, detail)),
    connect: () => { snapNext = true; differ.reset(); merger.clear(); },
    disconnect: (err) => { merger.clear(); probes.lost(err); },
    data(areas, extra) {
      const { values, changed, first } = differ.update(areas);
      if (snapNext || first) {
        snapNext = false;
        merger.clear();
        counters.snaps += 1;
        emit(sender.make('snap', { d: values }));
      } else {
        merger.changed(changed);
      }
      probes.seen(extra);
    },
  };
  for (const [ev, fn] of Object.entries(handlers)) conn.on(ev, fn);
  handlers.status(conn.state);

  /** A snapshot request: the next read (right away) goes out as a snap, fresh values, not cached ones. */
  function snapshot(msg) {
    if (!conn.connected) {
      answerErr({ code: 'E_PLC_DOWN', message: 'no snapshot: the PLC is not connected (one follows when it is)' }, null, msg._client);
      return;
    }
    snapNext = true;
    conn.readSoon();
  }

  /** One message in: a snapshot request or an envelope (string, Buffer or object). */
  function input(msg, done) {
    const p = msg.payload;
    if (msg.topic === 'snapshot' || (p && p.k === 'snap-request')) { snapshot(msg); done(); return; }
    let env;
    try {
      env = typeof p === 'string' || Buffer.isBuffer(p) ? envelope.parse(p) : envelope.validate(p);
    } catch (err) {
      counters.invalid += 1;
      answerErr(err, err.ref, msg._client);
      done(err);
      return;
    }
    // A keyed command: what its key says comes first (a repeat is answered even when late).
    if (env.k === 'cmd' && env.key !== undefined) { keyed.command(env, msg, done); return; }
    const late = envelope.REQUEST_KINDS.has(env.k) ? lateness(env, msg) : null;
    if (late) {
      counters[env.k === 'cmd' ? 'cmds' : 'probes'] += 1;
      counters.expired += 1;
      answerErr({ code: 'E_EXPIRED', message: `${env.k} not written: ${late}` }, env, msg._client);
      done();
    } else if (env.k === 'cmd') {
      requests.command(env, msg, done);
    } else if (env.k === 'probe') {
      requests.probe(env, msg, done);
    } else {
      counters.refused += 1;
      answerErr({ code: 'E_KIND', message: `s7twin-s7 takes cmd, probe and snap-request frames, not "${env.k}"` }, env, msg._client);
      done();
    }
  }

  return {
    counters,
    input,
    /** The counters and what waits, for the /s7twin/stats registry. */
    stats: () => ({
      ...counters, pendingProbes: probes.pendingSlots, probeRanges: probes.rangesRead, src: b.src, seq: sender.seq,
      keys: keyStore.size, keyStore: { ...keyStore.counters },
    }),
    /** Stop listening to the connection and forget every probe (their ranges leave the read). */
    close() {
      for (const [ev, fn] of Object.entries(handlers)) conn.removeListener(ev, fn);
      merger.clear();
      probes.close();
      keyStore.close();
    },
  };
}

module.exports = { createS7Bridge, createScanMerger, newCounters, statusOf, PROBE_TIMEOUT_MS, HOLD_MS };
