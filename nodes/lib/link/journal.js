'use strict';
/**
 * The edge's journal: the states it read while its link to the cloud was down, on disk, in order,
 * until the cloud has filed them (lib/link/forwarder.js sends them as `backfill` frames after the
 * reconnect; the cloud's answer drops them here).
 *
 * On disk, in one folder per plant (journalOptions below):
 *
 *   journal.json                 {id, acked}: the journal's id (its frames' sender id is
 *                                `journal-<id>`) and the number of the newest record the cloud has
 *                                answered; written to a temporary file and renamed over it
 *   0000000000000001.jnl, …      segments, each named after the number of its first record: one JSON
 *                                line per record, {j, ts, ct?, d, of?} (lib/core/envelope.js backfill)
 *
 * - Append-only: a record is one write(2) of one line to the newest segment. Past `segmentBytes`
 *   the next record starts a new segment.
 * - Bounded: past `maxBytes` on disk the oldest segment is deleted whole (one unlink, however many
 *   records it holds), and the records it held that the cloud had not answered are counted
 *   (`dropped`). A segment is at most a quarter of the bound, so at least three quarters of it
 *   hold the newest records.
 * - Durability: each record is written at once (a killed or crashed Node-RED loses nothing: the
 *   kernel has it), and the segment is fdatasync'ed at most once every `syncMs` (1 s), off the
 *   event loop, and whenever a segment is finished or the journal is closed: a power cut loses at
 *   most the last second. A sync per record would cost a flash write per state (milliseconds each
 *   on an SD card or an industrial PC's eMMC, and its wear) for states that the next second's sync
 *   keeps anyway.
 * - Survives a restart: reopened on start, numbering goes on after the newest record (or the
 *   newest answered one, when every segment is gone). A last line cut short by a crash, or any
 *   line that does not read as a record, is skipped and counted (`torn`), never a crash; the
 *   newest segment is cut back to its last whole record so appends go on cleanly.
 * - Disk trouble (full, no permission) is counted (`writeErrors`) and reported once per run of
 *   failures (`onError`); the record is lost (counted in `dropped`), the link goes on.
 *
 * Plain module (node:fs); the link client node keeps one per plant and hands it to the dialer.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const { codedError } = require('../core/errors');

/** Error with a stable `code`: E_JOURNAL (a bad size setting, a folder that cannot be used). */
const JournalError = codedError('JournalError');

const MIB = 1024 * 1024;
const DEFAULTS = {
  maxBytes: 64 * MIB, // on disk at most; the oldest segment goes first
  segmentBytes: 4 * MIB, // a new segment past this (at most maxBytes / 4)
  syncMs: 1000, // fdatasync at most this often while records are appended
  readBytes: 256 * 1024, // bytes read from a segment at once
};
const META = 'journal.json';
/** Folders of the journals open in this process: two writers on one folder would mix their numbers. */
const openDirs = new Set();
const SEGMENT_RE = /^(\d{16})\.jnl$/;
const segmentName = (first) => `${String(first).padStart(16, '0')}.jnl`;

/**
 * Where a link client's journal is and how big it may grow: the node's `journalDir` setting, else
 * S7T_JOURNAL_DIR, else `s7twin-journal` in the Node-RED user directory (relative paths are
 * relative to it), one folder per plant under it; at most the node's `journalMiB`, else
 * S7T_JOURNAL_MIB, else 64 MiB (0 turns store and forward off).
 * @param {{journalDir?: string, journalMiB?: string|number}} config the node's settings
 * @param {{userDir?: string}} settings Node-RED's settings
 * @param {string} plant the plant the link serves
 * @param {object} [env]
 * @returns {{dir: string, maxBytes: number}|null} null: store and forward is off
 * @throws {JournalError} E_JOURNAL a size that is not a number of MiB
 */
