'use strict';
/**
 * The HTTP transport's commands: every input change is one `POST <url>/cmd` with a `cmd`
 * envelope, one at a time and in order (two POSTs on two sockets could overtake each other), each
 * answered exactly once (../envelopes.js, ../answers.js) by the endpoint's answer, or by
 * E_OUTCOME_UNKNOWN when the request failed before its answer came.
 *
 * What waits is bounded: while the endpoint cannot be reached, and when more than `maxQueue`
 * commands wait, changes are merged into the input image, which goes out whole once the queue is
 * free (the PLC learns the plant as it is now, never a backlog of old changes).
 */
const envelope = require('../../../nodes/lib/core/envelope');

/**
 * What the endpoint's answer to a POST says about the command.
 * @param {{status: number, text: string}} r
 * @returns {{ok: true, dl?: number} | {unauthorized: true} | {code: string, msg: string, dl?: number}}
 */
function commandAnswer(r) {
  let answer;
  try { answer = JSON.parse(r.text); } catch { answer = null; }
  if (r.status === 200 && answer && answer.k === 'ack') return { ok: true, dl: answer.dl };
  if (r.status === 401) return { unauthorized: true };
  const e = answer && answer.e;
  return { code: e ? e.code : `E_HTTP_${r.status}`, msg: e ? e.msg : '', dl: answer ? answer.dl : undefined };
}

/**
 * @param {object} o
 * @param {object} o.link ../envelopes.js (commands booked there; its image goes out whole)
 * @param {object} o.stats sent, inFlight, acks, coalesced, authFailures are counted there; `connected` is read
 * @param {(code: string, msg?: string) => void} o.countError
 * @param {(body: string) => Promise<{status: number, text: string}>} o.post one POST of a command
 * @param {() => boolean} o.closed whether the transport is closed
 * @param {(err: Error) => void} o.onLost the request failed: the endpoint is not reachable now
 * @param {() => void} o.onRefused the endpoint refused the token (HTTP 401): final
 * @param {number} o.maxQueue commands that may wait; beyond that they are merged into the image
 */
function createCommands(o) {
  const queue = []; // values of commands waiting, oldest first
  let sending = false;
  let dirty = false; // commands were merged into the image: send it whole when the queue is free

  /** Send one command; resolves false when the sending must stop (the endpoint is gone or refused). */
  async function one(d) {
    const env = o.link.command(d);
    const { answers } = o.link;
    o.stats.sent += 1;
    o.stats.inFlight = 1;
    let r;
    try {
      r = await o.post(envelope.stringify(env));
    } catch (err) {
      o.stats.inFlight = 0;
      // The outcome is unknown: the whole image goes out again once the endpoint answers.
      o.onLost(err);
      dirty = true;
      answers.answered(env.seq, 'E_OUTCOME_UNKNOWN', `the request failed before its answer (${err.message})`);
      return false;
    }
    o.stats.inFlight = 0;
    const a = commandAnswer(r);
    if (a.ok) {
      o.stats.acks += 1;
      answers.answered(env.seq, undefined, undefined, a.dl);
      return true;
    }
    if (a.unauthorized) {
      o.stats.authFailures += 1;
      answers.answered(env.seq, 'E_UNAUTHORIZED', 'token refused');
      o.onRefused();
      return false;
    }
    o.countError(a.code, a.msg);
    answers.answered(env.seq, a.code, a.msg, a.dl);
    return true;
  }

  async function pump() {
    if (sending || o.closed()) return;
    sending = true;
    while (!o.closed() && o.stats.connected && (queue.length || dirty)) {
      const d = queue.length ? queue.shift() : { ...o.link.image };
      if (!queue.length) dirty = false;
      if (!(await one(d))) break;
    }
    sending = false;
  }

  return {
    /** Inputs that changed in one tick: a command now, or merged into the image while down or when too many wait. */
    send(values) {
      if (!o.stats.connected) { dirty = true; o.stats.coalesced += 1; return; }
      if (queue.length >= o.maxQueue) { queue.length = 0; dirty = true; o.stats.coalesced += 1; } else queue.push(values);
      pump();
    },
    /** A resync after a doubtful answer: these values go out next, whatever waits. */
    resend(d) {
      queue.push(d);
      pump();
    },
    /** Back after a drop: the whole image replaces whatever waited. */
    sendImage() {
      if (!Object.keys(o.link.image).length) return;
      queue.length = 0;
      queue.push({ ...o.link.image });
      dirty = false;
      pump();
    },
    get waiting() { return queue.length; },
  };
}

module.exports = { createCommands, commandAnswer };
