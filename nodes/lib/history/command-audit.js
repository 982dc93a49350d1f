'use strict';
/**
 * What the command log records of each command the cloud takes: two entries per command, chained
 * in one log (lib/history/audit-log.js), whichever way it came:
 *
 * - from a twin's WebSocket or the REST endpoint (`arrived`, then `answered` or `refused`);
 * - from a flow of the cloud, through an s7twin-link-out node to the edge (`flowSent`, then the
 *   edge's answer with `answered(plant, env, {flow: true})`);
 * - on a path with no answer per command (the MQTT broker, the OPC UA server, the Modbus server:
 *   `taken`), one `cmd` entry that carries what the cloud did with it (`outcome`: `relayed`,
 *   `unchanged`, `refused`): the cloud decides as the command arrives.
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
 * Refused commands taken on the MQTT, OPC UA and Modbus paths are logged one by one up to a
 * budget per sender (lib/history/refusal-budget.js: the first 20 a minute of each path, plant,
 * user and source address); past it they are counted, and a `muted` entry says how many, by
 * code, when the sender's minute ends. A client that floods a broker with refused publishes so
 * never floods the log.
 *
 * Plain module; lib/history/audit-store.js keeps one per log for the runtime.
 */

const { createRefusalBudget, DEFAULTS: REFUSALS } = require('./refusal-budget');

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
/** The address of an `address:port` (the refusal budget counts per address, not per connection). */
const hostOf = (from) => (typeof from === 'string' && from.lastIndexOf(':') > 0 ? from.slice(0, from.lastIndexOf(':')) : from || '');
/** An entry without its undefined fields (JSON leaves them out anyway; tests compare entries). */
function defined(e) {
  for (const k of Object.keys(e)) if (e[k] === undefined) delete e[k];
  return e;
}

/**
 * @param {object} o
 * @param {{append(fields: object): boolean}} o.log lib/history/audit-log.js
 * @param {number} [o.maxOpen] commands awaiting their answer that are remembered (oldest forgotten
 *   first: its answer is then not recorded, and counted)
 * @param {() => number} [o.now] the cloud's clock (lib/core/clock.js now)
 * @param {object} [o.refusals] the refusal budget's options (lib/history/refusal-budget.js DEFAULTS)
 * @param {number} [o.sweepMs] how often senders' ended windows are summed up (0: only as refusals
 *   come, and on flush(); default the budget's window)
 */
