'use strict';
/**
 * A buffered, asynchronous CSV appender (the flow-timer node's and the headless twin's round-trip
 * files): lines are kept in memory and appended in one write per flush, so a round trip never
 * waits for the disk. Node only (node:fs); the browser twin's bundle stubs it.
 */
const fs = require('node:fs');
const path = require('node:path');
const { codedError } = require('../core/errors');
const { positiveOr } = require('../core/props');

/** Error with a stable `code`. */
const CsvError = codedError('CsvError');

const DEFAULTS = {
  flushMs: 1000, // buffer flushed at least every second
  flushLines: 1000, // ... or as soon as this many lines wait
};

/** Quote a CSV field when it needs it (RFC 4180). */
function csvField(v) {
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * A CSV appender: lines are flushed every `flushMs`, or once `flushLines` wait. The folder is
 * created if missing and `header` written once (when the file is new or empty).
 * @param {string} file
 * @param {{header: string, flushMs?: number, flushLines?: number, onError?: (err) => void}} opts
 */
function createCsvAppender(file, opts = {}) {
  const { header } = opts;
  if (typeof header !== 'string' || !header) throw new CsvError('E_CSV_HEADER', `a CSV file needs its header line, got ${JSON.stringify(header)}`);
  const flushMs = positiveOr(opts.flushMs, DEFAULTS.flushMs);
  const flushLines = positiveOr(opts.flushLines, DEFAULTS.flushLines);
  const onError = opts.onError || (() => {});
  let buf = [];
  let ready = null; // promise: folder made and header written
  let chain = Promise.resolve(); // one write in flight at a time, in order
  let closed = false;
  let written = 0;
  let errors = 0;
  const timer = setInterval(() => { flush(); }, flushMs);
  timer.unref?.(); // a browser's timer ids have no unref

  function prepare() {
    if (!ready) {
      ready = (async () => {
        await fs.promises.mkdir(path.dirname(path.resolve(file)), { recursive: true });
        let size;
        try { size = (await fs.promises.stat(file)).size; } catch { size = 0; }
        if (size === 0) await fs.promises.appendFile(file, `${header}\n`);
      })();
    }
    return ready;
  }

  /** Queue one line (without newline). */
  function write(line) {
    if (closed) return;
    buf.push(line);
    if (buf.length >= flushLines) flush();
  }

  /** Append what is buffered. Resolves when it is on disk; never rejects (errors counted). */
  function flush() {
    if (buf.length === 0) return chain;
    const lines = buf;
    buf = [];
    chain = chain.then(async () => {
      try {
        await prepare();
        await fs.promises.appendFile(file, `${lines.join('\n')}\n`);
        written += lines.length;
      } catch (err) {
        errors += 1;
        ready = null; // retry the folder/header next time (the folder may have been removed)
        onError(err);
      }
    });
    return chain;
  }

  /** Flush and stop the interval. */
  async function close() {
    clearInterval(timer);
    const p = flush();
    closed = true;
    await p;
  }

  return {
    file, write, flush, close,
    get buffered() { return buf.length; },
    get written() { return written; },
    get errors() { return errors; },
  };
}

module.exports = { DEFAULTS, CsvError, csvField, createCsvAppender };
