'use strict';
/**
 * The command log of a whole fleet, read on any of its instances: this instance's own chain from
 * its file, every other chain from its shared copy on Redis (lib/history/audit-share.js), each
 * chain's links checked from its first entry on (lib/history/audit-chain.js), each chain's
 * commands joined with their outcomes (lib/history/audit-query.js), all of them merged by
 * arrival, and a command left in doubt on one instance settled by its key's later answer on
 * another (settleByKey).
 *
 * What the shared copies prove: that each chain is whole and unedited from its first entry to
 * the newest copied one (Redis holds no hash that does not follow from the entries before it).
 * What they do not: that the copy is as long as the file (an instance whose copy lags, or a
 * stream cut at its end, looks like a shorter chain; the owning instance's file and head decide),
 * nor that nobody able to write both the file and Redis rewrote a chain and its copy together.
 *
 * Plain module over an ioredis client (the copy's, lib/history/audit-store.js).
 */
const { KEYS } = require('../fleet/keys');
const { createVerifier } = require('./audit-chain');
const { createCommandJoin, settleByKey, queryCommands, MAX_COMMANDS } = require('./audit-query');
const { chainId, findEntry } = require('./audit-share');

const PAGE = 5000; // stream entries one XRANGE reads

/** A chain's verdict as the answer shows it. */
function verdictOf(v, info) {
  const r = v.end();
  return { ...info, entries: r.entries, head: r.tip, ok: r.ok, ...(r.bad ? { bad: { entry: r.bad.line, why: r.bad.why } } : {}) };
}

/** Rows whose command or outcome entry is past a chain's first bad entry cannot be trusted: marked. */
function markUnverified(rows, verdict) {
  if (verdict.ok) return;
  for (const r of rows) if (r.n > verdict.head.n || r.outcomeN > verdict.head.n) r.unverified = true;
}

/**
 * One other instance's chain from its stream.
 * @returns {Promise<{result: object, verdict: object}>}
 */
async function readChain(redis, chain, info, q) {
  const v = createVerifier();
  const join = createCommandJoin(q, chain);
  let after = '-';
  for (;;) {
    const page = await redis.xrange(KEYS.auditChain(chain), after, '+', 'COUNT', PAGE);
    for (const [, fields] of page) {
      const line = fields[fields.indexOf('e') + 1];
      v.line(line);
      let e = null;
      try { e = JSON.parse(line); } catch { /* the verifier names it */ }
      join.entry(e);
    }
    if (page.length < PAGE) break;
    after = `(${page[page.length - 1][0]}`;
  }
  const result = join.result();
  const verdict = verdictOf(v, { chain, ...info, own: false });
  markUnverified(result.rows, verdict);
  return { result, verdict };
}

/**
 * @param {object} o
 * @param {string} o.file this instance's chain file
 * @param {object} o.redis an ioredis client
 * @param {{plant?: string|string[], from?: number, to?: number, limit?: number}} o.q lib/history/audit-query.js
 * @returns {Promise<{rows: object[], notes: object[], truncated: boolean, entries: number, chains: object[], complete: boolean, error?: string}>}
 *   complete false: the other instances' chains could not be read (error says why): only this one's
 */
async function queryFleetCommands(o) {
  const { q } = o;
  const limit = q.limit || MAX_COMMANDS;
  const start = await findEntry(o.file, 0).catch((err) => { if (err.code === 'ENOENT') return { first: null }; throw err; });
  const ownChain = start.first ? chainId(start.first) : null;
  const ownV = createVerifier();
  const own = await queryCommands(o.file, q, { onLine: (l) => ownV.line(l), chain: ownChain || undefined });
  const ownVerdict = verdictOf(ownV, { chain: ownChain, own: true, file: o.file });
  markUnverified(own.rows, ownVerdict);
  const parts = [own];
  const chains = [ownVerdict];
  let error;
  try {
    const listed = await o.redis.hgetall(KEYS.auditChains);
    for (const chain of Object.keys(listed).sort()) {
      if (chain === ownChain) continue;
      let info = {};
      try { info = JSON.parse(listed[chain]); } catch { /* a name without its details */ }
      const { result, verdict } = await readChain(o.redis, chain, { host: info.host, file: info.file, since: info.since }, q);
      parts.push(result);
      chains.push(verdict);
    }
  } catch (err) {
    error = `the other instances' command logs could not be read from Redis: ${err.message}`;
  }
  let rows = parts.flatMap((p) => p.rows);
  rows.sort((a, b) => a.arrived - b.arrived); // stable: each chain's own order within a millisecond
  settleByKey(rows);
  const truncated = parts.some((p) => p.truncated) || rows.length > limit;
  if (rows.length > limit) rows = rows.slice(0, limit);
  const notes = parts.flatMap((p) => p.notes).sort((a, b) => a.t - b.t);
  const entries = parts.reduce((n, p) => n + p.entries, 0);
  return { rows, notes, truncated, entries, chains, complete: error === undefined, ...(error ? { error } : {}) };
}

module.exports = { queryFleetCommands, readChain };
