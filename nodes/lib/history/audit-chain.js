'use strict';
/**
 * The hash chain of the command log (lib/history/audit-log.js writes it, scripts/audit-verify.js
 * checks it): one JSON object per line, each carrying its number `n` (1, 2, 3, …), the hash of
 * the entry before it (`prev`) and its own (`hash`):
 *
 *   hash = SHA-256( prev + "\n" + canonical(entry without `hash`) )   (hex)
 *
 * The first entry's `prev` is GENESIS, a fixed anchor, so a log whose first lines were removed
 * is found as surely as one whose middle was edited. Canonical text (keys sorted at every depth,
 * no spaces) makes the hash independent of how the line was formatted, so a verifier in any
 * language can recompute it.
 *
 * What a chain cannot show alone is a cut at its end (the last entries removed): the writer also
 * keeps the newest entry's number and hash in a small head file beside the log (`<log>.head`), and
 * the verification compares the two. Whoever can rewrite both files and recompute every hash can
 * still forge a log; keep a copy of the head (the audit endpoint returns it) somewhere else to
 * rule that out.
 *
 * Plain functions over node:crypto.
 */
const crypto = require('node:crypto');
/** The `prev` of the first entry: SHA-256 of this fixed text, the same for every log. */
const GENESIS = crypto.createHash('sha256').update('s7twin command log v1').digest('hex');
const HEX64 = /^[0-9a-f]{64}$/;

/**
 * JSON text with keys sorted at every depth and no spaces.
 * @param {*} value plain JSON data
 * @returns {string}
 */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value === undefined ? null : value);
}

/**
 * The hash of an entry (its own `hash` field left out).
 * @param {object} entry with `prev`
 * @returns {string} 64 hex digits
 */
function entryHash(entry) {
  const { hash, ...rest } = entry;
  return crypto.createHash('sha256').update(`${rest.prev}\n${canonical(rest)}`).digest('hex');
}

/**
 * Seal an entry onto the chain: number it, link it, hash it.
 * @param {object} fields the entry's own fields (not n, prev, hash)
 * @param {{n: number, hash: string}} tip the chain's newest entry ({n: 0, hash: GENESIS} when empty)
 * @returns {object} the sealed entry (a new object)
 */
function seal(fields, tip) {
  const entry = { ...fields, n: tip.n + 1, prev: tip.hash };
  entry.hash = entryHash(entry);
  return entry;
}

/**
 * A verifier fed one line at a time (a file streamed line by line). The first problem found
 * stops it: later lines are not judged.
 * @returns {{line(text: string): boolean, end(head?: {n: number, hash: string}): {ok: boolean, entries: number,
 *   tip: {n: number, hash: string}, bad?: {line: number, why: string}}}}
 */
function createVerifier() {
  let tip = { n: 0, hash: GENESIS };
  let lineNo = 0;
  let bad = null;

  function fail(why) { bad = { line: lineNo, why }; return false; }

  return {
    /** Judge the next line; false once the chain is broken. */
    line(text) {
      if (bad) return false;
      lineNo += 1;
      if (text.trim() === '') return true; // a blank line holds no entry (numbers still count it)
      let e;
      try { e = JSON.parse(text); } catch { return fail('is not a whole JSON entry (edited, or a write cut short)'); }
      if (!e || typeof e !== 'object' || Array.isArray(e)) return fail('is not a JSON object');
      if (typeof e.hash !== 'string' || !HEX64.test(e.hash) || typeof e.prev !== 'string') return fail('has no hash or prev');
      if (e.n !== tip.n + 1) {
        return fail(`is entry ${e.n} where entry ${tip.n + 1} belongs (entries removed or reordered)`);
      }
      if (e.prev !== tip.hash) {
        return fail(tip.n === 0 ? 'does not start the chain (the first entries were removed?)'
          : 'does not follow the entry before it (an entry before it was edited, removed or moved)');
      }
      if (entryHash(e) !== e.hash) return fail('was edited after it was written (its hash does not match its content)');
      tip = { n: e.n, hash: e.hash };
      return true;
    },
    /**
     * The verdict; with the head file's content, a cut at the end is found too.
     * @param {{n: number, hash: string}} [head]
     */
    end(head) {
      if (!bad && head) {
        if (head.n > tip.n) { lineNo += 1; fail(`is missing: the log ends at entry ${tip.n} but its head says ${head.n} were written (the end was cut off)`); }
        else if (head.n === tip.n && head.hash !== tip.hash) { fail('does not match the head file (the last entry was replaced)'); }
      }
      return { ok: !bad, entries: tip.n, tip, ...(bad ? { bad } : {}) };
    },
  };
}

/**
 * Verify a log's text (tests, small logs).
 * @param {string} text the whole file
 * @param {{n: number, hash: string}} [head]
 * @returns {ReturnType<ReturnType<typeof createVerifier>['end']>}
 */
function verifyText(text, head) {
  const v = createVerifier();
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (const line of lines) if (!v.line(line)) break;
  return v.end(head);
}

module.exports = { GENESIS, canonical, entryHash, seal, createVerifier, verifyText };