function journalOptions(config, settings, plant, env = process.env) {
  const raw = [config.journalMiB, env.S7T_JOURNAL_MIB].find((x) => x !== undefined && x !== null && String(x).trim() !== '');
  const mib = raw === undefined ? DEFAULTS.maxBytes / MIB : Number(raw);
  if (!Number.isFinite(mib) || mib < 0) {
    throw new JournalError('E_JOURNAL', `the journal's size is a number of MiB (0: no journal), not ${JSON.stringify(raw)}`);
  }
  if (mib === 0) return null;
  const base = (settings && settings.userDir) || path.join(os.tmpdir(), `s7twin-${process.pid}`);
  const dir = path.resolve(base, String(config.journalDir || '').trim() || env.S7T_JOURNAL_DIR || 's7twin-journal');
  // A plant id may be "." or ".." (lib/core/plants.js): never a folder above the journal's.
  return { dir: path.join(dir, /^\.+$/.test(plant) ? `_${plant}` : plant), maxBytes: Math.round(mib * MIB) };
}

/** Write a small file whole: a temporary file renamed over it. */
function writeWhole(file, text) {
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

/** The journal's id and answered mark, or a new id when the file is missing or unreadable. */
function readMeta(dir) {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(dir, META), 'utf8'));
    if (typeof m.id === 'string' && /^[0-9a-f]{1,32}$/.test(m.id) && Number.isSafeInteger(m.acked) && m.acked >= 0) return { id: m.id, acked: m.acked, fresh: false };
  } catch { /* missing or cut short: a new journal id (the cloud files a record once whatever its sender) */ }
  return { id: crypto.randomBytes(6).toString('hex'), acked: 0, fresh: true };
}

/**
 * One record line as a record, or null when it is not one.
 * @param {string} line
 * @returns {{j: number, ts: number, ct?: number, d: object, of?: object}|null}
 */
function parseRecord(line) {
  let r;
  try { r = JSON.parse(line); } catch { return null; }
  if (!r || typeof r !== 'object' || !Number.isSafeInteger(r.j) || r.j < 1 || typeof r.ts !== 'number' || !r.d || typeof r.d !== 'object') return null;
  return r;
}

/**
 * Read whole lines of a file from `offset` up to `end`, chunk by chunk.
 * @param {number} fd
 * @param {number} offset
 * @param {number} end bytes of the file that hold whole records
 * @param {number} chunk bytes per read
 * @param {(line: string, endOffset: number) => boolean} each false: stop
 * @returns {number} the offset after the last line handed to `each`
 */
function eachLine(fd, offset, end, chunk, each) {
  let pos = offset;
  const buf = Buffer.allocUnsafe(chunk);
  let carry = null;
  let carryAt = pos;
  while (pos < end) {
    const n = fs.readSync(fd, buf, 0, Math.min(chunk, end - pos), pos);
    if (n <= 0) break;
    let data = buf.subarray(0, n);
    if (carry) data = Buffer.concat([carry, data]);
    const base = carry ? carryAt : pos;
    pos += n;
    let start = 0;
    for (let i = data.indexOf(10); i >= 0; i = data.indexOf(10, start)) {
      const lineEnd = base + i + 1;
      if (!each(data.toString('utf8', start, i), lineEnd)) return lineEnd;
      start = i + 1;
    }
    carry = start < data.length ? Buffer.from(data.subarray(start)) : null;
    carryAt = base + start;
  }
  return carry ? carryAt : pos;
}

/** Write all of `buf` to `f` (a write may take only part of it). */
function writeAll(f, buf) {
  let off = 0;
  while (off < buf.length) off += fs.writeSync(f, buf, off, buf.length - off);
}

/**
 * Scan one segment: its records, and where its whole records end.
 * @param {string} dir
 * @param {string} name the segment's file name
 * @param {number} readBytes bytes per read
 * @returns {{first: number, last: number, count: number, bytes: number, file: string, torn: number, cut?: number}}
 *   torn: lines that are no record (a record cut short by a crash among them); cut: the file's size
 *   when bytes past its last whole record follow it
 */
