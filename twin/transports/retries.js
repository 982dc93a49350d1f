'use strict';
/**
 * Commands with an idempotency key whose outcome is in doubt, tried again with the same key until
 * the edge says what happened (the edge writes a key at most once and answers every later command
 * with that key with the first outcome, marked as a repeat; docs/bridge.md, "Idempotency keys").
 *
 * - An answer the edge made for the key (it echoes the key: an ack, E_EXPIRED, E_PLC_DOWN, a
 *   repeat of either …) is final. So is any answer while nothing is in doubt: E_EDGE_DOWN to a
 *   first attempt says it reached no edge.
 * - E_OUTCOME_UNKNOWN (the cloud lost the edge with the command in flight, or no answer came)
 *   puts the command in doubt, and it goes again at once: within its deadline as a command whose
 *   lifetime is what is left of the first one's (so no attempt lands later than the first could
 *   have), after it as an `ask`, which the edge never writes: it answers with the key's outcome,
 *   or closes an unseen key as E_EXPIRED (a copy of the first still on its way is then refused
 *   too).
 * - An attempt that reached no edge (E_EDGE_DOWN, E_BUSY, the link down) settles nothing: the
 *   command goes again after a back-off (250 ms doubling to 4 s), or when the link is back.
 * - After `askForMs` (30 s) from the first attempt the command is given up: E_OUTCOME_UNKNOWN.
 * - A command in doubt some of whose inputs a later command of this twin has set since (or set
 *   while the link was down) only asks, even within its deadline: written now, it would put back
 *   an older value over a newer one the PLC may already hold. What it carried that nothing newer
 *   carries is owed and resynced after the answer (./answers.js).
 *
 * Plain module (timers only); ./answers.js calls it, ./envelopes.js sends its attempts.
 */

const DEFAULTS = {
  askForMs: 30000, // how long a command in doubt is asked after, from its first attempt
  marginMs: 20, // a retry within the deadline needs at least this much of it left, else it asks
  delayMs: 250, // after an attempt that reached no edge: the first wait, doubling
  maxDelayMs: 4000,
};

/**
 * @param {object} o see DEFAULTS, plus:
 * @param {object} o.stats the transport's: retries, asks, repeats counted there
 * @param {() => number} o.now the twin's clock (ms)
 * @param {(cmd: object, fields: {ttl?: number, ask?: boolean}) => boolean} o.send send one more
 *   attempt of `cmd` now (false: it cannot go now; it is sent when the link is up)
 * @param {(cmd: object, msg: string) => void} o.giveUp the time to ask is over: answer `cmd`
 *   E_OUTCOME_UNKNOWN
 * @param {(cmd: object) => boolean} [o.superseded] whether a later command carries one of `cmd`'s
 *   inputs: then it only asks
 * @returns {{takeOver(cmd, a): boolean, final(cmd, a): object, connected(): void, close(): object[]}}
 */
function createRetries(o) {
  const cfg = { ...DEFAULTS, ...o };
  const waiting = new Set(); // commands to send again once the link is up
  const timers = new Map(); // command -> its back-off timer
  let closed = false;
  for (const k of ['retries', 'asks', 'repeats']) o.stats[k] = o.stats[k] || 0;

  function at(cmd, wait) {
    clearTimeout(timers.get(cmd));
    const t = setTimeout(() => attempt(cmd), Math.max(0, wait));
    if (t.unref) t.unref();
    timers.set(cmd, t);
  }

  function attempt(cmd) {
    clearTimeout(timers.get(cmd));
    timers.delete(cmd);
    if (closed) return;
    const age = cfg.now() - cmd.sentAt;
    if (age >= cfg.askForMs) {
      waiting.delete(cmd);
      cfg.giveUp(cmd, `whether it was written is still unknown after ${cmd.attempts} attempts over ${Math.round(age)} ms`);
      return;
    }
    const left = cmd.sentAt + cmd.ttl - cfg.now() - cfg.marginMs;
    const mayWrite = left >= cfg.marginMs && !(cfg.superseded && cfg.superseded(cmd));
    const fields = mayWrite ? { ttl: Math.floor(left) } : { ask: true };
    if (!cfg.send(cmd, fields)) {
      waiting.add(cmd); // sent when the link is up, or given up when the time to ask is over
      at(cmd, cfg.askForMs - age);
      return;
    }
    waiting.delete(cmd);
    o.stats[fields.ask ? 'asks' : 'retries'] += 1;
  }

  function later(cmd) {
    at(cmd, Math.min(cfg.maxDelayMs, cfg.delayMs * 2 ** (cmd.delays || 0)));
    cmd.delays = (cmd.delays || 0) + 1;
  }

  return {
    /**
     * An attempt of `cmd` was answered `a`: send it again (true), or let `a` be its answer.
     * @param {object} cmd ./answers.js command: key, ttl, sentAt
     * @param {{ok: boolean, code?: string, key?: string, repeat?: boolean}} a
     */
    takeOver(cmd, a) {
      if (a.repeat) o.stats.repeats += 1;
      if (closed || !cmd.key || a.ok || a.key !== undefined) return false;
      if (a.code === 'E_OUTCOME_UNKNOWN') cmd.doubt = true;
      if (!cmd.doubt || cfg.now() - cmd.sentAt >= cfg.askForMs) return false;
      if (a.code === 'E_OUTCOME_UNKNOWN') attempt(cmd);
      else later(cmd);
      return true;
    },
    /** The answer a command ends with: in doubt, only the edge's own answer settles it. */
    final(cmd, a) {
      if (!cmd.doubt || a.ok || a.key !== undefined || a.code === 'E_OUTCOME_UNKNOWN') return a;
      const last = `${a.code}${a.msg ? `: ${a.msg}` : ''}`;
      return { ...a, code: 'E_OUTCOME_UNKNOWN', msg: `whether it was written is still unknown after ${cmd.attempts} attempts (the last: ${last})` };
    },
    /** The link is up: send what waited for it. */
    connected() {
      for (const cmd of [...waiting]) attempt(cmd);
    },
    /** Commands waiting to go again. */
    get waiting() { return new Set([...waiting, ...timers.keys()]).size; },
    /**
     * Stop trying: no attempt goes out from now on.
     * @returns {object[]} the commands that waited (the caller answers them)
     */
    close() {
      closed = true;
      for (const t of timers.values()) clearTimeout(t);
      const left = [...new Set([...waiting, ...timers.keys()])];
      waiting.clear();
      timers.clear();
      return left;
    },
  };
}

module.exports = { DEFAULTS, createRetries };
