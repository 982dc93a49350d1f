'use strict';
/**
 * Exactly one answer per command a twin sends, and the resync after a doubtful one: the part of a
 * twin transport that does not depend on the wire, shared by the headless twin's WebSocket
 * transport (./ws.js) and the browser twin's (../browser/link-ws.js).
 *
 * A command is answered by the cloud's ack or err, or, when the connection it went out on drops
 * first, by E_OUTCOME_UNKNOWN made here (nobody can answer it any more). When a command was not
 * written or may not have been (E_EXPIRED, E_OUTCOME_UNKNOWN, E_EDGE_DOWN, E_PLC_DOWN, E_BUSY),
 * the twin resyncs: once no command of its own is in flight, the next state or snap that shows an
 * input differing from the twin's image brings a fresh command with the difference (fresh values,
 * a fresh deadline), never a replay of the old frame.
 *
 * With `atOnce` the difference goes out as soon as the doubtful answer is in (and nothing else is
 * in flight), against the PLC's inputs as the states so far showed them. The browser twin needs
 * it: after a refused feed the plant waits for the PLC and the PLC for the box, so no next state
 * may ever come. Sending an input the PLC may already hold writes the same value again, which
 * changes nothing in the PLC.
 */

/** Answers after which the PLC may not hold what the twin sent: resync from the next state. */
const RESYNC_CODES = new Set(['E_EXPIRED', 'E_OUTCOME_UNKNOWN', 'E_EDGE_DOWN', 'E_PLC_DOWN', 'E_BUSY']);

/**
 * @param {object} o
 * @param {object} o.image the transport's input image (every value sent so far)
 * @param {object} o.stats the transport's stats; lostWithConnection, resyncs, unexpectedAnswers are counted there
 * @param {(d: object) => void} o.resend sends a fresh command with these values
 * @param {() => boolean} o.canSend whether the connection is open
 * @param {boolean} [o.atOnce] resync right after a doubtful answer, not only on the next state
 */
function createAnswers(o) {
  const pending = new Map(); // seq of a cmd sent on this connection -> its values
  const cbs = [];
  let resync = false; // an answer said the PLC may not hold the image
  const known = {}; // every value the states and snaps so far showed
  for (const k of ['lostWithConnection', 'resyncs', 'unexpectedAnswers']) o.stats[k] = o.stats[k] || 0;

  /** One answer for the command `seq` (a second for the same seq is counted, not passed on). */
  function answered(seq, code, msg, dl) {
    if (!pending.delete(seq)) { o.stats.unexpectedAnswers += 1; return; }
    if (code && RESYNC_CODES.has(code)) resync = true;
    for (const cb of cbs) cb({ seq, ok: !code, code, msg, dl });
    if (o.atOnce && resync) resyncAgainst(known);
  }

  /** Send the inputs `d` shows differently from the image (once nothing is in flight). */
  function resyncAgainst(d) {
    if (!resync || pending.size || !o.canSend()) return;
    const diff = {};
    for (const [k, v] of Object.entries(o.image)) if (k in d && Number(d[k]) !== Number(v)) diff[k] = v;
    resync = false;
    if (!Object.keys(diff).length) return;
    o.stats.resyncs += 1;
    o.resend(diff);
  }

  return {
    /** A command went out. */
    sent(seq, d) { pending.set(seq, d); },
    answered,
    /** The connection dropped: every command in flight on it gets E_OUTCOME_UNKNOWN. */
    connectionLost(msg = 'the connection to the cloud was lost before the answer') {
      for (const seq of [...pending.keys()]) {
        o.stats.lostWithConnection += 1;
        answered(seq, 'E_OUTCOME_UNKNOWN', msg);
      }
    },
    /** A state or snap came: after a doubtful answer, send the inputs the PLC shows differently. */
    resyncFrom(d) {
      Object.assign(known, d);
      resyncAgainst(d);
    },
    /** cb({seq, ok, code, msg, dl}) once per command sent. */
    onAnswer(cb) { cbs.push(cb); },
    get inFlight() { return pending.size; },
  };
}

module.exports = { RESYNC_CODES, createAnswers };
