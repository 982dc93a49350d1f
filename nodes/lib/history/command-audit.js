'use strict';
/**
 * What the command log records of each command the cloud takes, from a twin's WebSocket or the
 * REST endpoint: two entries per command, chained in one log (lib/history/audit-log.js).
 *
 *   cmd      when it arrived: `via` (ws | rest), `plant`, who sent it (`token`: the token's
 *            fingerprint, never the token; `role`; `user` where a login names one), `from` (the
 *            peer's address:port), `src`/`seq` (and `cid`, `key` when it carried them), its
 *            deadline `dl` on the cloud's clock, the `ttl` it asked for, and `d`, the values it
 *            asked to write. `t` is its arrival on the cloud's clock.
 *   outcome  when its one answer left: the same `plant`, `src`, `seq` (`key`), `outcome`
 *            (written | expired | refused | unknown | repeat), the answer's `code` and message
 *            for an err, and `plcAt`: for a written command, the time the edge saw the PLC take
 *            the write (the ack's timestamp, on the edge's clock). A repeat (a command whose
 *            idempotency key the edge had seen) also says what the first one's outcome was
 *            (`first`).
 *
 * The arrival is recorded before the command goes on, so a crash between the two still leaves
 * the command in the log (with no outcome). Answers to anything else (probes, a command this
 * recorder did not see arrive) are not recorded.
 *
 * Plain module; lib/history/audit-store.js keeps one per log for the runtime.
 */

/** The answer codes that mean "maybe written, maybe not". */
const UNKNOWN = new Set(['E_OUTCOME_UNKNOWN', 'E_TIMEOUT']);
const MSG_CHARS = 300; // an answer's message is kept to this length

/**
 * The outcome an answer stands for.
 * @param {{k: string, e?: {code: string}}} env an ack or err
 * @returns {'written'|'expired'|'unknown'|'refused'}
 */
function outcomeOf(env) {
  if (env.k === 'ack') return 'written';
  const code = env.e && env.e.code;
  if (code === 'E_EXPIRED') return 'expired';
  return UNKNOWN.has(code) ? 'unknown' : 'refused';
}

const keyOf = (plant, src, seq) => `${plant}\u0000${src}\u0000${seq}`;

/**
 * @param {object} o
 * @param {{append(fields: object): boolean}} o.log lib/history/audit-log.js
 * @param {number} [o.maxOpen] commands awaiting their answer that are remembered (oldest forgotten
 *   first: its answer is then not recorded, and counted)
 * @param {() => number} [o.now] the cloud's clock (lib/core/clock.js now)
 */
function createCommandAudit(o) {
  const maxOpen = o.maxOpen || 100000;
  const now = o.now || Date.now;
  // plant+src+seq -> {key, count}: commands seen arriving and not answered yet (count > 1: the
  // same ref arrived again before its answer, a duplicate that is answered on its own)
  const open = new Map();
  const counters = { commands: 0, outcomes: 0, forgotten: 0 };

  function remember(k, key) {
    const had = open.get(k);
    if (had) { had.count += 1; return; }
    if (open.size >= maxOpen) { open.delete(open.keys().next().value); counters.forgotten += 1; }
    open.set(k, { key, count: 1 });
  }

  function outcome(plant, ref, fields) {
    const k = keyOf(plant, ref.src, ref.seq);
    const had = open.get(k);
    if (!had) return false;
    const { key } = had;
    had.count -= 1;
    if (had.count === 0) open.delete(k);
    counters.outcomes += 1;
    o.log.append({ t: now(), kind: 'outcome', plant, src: ref.src, seq: ref.seq, ...(key === undefined ? {} : { key }), ...fields });
    return true;
  }

  return {
    counters,
    /**
     * A command arrived (before it goes on).
     * @param {object} a
     * @param {'ws'|'rest'} a.via
     * @param {string} a.plant
     * @param {{token?: string, role?: string, user?: string}} [a.who] never a token itself
     * @param {string} [a.from] the peer's address:port
     * @param {number} a.at its arrival, on the cloud's clock
     * @param {object} a.env the command (its dl stamped, when it got one)
     */
    arrived(a) {
      const { env } = a;
      if (!env || env.k !== 'cmd') return;
      counters.commands += 1;
      remember(keyOf(a.plant, env.src, env.seq), env.key);
      const who = a.who || {};
      o.log.append({
        t: a.at,
        kind: 'cmd',
        via: a.via,
        plant: a.plant,
        token: who.token,
        role: who.role,
        user: who.user,
        from: a.from,
        src: env.src,
        seq: env.seq,
        cid: env.cid,
        key: env.key,
        dl: env.dl,
        ttl: env.ttl,
        d: env.d,
      });
    },
    /**
     * An answer left for a twin (ack or err with a ref; anything else is ignored).
     * @param {string} plant
     * @param {object} env
     * @returns {boolean} recorded (it answers a command seen arriving)
     */
    answered(plant, env) {
      if (!env || !env.ref || (env.k !== 'ack' && env.k !== 'err')) return false;
      const first = outcomeOf(env);
      const fields = env.repeat ? { outcome: 'repeat', first } : { outcome: first };
      if (env.k === 'err' && env.e) Object.assign(fields, { code: env.e.code, msg: String(env.e.msg || '').slice(0, MSG_CHARS) });
      if (env.k === 'ack' && Number.isFinite(env.ts)) fields.plcAt = env.ts;
      return outcome(plant, env.ref, fields);
    },
    /**
     * A command refused where it arrived (no envelope made yet).
     * @param {string} plant
     * @param {{src: string, seq: number}} ref
     * @param {string} code
     * @param {string} msg
     */
    refused(plant, ref, code, msg) {
      return outcome(plant, ref, { outcome: 'refused', code, msg: String(msg || '').slice(0, MSG_CHARS) });
    },
  };
}

module.exports = { createCommandAudit, outcomeOf };