function scanSegment(dir, name, readBytes) {
  const file = path.join(dir, name);
  const first = Number(SEGMENT_RE.exec(name)[1]);
  const s = { first, last: 0, count: 0, bytes: 0, file, torn: 0 };
  const f = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(f).size;
    const end = eachLine(f, 0, size, readBytes, (line, lineEnd) => {
      const r = parseRecord(line);
      if (r && r.j > s.last) { s.last = r.j; s.count += 1; s.bytes = lineEnd; } else s.torn += 1;
      return true;
    });
    // Bytes after the last whole line: a record cut short by a crash.
    if (end < size) s.torn += 1;
    if (s.bytes < size) s.cut = size;
  } finally {
    fs.closeSync(f);
  }
  return s;
}

/**
 * The newest segment's file, open for appends, and its syncs to the disk: fdatasync at most once
 * every `syncMs` while records are appended, off the event loop, and at once when the segment is
 * finished (a new one starts, the cloud has answered it whole, the journal closes).
 * @param {{syncMs: number, counters: {syncs: number}, fail: (err: Error) => void}} o
 * @returns {object} open, start(file), write(buf), truncate(bytes), abandon(), finish(), close()
 */
function createSegmentFile(o) {
  let fd = null;
  let dirty = false;
  let syncTimer = null;
  let syncing = null; // {fd, closeAfter}: an fdatasync in the thread pool
  let closed = false;

  function release(f) {
    if (syncing && syncing.fd === f) { syncing.closeAfter = true; return; }
    try { fs.closeSync(f); } catch { /* closed */ }
  }

  function syncSoon() {
    if (syncTimer || closed) return;
    syncTimer = setTimeout(() => {
      syncTimer = null;
      if (fd === null || !dirty || syncing) { if (dirty) syncSoon(); return; }
      dirty = false;
      const s = { fd, closeAfter: false };
      syncing = s;
      fs.fdatasync(s.fd, (err) => {
        syncing = null;
        if (err) { dirty = true; o.fail(err); } else o.counters.syncs += 1;
        if (s.closeAfter) { try { fs.closeSync(s.fd); } catch { /* closed */ } }
      });
    }, o.syncMs);
    syncTimer.unref?.();
  }

  /** The segment is finished (or the journal closes): on the disk before it is let go. */
  function finish() {
    if (fd === null) return;
    clearTimeout(syncTimer); syncTimer = null;
    if (dirty) {
      try { fs.fdatasyncSync(fd); o.counters.syncs += 1; } catch (err) { o.fail(err); }
      dirty = false;
    }
    release(fd);
    fd = null;
  }

  return {
    get open() { return fd !== null; },
    /** Finish the segment open now, and open `file` for appends. */
    start(file) { finish(); fd = fs.openSync(file, 'a'); },
    /** Append `buf` (throws when the disk refuses); synced soon. */
    write(buf) { writeAll(fd, buf); dirty = true; syncSoon(); },
    /** Cut the file back to `bytes` (a line written in part). */
    truncate(bytes) { fs.ftruncateSync(fd, bytes); },
    /** Let the file go without a sync (a segment that never took a record). */
    abandon() { release(fd); fd = null; },
    finish,
    /** Finish, and schedule no more syncs. */
    close() { finish(); closed = true; },
  };
}

/**
 * Records after `after` in the segments, oldest first, at most `max`; a read that follows the
 * last one goes on where it stopped (its cursor) instead of from a segment's start.
 * @param {{segments: object[], after: number, max: number, cursor: object|null, readBytes: number, fail: (err: Error) => void}} q
 * @returns {{out: object[], cursor: object|null}} the records, and where this read stopped
 */
function readRecords({ segments, after, max, cursor: at, readBytes, fail }) {
  const out = [];
  let cursor = at;
  for (const s of segments) {
    if (out.length >= max) break;
    if (!s.count || s.last <= after) continue;
    // Go on where the last read stopped, when this read follows it; else from the start.
    const from = cursor && cursor.file === s.file && cursor.after <= after ? cursor.offset : 0;
    let f;
    try { f = fs.openSync(s.file, 'r'); } catch (err) { if (err.code !== 'ENOENT') fail(err); continue; }
    try {
      const stop = eachLine(f, from, s.bytes, readBytes, (line, lineEnd) => {
        const r = parseRecord(line);
        if (r && r.j > after) { out.push(r); cursor = { file: s.file, offset: lineEnd, after: r.j }; }
        return out.length < max;
      });
      if (out.length < max) cursor = { file: s.file, offset: stop, after: s.last };
    } catch (err) {
      fail(err);
    } finally {
      fs.closeSync(f);
    }
  }
  return { out, cursor };
}

