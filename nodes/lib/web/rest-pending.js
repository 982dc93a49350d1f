'use strict';
/**
 * The REST endpoint's commands waiting for the edge's answer (lib/web/rest.js): each HTTP request
 * is held until its one answer, the edge's ack or err, E_OUTCOME_UNKNOWN when none came in the
 * time it was held for (its deadline plus the time an answer may still be on its way), or
 * E_CLOSED when the endpoint stops. An answer for no held command (a WebSocket twin's, or one
 * that came too late) is not ours and is ignored. The command is held by the ref it was relayed
 * with, and answered with the ref the client gave it.
 *
 * Plain module (timers only); lib/web/rest.js keeps one.
 */

const keyOf = (ref) => `${ref.src}:${ref.seq}`;

/**
 * @param {object} o
 * @param {object} o.counters the endpoint's: pending, timeouts
 * @param {(res: object, env: object) => void} o.answer write the edge's answer
 * @param {(res: object, code: string, msg: string, ref: object) => void} o.refuse write an err answer
 */
function createPendingCommands(o) {
  const { counters } = o;
  const pending = new Map(); // `${src}:${seq}` -> {res, ref, timer}

  function take(key) {
    const p = pending.get(key);
    if (!p) return null;
    clearTimeout(p.timer);
    pending.delete(key);
    counters.pending = pending.size;
    return p;
  }

  return {
    get size() { return pending.size; },
    /**
     * Hold a command's HTTP response until its answer.
     * @param {{src: string, seq: number}} ref the command's, as it was relayed (the edge's answer names it)
     * @param {object} res
     * @param {number} waitMs how long an answer may come (its deadline plus the way back)
     * @param {{src: string, seq: number}} [client] the command's as the client sent it (the
     *   answer's `ref`); default `ref`
     */
    hold(ref, res, waitMs, client = ref) {
      const key = keyOf(ref);
      const timer = setTimeout(() => {
        if (!take(key)) return;
        counters.timeouts += 1;
        const msg = `no answer from the edge within ${Math.round(waitMs)} ms, past the command's deadline: whether it was written is unknown`;
        o.refuse(res, 'E_OUTCOME_UNKNOWN', msg, client);
      }, Math.max(0, waitMs));
      pending.set(key, { res, ref: client, timer });
      counters.pending = pending.size;
    },
    /** Still waiting (not answered synchronously while it was relayed)? */
    has: (ref) => pending.has(keyOf(ref)),
    /** Stop waiting for a command (it was not relayed): its response is the caller's again. */
    drop(ref) { take(keyOf(ref)); },
    /**
     * An ack or err with a ref: the answer to the command it refers to, if one is held.
     * @returns {boolean} true if it answered a held command
     */
    answer(env) {
      const p = take(keyOf(env.ref));
      if (!p) return false;
      o.answer(p.res, { ...env, ref: p.ref });
      return true;
    },
    /** Answer every held command E_CLOSED. */
    close() {
      for (const key of [...pending.keys()]) {
        const p = take(key);
        try { o.refuse(p.res, 'E_CLOSED', 'the endpoint closed before the edge answered', p.ref); } catch { /* client gone */ }
      }
      counters.pending = 0;
    },
  };
}

module.exports = { createPendingCommands };