function createCommandAudit(o) {
  const maxOpen = o.maxOpen || 100000;
  const now = o.now || Date.now;
  // plant+src+seq -> {key, count, flow}: commands seen arriving and not answered yet (count > 1:
  // the same ref arrived again before its answer, a duplicate that is answered on its own; flow:
  // a flow's command, answered by the edge endpoint rather than a twin's)
  const open = new Map();
  const counters = { commands: 0, outcomes: 0, forgotten: 0, flowCommands: 0, taken: 0, mutedRefusals: 0 };
  const budget = createRefusalBudget({
    ...(o.refusals || {}),
    now,
    onMuted(s) {
      o.log.append(defined({
        t: now(), kind: 'muted', via: s.sender.via, plant: s.sender.plant, user: s.sender.user, host: s.sender.host,
        overflow: s.sender.overflow, refused: s.muted, codes: s.codes, since: s.since, until: s.until,
      }));
    },
  });
  const sweepMs = o.sweepMs === undefined ? (o.refusals && o.refusals.windowMs) || REFUSALS.windowMs : o.sweepMs;
  const sweeper = sweepMs > 0 ? setInterval(() => budget.sweep(), sweepMs) : null;
  if (sweeper && sweeper.unref) sweeper.unref();

  function remember(k, key, flow) {
    const had = open.get(k);
    if (had) { had.count += 1; return; }
    if (open.size >= maxOpen) { open.delete(open.keys().next().value); counters.forgotten += 1; }
    open.set(k, { key, count: 1, flow });
  }

  function outcome(plant, ref, fields, flow) {
    const k = keyOf(plant, ref.src, ref.seq);
    const had = open.get(k);
    if (!had || had.flow !== flow) return false;
    const { key } = had;
    had.count -= 1;
    if (had.count === 0) open.delete(k);
    counters.outcomes += 1;
    o.log.append({ t: now(), kind: 'outcome', plant, src: ref.src, seq: ref.seq, ...(key === undefined ? {} : { key }), ...fields });
    return true;
  }

  /** The outcome fields of an answer (ack or err). */
  function answerFields(env) {
    const first = outcomeOf(env);
    const fields = env.repeat ? { outcome: 'repeat', first } : { outcome: first };
    if (env.k === 'err' && env.e) Object.assign(fields, { code: env.e.code, msg: String(env.e.msg || '').slice(0, MSG_CHARS) });
    if (env.k === 'ack' && Number.isFinite(env.ts)) fields.plcAt = env.ts;
    return fields;
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
      remember(keyOf(a.plant, env.src, env.seq), env.key, false);
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
     * A command a flow of the cloud sends to the edge (an s7twin-link-out node on the edge
     * endpoint), before it goes on. A command this recorder saw arrive from a twin or the REST
     * endpoint, which the flow only passes on, is not a flow's: it is left as it is.
     * @param {object} f
     * @param {string} f.plant
     * @param {{id: string, name?: string}} f.by the node that sent it
     * @param {number} f.at when it left the flow, on the cloud's clock
     * @param {object} f.env the command (its dl stamped)
     * @returns {boolean} recorded as the flow's own
     */
    flowSent(f) {
      const { env } = f;
      if (!env || env.k !== 'cmd' || !f.by) return false;
      const k = keyOf(f.plant, env.src, env.seq);
      const had = open.get(k);
      if (had && !had.flow) return false;
      counters.commands += 1;
      counters.flowCommands += 1;
      remember(k, env.key, true);
      o.log.append(defined({
        t: f.at, kind: 'cmd', via: 'flow', plant: f.plant, role: 'flow', user: f.by.name || f.by.id, node: f.by.id,
        src: env.src, seq: env.seq, cid: env.cid, key: env.key, dl: env.dl, ttl: env.ttl, d: env.d,
      }));
      return true;
    },
    /**
     * An answer left for a twin (ack or err with a ref; anything else is ignored); with
     * `{flow: true}`, an answer the edge endpoint passes to the flow, recorded for a flow's own
     * command only (a twin's is recorded as its answer leaves for the twin).
     * @param {string} plant
     * @param {object} env
     * @param {{flow?: boolean}} [w]
     * @returns {boolean} recorded (it answers a command seen arriving)
     */
    answered(plant, env, w = {}) {
      if (!env || !env.ref || (env.k !== 'ack' && env.k !== 'err')) return false;
      return outcome(plant, env.ref, answerFields(env), Boolean(w.flow));
    },
    /**
     * A command refused where it arrived (no envelope made yet).
     * @param {string} plant
     * @param {{src: string, seq: number}} ref
     * @param {string} code
     * @param {string} msg
     * @param {{flow?: boolean}} [w] a flow's command (refused at the edge endpoint: no edge)
     */
    refused(plant, ref, code, msg, w = {}) {
      return outcome(plant, ref, { outcome: 'refused', code, msg: String(msg || '').slice(0, MSG_CHARS) }, Boolean(w.flow));
    },
    /**
     * A command taken on a path that gives no answer per command (the MQTT broker, the OPC UA
     * server, the Modbus server), with what the cloud did with it: one `cmd` entry that carries
     * its outcome (`outcome`, `code`, `msg`). A refusal past its sender's budget is counted
     * instead (see the header).
     * @param {object} c
     * @param {'mqtt'|'opcua'|'modbus'} c.via
     * @param {string} c.plant
     * @param {{user?: string, role?: string}} [c.who] the login (never its password)
     * @param {string} [c.from] the client's address:port
     * @param {number} c.at its arrival, on the cloud's clock
     * @param {string} c.src the sender's id on its path (an MQTT client id, an OPC UA session name, a Modbus client's address)
     * @param {number} [c.seq] its number from that sender
     * @param {Object<string, *>} [c.d] what it asked to write, by the table's short names
     * @param {string} [c.target] what it addressed on its path (a topic, a node id, registers)
     * @param {string} [c.node] a flow's node that wrote it (the server node's input)
     * @param {'relayed'|'unchanged'|'refused'} c.outcome
     * @param {string} [c.code] a refusal's code
     * @param {string} [c.msg] a refusal's reason
     * @returns {boolean} logged (false: a refusal past its sender's budget, counted)
     */
    taken(c) {
      const who = c.who || {};
      if (c.outcome === 'refused') {
        const host = hostOf(c.from);
        const sender = defined({ via: c.via, plant: c.plant, user: who.user, host });
        if (!budget.take(`${c.via}\u0000${c.plant}\u0000${who.user || ''}\u0000${host}`, sender, c.code)) {
          counters.mutedRefusals += 1;
          return false;
        }
      }
      counters.commands += 1;
      counters.taken += 1;
      counters.outcomes += 1;
      // One entry: the cloud decides as the command arrives, so its outcome is known when it is
      // logged (half the hashing and bytes of a pair, on paths that carry a command per twin tick).
      o.log.append(defined({
        t: c.at, kind: 'cmd', via: c.via, plant: c.plant, role: who.role, user: who.user, from: c.from, src: c.src,
        seq: c.seq === undefined ? null : c.seq, target: c.target, node: c.node, d: c.d,
        outcome: c.outcome, code: c.code, msg: c.msg === undefined ? undefined : String(c.msg).slice(0, MSG_CHARS),
      }));
      return true;
    },
    /** Write the summaries of every sender's refusals not logged yet (before a close, in tests). */
    flush: () => budget.sweep(true),
    /** Stop the sweeping timer (it is unref'd: a process may also just end). */
    stop() { if (sweeper) clearInterval(sweeper); budget.sweep(true); },
    /** The refusal budget's counters. */
    budget: budget.counters,
  };
}

module.exports = { createCommandAudit, outcomeOf };
