'use strict';
/**
 * Exactly one answer per command a twin sends, and the resync after a doubtful one: the part of a
 * twin transport that does not depend on the wire, shared by the headless twin's WebSocket
 * transport (./ws.js), the HTTP transport (./http.js) and the browser twin's (../browser/link-ws.js).
 *
 * A command is answered by the cloud's ack or err, or, when the connection it went out on drops
 * first or no answer comes within its lifetime plus `answerSlackMs`, by E_OUTCOME_UNKNOWN made here
 * (nobody can answer it any more; the wait is bounded, so what waits here always drains). A
 * command with an idempotency key whose outcome is in doubt is tried again with the same key
 * first (./retries.js); its one answer is the last attempt's.
 *
 * What the twin owes the PLC: every input it changed and has no ack for (a command in flight, one
 * answered E_EXPIRED, E_OUTCOME_UNKNOWN, E_EDGE_DOWN, E_PLC_DOWN or E_BUSY, a change made while the
 * link was down). An input another twin or path set after this twin's own change was acknowledged
 * is not this twin's to set back. The resync: once no command of its own is in flight, every owed
 * input that the plant's known state (every state and snap so far, merged) shows differently goes
 * out as a fresh command (fresh values, a fresh deadline), never a replay of the old frame; one the
 * state shows as owed is settled; one no state has shown yet keeps the resync waiting.
 *
 * Without `atOnce` the resync runs on the next state or snap: after E_OUTCOME_UNKNOWN the write may
 * still be on its way, and its state follows it. With `atOnce` it also runs as soon as the doubtful
 * answer is in (and nothing else is in flight), against the states so far. The browser twin needs
 * it: after a refused feed the plant waits for the PLC and the PLC for the box, so no next state
 * may ever come. After an answer that says the edge or the PLC is away or the cloud is full
 * (WAIT_CODES) it runs `downResyncMs` later instead, or on the next state or snap if that comes
 * first: sent at once, it would be refused again at once, for as long as the edge is away.
 * Sending an input the PLC may already hold writes the same value again, which changes nothing in
 * the PLC.
 */

const { createRetries } = require('./retries');

/** Answers after which the PLC may not hold what the twin sent: resync from the next state. */
const RESYNC_CODES = new Set(['E_EXPIRED', 'E_OUTCOME_UNKNOWN', 'E_EDGE_DOWN', 'E_PLC_DOWN', 'E_BUSY', 'E_KEY_STORE']);
/** Of those, the answers that say the PLC cannot hear the twin: the edge or the PLC is away (stats.plcAway). */
const AWAY_CODES = new Set(['E_EDGE_DOWN', 'E_PLC_DOWN']);
/**
 * The answers that the same command sent again at once would get again: the edge or the PLC is
 * not there, or the cloud has no room. With `atOnce` their resync waits `downResyncMs` (or the
 * next state or snap: an edge that is back sends its snapshot) instead of going at once.
 */
const WAIT_CODES = new Set([...AWAY_CODES, 'E_BUSY']);

const DEFAULTS = {
  // The wait for an answer beyond the command's lifetime (a command without a ttl: the longest an
  // endpoint allows, 10 s). The cloud answers by the deadline plus a quarter second; past this the
  // answer was lost (an outbox that dropped it, a cloud that went silent).
  answerSlackMs: 5000,
  maxLifetimeMs: 10000,
  // A resync after E_EDGE_DOWN, E_PLC_DOWN or E_BUSY with `atOnce`: this long after the answer.
  // Sent again at once, each refusal came back within a millisecond and went out again: 115,000
  // commands in 210 ms against a stand-in that answers at once, and against the cloud a page that
  // owed one input the PLC showed differently while the edge was away went over the twin
  // endpoint's rate limit (200 frames a second) and was cut off. Two a second stay well under it.
  downResyncMs: 500,
};

