'use strict';
/**
 * The edge's record of idempotency keys: for every command key seen within `windowMs` (10 min),
 * what the command asked for (its values in canonical form, lib/core/envelope.js canonicalValues)
 * and its outcome once known. The edge is the authority on keys: a key is written at most once,
 * and every later command with it is answered with the first outcome (lib/s7/bridge.js).
 *
 * Kept across an edge restart in a small append-only file (one JSON line per event): a key is
 * recorded BEFORE its write starts (`begin`), its outcome after (`finish`). A key whose outcome
 * never made it to the file (the edge was killed with its write on the way) comes back as
 * E_OUTCOME_UNKNOWN: the write may or may not have reached the PLC, and it is never written again.
 * With `fsync` (the default) the begin line is on the disk before the write starts, so a power
 * cut cannot lose it either; without, a killed process loses nothing (the kernel has the line)
 * but a power cut may. The file is rewritten with the live keys only (a temporary file renamed
 * over it) once it holds more than twice as many lines as there are keys.
 *
 * Bounded: at most `maxKeys` keys and about `maxBytes` of them; a new key past either is refused
 * (the caller answers E_BUSY, nothing written) rather than forgetting a key within its window,
 * which could let a command be written twice. Keys older than the window are forgotten first.
 * Times are lib/core/clock.js now() (monotonic within a process, anchored to the wall clock), so
 * the window also holds across a restart as far as the wall clock does.
 *
 * Plain module (node:fs); lib/s7/bridge.js keeps one per s7twin-s7 node.
 */
const fs = require('node:fs');
const path = require('node:path');
const clock = require('../core/clock');
const { s7Error } = require('./errors');

const DEFAULTS = {
  windowMs: 10 * 60 * 1000, // a key is remembered at least this long after it was first seen
  maxKeys: 100000,
  maxBytes: 16 * 1024 * 1024, // keys, values and outcomes held, estimated as their JSON lines
  fsync: true, // the begin line is on the disk before the write starts
  compactMinLines: 1000, // never rewrite a file shorter than this
};

/** What one key costs in memory: its line, plus the map's own keep. */
const sizeOf = (line) => Buffer.byteLength(line) + 64;

/**
 * The keys a key file holds, in the order they were first seen: those first seen after `oldest`,
 * each with the outcome its file recorded (null: none came). A line cut short by a crash is passed
 * over.
 * @param {string} file
 * @param {number} oldest
 * @returns {{keys: Map<string, object>, lines: number}} lines: the file's readable lines
 */
function readKeyFile(file, oldest) {
  let text = '';
  try { text = fs.readFileSync(file, 'utf8'); } catch (err) { if (err.code !== 'ENOENT') throw err; }
  const keys = new Map();
  let lines = 0;
  for (const line of text.split('\n')) {
    if (!line) continue;
    let e;
    try { e = JSON.parse(line); } catch { continue; }
    if (!e || typeof e.k !== 'string') continue;
    lines += 1;
    const rec = keys.get(e.k);
    if (e.c !== undefined && !rec) {
      if (e.t > oldest) keys.set(e.k, { c: e.c, o: e.o || null, t: e.t, bytes: sizeOf(line), waiters: [] });
    } else if (rec && e.o) {
      rec.o = e.o;
    }
  }
  return { keys, lines };
}

/**
 * @param {object} [opts] see DEFAULTS, plus:
 * @param {string|null} [opts.file] the file (made with its folder); null: memory only (a restart forgets)
 * @param {() => number} [opts.now]
 * @returns {object} get(key), begin(key, canonical, cb), finish(key, outcome), counters, size, close()
 * @throws {S7Error} E_KEY_STORE the file cannot be opened or read
 */