/**
 * The segments of a journal's folder that hold records the cloud has not answered, oldest first;
 * the others are deleted.
 * @param {string} dir
 * @param {number} acked the newest record the cloud has answered
 * @param {number} readBytes bytes per read
 * @returns {{segments: object[], torn: number}} torn: lines that were no record
 * @throws {JournalError} E_JOURNAL the folder cannot be read
 */
function loadSegments(dir, acked, readBytes) {
  let names;
  try {
    names = fs.readdirSync(dir).filter((n) => SEGMENT_RE.test(n)).sort();
  } catch (err) {
    throw new JournalError('E_JOURNAL', `the journal folder ${dir} cannot be read: ${err.message}`);
  }
  const segments = [];
  let torn = 0;
  for (const n of names) {
    const s = scanSegment(dir, n, readBytes);
    torn += s.torn;
    delete s.torn;
    if (!s.count || s.last <= acked) { // nothing left to send in it
      try { fs.unlinkSync(s.file); } catch { /* gone already */ }
      continue;
    }
    segments.push(s);
  }
  return { segments, torn };
}

/**
 * @param {object} opts DEFAULTS plus:
 * @param {string} opts.dir the journal's folder (made if missing)
 * @param {(err: Error) => void} [opts.onError] a write or sync failed (once per run of failures)
 * @returns {object} append, read, ack, counters, id, src, acked, pending, close
 * @throws {JournalError} E_JOURNAL the folder cannot be made or read
 */