/**
 * @param {object} o
 * @param {object} o.stats the transport's stats; lostWithConnection, resyncs, unexpectedAnswers,
 *   answerTimeouts are counted there, and plcAway is kept there: the code of the last answer that
 *   said the edge or the PLC is away (E_EDGE_DOWN, E_PLC_DOWN), '' once an ack, a state or a snap
 *   says it is back (the browser twin's driving page holds its plant meanwhile)
 * @param {(d: object) => void} o.resend sends a fresh command with these values
 * @param {() => boolean} o.canSend whether the connection is open
 * @param {boolean} [o.atOnce] resync right after a doubtful answer, not only on the next state
 * @param {object} [o.retry] keyed commands whose outcome is in doubt are tried again (./retries.js
 *   options: send(cmd, fields) → whether it went, now(), askForMs …)
 * @param {number} [o.answerSlackMs] see DEFAULTS
 */
function createAnswers(o) {
  const cfg = { ...DEFAULTS, ...o };
  const attempts = new Map(); // seq of an envelope sent -> {cmd, timer}
  const open = new Set(); // commands without their one answer yet
  const owed = new Map(); // input -> {v, cmd}: cmd the command carrying it now, null when none does
  const cbs = [];
  const known = {}; // every value the states and snaps so far showed
  let later = null; // the timer of a resync that waits (see WAIT_CODES)
  let closed = false;
  for (const k of ['lostWithConnection', 'resyncs', 'unexpectedAnswers', 'answerTimeouts']) o.stats[k] = o.stats[k] || 0;
  o.stats.plcAway = ''; // E_EDGE_DOWN or E_PLC_DOWN: the last answer said the PLC cannot hear this twin (until an ack, a state or a snap)
  // A later command (or a change made while down) carries one of cmd's inputs: cmd is no longer
  // the one that owes it, so an attempt of cmd may not write it back.
  const superseded = (cmd) => Object.keys(cmd.d).some((k) => { const e = owed.get(k); return !e || e.cmd !== cmd; });
  const retries = o.retry
    ? createRetries({ ...o.retry, superseded, stats: o.stats, giveUp: (cmd, msg) => finish(cmd, { ok: false, code: 'E_OUTCOME_UNKNOWN', msg }) })
    : null;

  /** The one answer of `cmd`: callbacks, then what it owes. */
  function finish(cmd, a) {
    open.delete(cmd);
    for (const [k, e] of owed) {
      if (e.cmd !== cmd) continue;
      if (a.ok) owed.delete(k); // acknowledged: what others set since is theirs
      else if (RESYNC_CODES.has(a.code)) e.cmd = null; // not written, or not known to be: owed
      else owed.delete(k); // refused for good (a bad value): sending it again changes nothing
    }
    if (AWAY_CODES.has(a.code)) o.stats.plcAway = a.code;
    else if (a.ok) o.stats.plcAway = '';
    const dl = cmd.dl !== undefined ? cmd.dl : a.dl;
    for (const cb of cbs) cb({ seq: cmd.seq, ok: Boolean(a.ok), code: a.code, msg: a.msg, dl, repeat: a.repeat, attempts: cmd.attempts });
    if (!o.atOnce) return;
    if (WAIT_CODES.has(a.code)) resyncLater();
    else resyncAgainst();
  }

  /** The resync in `downResyncMs` (one pending at a time; a state or snap before it runs it sooner). */
  function resyncLater() {
    if (later || closed) return;
    later = setTimeout(() => { later = null; resyncAgainst(); }, cfg.downResyncMs);
  }

  /**
   * Send the owed inputs the known state shows differently (once nothing is in flight). Those it
   * shows as owed are settled; those it has not shown yet wait for a state that does.
   */
  function resyncAgainst() {
    if (later) { clearTimeout(later); later = null; }
    if (open.size || !o.canSend()) return;
    const diff = {};
    for (const [k, e] of owed) {
      if (e.cmd || !(k in known)) continue;
      if (Number(known[k]) === Number(e.v)) owed.delete(k);
      else diff[k] = e.v;
    }
    if (!Object.keys(diff).length) return;
    o.stats.resyncs += 1;
    o.resend(diff);
  }

  /** Hold an attempt of `cmd` sent as envelope `seq` until its answer (bounded by a timer). */
  function track(seq, cmd, ttl) {
    const wait = (ttl || cfg.maxLifetimeMs) + cfg.answerSlackMs;
    const timer = setTimeout(() => {
      if (!attempts.has(seq)) return;
      o.stats.answerTimeouts += 1;
      answered(seq, 'E_OUTCOME_UNKNOWN', `no answer within ${wait} ms: whether it was written is unknown`);
    }, wait);
    if (timer.unref) timer.unref();
    attempts.set(seq, { cmd, timer });
  }

  /**
   * The answer to the envelope `seq` (a second one, or one for nothing sent, is counted, not
   * passed on).
   * @param {number} seq
   * @param {string} [code] the err code (none: an ack)
   * @param {string} [msg]
   * @param {number} [dl] the deadline the cloud gave it
   * @param {{key?: string, repeat?: boolean}} [extra] the answer's key (the edge's own answer to a
   *   keyed command echoes it) and whether it repeats an earlier outcome
   */
  function answered(seq, code, msg, dl, extra = {}) {
    const at = attempts.get(seq);
    if (!at) { o.stats.unexpectedAnswers += 1; return; }
    attempts.delete(seq);
    clearTimeout(at.timer);
    const { cmd } = at;
    if (Number.isFinite(dl) && !at.ask && (cmd.dl === undefined || dl < cmd.dl)) cmd.dl = dl;
    const a = { ok: !code, code, msg, dl, key: extra.key, repeat: extra.repeat === true };
    if (retries && retries.takeOver(cmd, a)) return;
    finish(cmd, retries ? retries.final(cmd, a) : a);
  }

  return {
    /**
     * A command went out as envelope `seq`.
     * @param {number} seq
     * @param {object} d its values
     * @param {{key?: string, ttl?: number, sentAt?: number}} [meta]
     * @returns {object} the command (./retries.js sends it again)
     */
    sent(seq, d, meta = {}) {
      const cmd = { seq, d, key: meta.key, ttl: meta.ttl, sentAt: meta.sentAt, attempts: 1, dl: undefined };
      open.add(cmd);
      for (const k of Object.keys(d)) owed.set(k, { v: d[k], cmd });
      track(seq, cmd, meta.ttl);
      return cmd;
    },
    /** Another attempt of `cmd` went out as envelope `seq` (ask: it cannot write). */
    attempted(seq, cmd, ttl, ask) {
      cmd.attempts += 1;
      track(seq, cmd, ttl);
      if (ask) attempts.get(seq).ask = true;
    },
    answered,
    /** Inputs changed while no command can go out: owed, sent after the reconnect. */
    changedWhileDown(values) {
      for (const [k, v] of Object.entries(values)) owed.set(k, { v, cmd: null });
    },
    /** What this twin owes and no command carries now ({} if nothing): sent after a reconnect. */
    unsent() {
      const d = {};
      for (const [k, e] of owed) if (!e.cmd) d[k] = e.v;
      return d;
    },
    /** The connection dropped: every attempt in flight on it gets E_OUTCOME_UNKNOWN. */
    connectionLost(msg = 'the connection to the cloud was lost before the answer') {
      for (const seq of [...attempts.keys()]) {
        o.stats.lostWithConnection += 1;
        answered(seq, 'E_OUTCOME_UNKNOWN', msg);
      }
    },
    /** A state or snap came: after a doubtful answer, send the owed inputs the PLC shows differently. */
    resyncFrom(d) {
      Object.assign(known, d);
      o.stats.plcAway = ''; // the PLC's state reaches the twin again
      resyncAgainst();
    },
    /** cb({seq, ok, code, msg, dl, repeat, attempts}) once per command sent. */
    onAnswer(cb) { cbs.push(cb); },
    /** Commands without their answer yet (those being tried again included). */
    get inFlight() { return open.size; },
    /** The link is up (again): commands waiting to be tried again go now. */
    connected() { if (retries) retries.connected(); },
    /** Commands waiting to be tried again. */
    get retrying() { return retries ? retries.waiting : 0; },
    /** Stop: nothing is tried again, and every command still open is answered E_OUTCOME_UNKNOWN. */
    close(msg = 'the transport closed before the answer') {
      closed = true;
      if (later) { clearTimeout(later); later = null; }
      const left = retries ? retries.close() : [];
      for (const seq of [...attempts.keys()]) answered(seq, 'E_OUTCOME_UNKNOWN', msg);
      for (const cmd of [...left, ...open]) if (open.has(cmd)) finish(cmd, { ok: false, code: 'E_OUTCOME_UNKNOWN', msg });
    },
  };
}

module.exports = { RESYNC_CODES, AWAY_CODES, WAIT_CODES, DEFAULTS, createAnswers };