function createKeyStore(opts = {}) {
  const o = { ...DEFAULTS, ...opts };
  const now = o.now || clock.now;
  /** key -> {c: canonical values, o: outcome|null (in flight), t: first seen, bytes, waiters: []} */
  const keys = new Map();
  const counters = { keys: 0, keyBytes: 0, loaded: 0, unknownAfterRestart: 0, compactions: 0, full: 0, storeErrors: 0, syncs: 0 };
  let bytes = 0;
  let lines = 0;
  let fd = null;
  let generation = 0; // counts compactions: a rewritten file was fsynced whole
  // Commands wait for their begin line to be on the disk in the order they began, so that the
  // writes they start keep the order the commands came in (fdatasync callbacks come back from
  // the thread pool in any order). One fdatasync covers every line written before it started.
  const syncQueue = []; // callbacks whose lines wait for the next fdatasync
  let syncing = false;

  function put(key, rec) {
    keys.set(key, rec);
    bytes += rec.bytes;
    counters.keys = keys.size;
    counters.keyBytes = bytes;
  }

  /** Forget keys older than the window (the oldest first: the map is in order of first sight). */
  function expire() {
    const oldest = now() - o.windowMs;
    for (const [key, rec] of keys) {
      if (rec.t > oldest || !rec.o) break; // one in flight stays until its outcome is in
      keys.delete(key);
      bytes -= rec.bytes;
    }
    counters.keys = keys.size;
    counters.keyBytes = bytes;
  }

  function append(obj) {
    if (fd === null) return;
    fs.writeSync(fd, `${JSON.stringify(obj)}\n`);
    lines += 1;
  }

  /** Read the file back: keys within the window, an outcome that never came is unknown. */
  function load() {
    const read = readKeyFile(o.file, now() - o.windowMs);
    lines += read.lines;
    for (const [key, rec] of read.keys) put(key, rec);
    for (const [key, rec] of keys) {
      if (rec.o) continue;
      counters.unknownAfterRestart += 1;
      rec.o = { k: 'err', code: 'E_OUTCOME_UNKNOWN', msg: 'the edge stopped with this command\'s write on its way: whether it was applied is unknown' };
      append({ k: key, o: rec.o, t: rec.t });
    }
    counters.loaded = keys.size;
  }

  /** Rewrite the file with the live keys only, once it has grown past twice their number. */
  function compact() {
    if (fd === null || lines < Math.max(o.compactMinLines, 2 * keys.size)) return;
    expire();
    const tmp = `${o.file}.tmp`;
    const out = fs.openSync(tmp, 'w');
    try {
      for (const [key, rec] of keys) fs.writeSync(out, `${JSON.stringify({ k: key, c: rec.c, t: rec.t, ...(rec.o ? { o: rec.o } : {}) })}\n`);
      fs.fsyncSync(out);
    } finally {
      fs.closeSync(out);
    }
    fs.renameSync(tmp, o.file);
    fs.closeSync(fd);
    fd = fs.openSync(o.file, 'a');
    lines = keys.size;
    generation += 1;
    counters.compactions += 1;
  }

  /** Make every line written so far durable, then call each waiting callback in order. */
  function flush() {
    if (syncing || !syncQueue.length) return;
    const batch = syncQueue.splice(0);
    if (fd === null) { for (const cb of batch) cb(new Error('the key file is closed')); return; }
    syncing = true;
    const gen = generation;
    counters.syncs += 1;
    fs.fdatasync(fd, (e) => {
      syncing = false;
      // A compaction meanwhile wrote and fsynced every key into a new file: the lines are safe.
      const err = e && generation === gen ? e : null;
      for (const cb of batch) cb(err);
      flush();
    });
  }

  if (o.file) {
    try {
      fs.mkdirSync(path.dirname(o.file), { recursive: true });
      fd = fs.openSync(o.file, 'a'); // first: the outcomes load() settles are appended
      load();
      compact();
    } catch (err) {
      throw s7Error('E_KEY_STORE', `the idempotency key file ${o.file} cannot be used: ${err.message}`);
    }
  }

  /**
   * Take a new key: its line in the file, the key in the map.
   * @returns {Error|null} E_BUSY (full) or E_KEY_STORE (the file cannot be written): not taken
   */
  function admit(key, canonical, outcome) {
    expire();
    const t = now();
    const entry = { k: key, c: canonical, t };
    if (outcome) entry.o = outcome;
    const line = JSON.stringify(entry);
    const size = sizeOf(line);
    if (keys.size >= o.maxKeys || bytes + size > o.maxBytes) {
      counters.full += 1;
      const window = `${Math.round(o.windowMs / 60000)} min`;
      return s7Error('E_BUSY', `the edge holds ${keys.size} idempotency keys of the last ${window}, as many as it keeps: not written`);
    }
    try {
      if (fd !== null) { fs.writeSync(fd, `${line}\n`); lines += 1; }
    } catch (err) {
      counters.storeErrors += 1;
      return s7Error('E_KEY_STORE', `the key could not be recorded (${err.code || err.message}): not written`);
    }
    put(key, { c: canonical, o: outcome || null, t, bytes: size, waiters: [] });
    return null;
  }

  /** The outcome of a key's command: recorded; @returns the commands that waited for it. */
  function finish(key, outcome) {
    const rec = keys.get(key);
    if (!rec || rec.o) return [];
    rec.o = outcome;
    try { append({ k: key, o: outcome, t: rec.t }); } catch { counters.storeErrors += 1; }
    try { compact(); } catch { counters.storeErrors += 1; }
    return rec.waiters.splice(0);
  }

  return {
    counters,
    get size() { return keys.size; },
    /**
     * What is known of `key`: null (never seen), or {c, o, waiters} (o null: its write is on its way).
     * @param {string} key
     */
    get(key) {
      expire();
      return keys.get(key) || null;
    },
    /**
     * Record a new key before its command is written; `cb(err)` once it is safe to write (with
     * fsync: the line is on the disk). err E_BUSY (full) or E_KEY_STORE (the file cannot be
     * written): nothing may be written (after a failed fsync the key keeps E_KEY_STORE as its
     * outcome; otherwise it is not recorded).
     * @param {string} key
     * @param {string} canonical the command's values (canonicalValues)
     * @param {(err?: Error) => void} cb
     */
    begin(key, canonical, cb) {
      const err = admit(key, canonical, null);
      if (err) { cb(err); return; }
      if (fd === null || !o.fsync) { cb(); return; }
      syncQueue.push((e) => {
        if (!e) { cb(); return; }
        counters.storeErrors += 1;
        const no = s7Error('E_KEY_STORE', `the key could not be recorded (${e.code || e.message}): not written`);
        finish(key, { k: 'err', code: no.code, msg: no.message });
        cb(no);
      });
      flush();
    },
    /**
     * The outcome of a key's command: recorded, and handed out to every command that waited.
     * @param {string} key
     * @param {{k: 'ack'}|{k: 'err', code: string, msg: string}} outcome
     * @returns {object[]} the waiters (whoever asked with the key while the write was on its way)
     */
    finish,
    /**
     * Record `key` with its outcome at once (a command refused before any write: too late, a bad
     * value, an `ask` for a key never seen). No fsync: nothing is written after it.
     * @returns {Error|null} E_BUSY or E_KEY_STORE when it could not be recorded
     */
    settle: (key, canonical, outcome) => admit(key, canonical, outcome),
    /** Close the file (the node is going away). */
    close() {
      if (fd !== null) { try { fs.closeSync(fd); } catch { /* already gone */ } }
      fd = null;
    },
  };
}

module.exports = { createKeyStore, DEFAULTS };