function createJournal(opts) {
  const o = { ...DEFAULTS, ...opts };
  o.segmentBytes = Math.max(4096, Math.min(o.segmentBytes, Math.floor(o.maxBytes / 4)));
  const onError = o.onError || (() => {});
  const counters = {
    records: 0, bytes: 0, segments: 0, appended: 0, acked: 0, dropped: 0, torn: 0, writeErrors: 0, syncs: 0, failing: 0,
  };
  /** Segments oldest first: {first, last, count, bytes, file}; `last` 0 while empty. */
  const segments = [];
  let next = 1; // the next record's number
  let closed = false;
  let cursor = null; // where the last read stopped: {file, offset, after}

  const dirKey = path.resolve(o.dir);
  if (openDirs.has(dirKey)) throw new JournalError('E_JOURNAL', `the journal folder ${o.dir} is in use by another link of this Node-RED (one per plant)`);
  try {
    fs.mkdirSync(o.dir, { recursive: true });
  } catch (err) {
    throw new JournalError('E_JOURNAL', `the journal folder ${o.dir} cannot be made: ${err.message}`);
  }
  const meta = readMeta(o.dir);
  const newest = createSegmentFile({ syncMs: o.syncMs, counters, fail });
  let { acked } = meta;
  let ackedSaved = acked;

  function fail(err) {
    counters.writeErrors += 1;
    if (counters.failing === 0) onError(err);
    counters.failing += 1;
  }

  /** Records of a segment the cloud has not answered. */
  const unanswered = (s) => (s.count ? Math.max(0, s.last - Math.max(acked, s.first - 1)) : 0);
  function recount() {
    counters.records = segments.reduce((n, s) => n + unanswered(s), 0);
    counters.bytes = segments.reduce((n, s) => n + s.bytes, 0);
    counters.segments = segments.length;
  }

  function open() {
    const found = loadSegments(o.dir, acked, o.readBytes);
    counters.torn += found.torn;
    segments.push(...found.segments);
    const newest = segments[segments.length - 1];
    if (newest && newest.cut !== undefined) {
      try { fs.truncateSync(newest.file, newest.bytes); } catch (err) { fail(err); }
    }
    for (const s of segments) delete s.cut;
    next = Math.max(newest ? newest.last : 0, acked) + 1;
    if (meta.fresh) saveMeta();
    recount();
  }

  function saveMeta() {
    try {
      writeWhole(path.join(o.dir, META), `${JSON.stringify({ id: meta.id, acked })}\n`);
      ackedSaved = acked;
    } catch (err) { fail(err); }
  }

  /** Delete the oldest segment, counting what it held that the cloud had not answered. */
  function dropOldest() {
    const s = segments.shift();
    counters.dropped += unanswered(s);
    try { fs.unlinkSync(s.file); } catch (err) { if (err.code !== 'ENOENT') fail(err); }
  }

  function startSegment() {
    const s = { first: next, last: 0, count: 0, bytes: 0, file: path.join(o.dir, segmentName(next)) };
    newest.start(s.file);
    segments.push(s);
    return s;
  }

  open();
  openDirs.add(dirKey);

  return {
    counters,
    /** The journal's id; its frames' sender id is `journal-<id>`. */
    id: meta.id,
    src: `journal-${meta.id}`,
    dir: o.dir,
    /** The newest record the cloud has answered. */
    get acked() { return acked; },
    /** Records the cloud has not answered yet. */
    get pending() { return counters.records; },

    /**
     * Add one state at the end.
     * @param {{ts: number, ct?: number|null, d: object, of?: {src: string, seq: number}}} rec
     * @returns {number|null} its number, or null when it could not be written (counted)
     */
    append(rec) {
      if (closed) return null;
      const j = next;
      const line = { j, ts: rec.ts };
      if (Number.isFinite(rec.ct)) line.ct = rec.ct;
      line.d = rec.d;
      if (rec.of) line.of = rec.of;
      const buf = Buffer.from(`${JSON.stringify(line)}\n`);
      let s = segments[segments.length - 1];
      try {
        if (!newest.open || !s || (s.count > 0 && s.bytes + buf.length > o.segmentBytes)) s = startSegment();
        newest.write(buf);
      } catch (err) {
        fail(err);
        counters.dropped += 1;
        if (newest.open && s === segments[segments.length - 1]) {
          if (s.count === 0) {
            // A segment that never took a record: let it go, the next record starts a new one.
            newest.abandon();
            segments.pop();
            try { fs.unlinkSync(s.file); } catch { /* never made */ }
          } else {
            // A line written in part would read as torn: cut it off.
            try { newest.truncate(s.bytes); } catch { /* the next scan skips it */ }
          }
        }
        return null;
      }
      counters.failing = 0;
      next += 1;
      s.last = j;
      s.count += 1;
      s.bytes += buf.length;
      counters.appended += 1;
      let total = segments.reduce((n, x) => n + x.bytes, 0);
      while (total > o.maxBytes && segments.length > 1) {
        total -= segments[0].bytes;
        dropOldest();
      }
      recount();
      return j;
    },

    /**
     * Records after `after`, oldest first (those dropped meanwhile are skipped).
     * @param {number} after a record's number (the newest one sent, or answered)
     * @param {number} max at most this many
     * @returns {object[]} records {j, ts, ct?, d, of?}
     */
    read(after, max) {
      const r = readRecords({ segments, after, max, cursor, readBytes: o.readBytes, fail });
      cursor = r.cursor;
      return r.out;
    },

    /**
     * The cloud has dealt with every record up to `j`: they go (whole segments deleted).
     * @param {number} j
     */
    ack(j) {
      if (closed || !Number.isSafeInteger(j) || j <= acked) return;
      const before = counters.records;
      acked = Math.min(j, next - 1);
      while (segments.length && segments[0].count && segments[0].last <= acked) {
        const s = segments[0];
        if (s === segments[segments.length - 1]) newest.finish();
        segments.shift();
        try { fs.unlinkSync(s.file); } catch (err) { if (err.code !== 'ENOENT') fail(err); }
      }
      recount();
      counters.acked += Math.max(0, before - counters.records);
      if (acked !== ackedSaved) saveMeta();
    },

    /** Sync and close (the folder stays, with what the cloud has not answered). */
    close() {
      if (closed) return;
      newest.close();
      closed = true;
      if (acked !== ackedSaved) saveMeta();
      openDirs.delete(dirKey);
    },
  };
}

module.exports = { DEFAULTS, JournalError, journalOptions, createJournal, parseRecord };
