'use strict';
/**
 * The HTTP transport's commands: every input change is one `POST <url>/cmd` with a `cmd`
 * envelope, one at a time and in order (two POSTs on two sockets could overtake each other), each
 * answered exactly once (../envelopes.js, ../answers.js) by the endpoint's answer, or by
 * E_OUTCOME_UNKNOWN when the request failed before its answer came.
 *
 * What waits is bounded: while the endpoint cannot be reached, and when more than `maxQueue`
 * commands wait, changes are merged into what the twin owes (../answers.js), which goes out as one
 * command once the queue is free: the PLC learns what this twin changed, never a backlog of old
 * changes and never the twin's whole image (an input another twin set since is not its to set back).
 *
 * A command whose outcome is in doubt goes again with the same idempotency key (../retries.js):
 * such an attempt goes out next, ahead of what waits, so the sequence numbers the endpoint sees
 * still rise (every envelope is made right before its POST).
 */
const envelope = require('../../../nodes/lib/core/envelope');

/**
 * What the endpoint's answer to a POST says about the command.
 * @param {{status: number, text: string}} r
 * @returns {{ok: true, dl?: number, extra: object} | {unauthorized: true} | {code: string, msg: string, dl?: number, extra: object}}
 *   extra: the answer's key and repeat (../answers.js)
 */
function commandAnswer(r) {
  let answer;
  try { answer = JSON.parse(r.text); } catch { answer = null; }
  const extra = answer ? { key: answer.key, repeat: answer.repeat } : {};
  if (r.status === 200 && answer && answer.k === 'ack') return { ok: true, dl: answer.dl, extra };
  if (r.status === 401) return { unauthorized: true };
  const e = answer && answer.e;
  return { code: e ? e.code : `E_HTTP_${r.status}`, msg: e ? e.msg : '', dl: answer ? answer.dl : undefined, extra };
}

/**
 * @param {object} o
 * @param {object} o.link ../envelopes.js (commands booked there, what the twin owes)
 * @param {object} o.stats sent, inFlight, acks, coalesced, authFailures are counted there; `connected` is read
 * @param {(code: string, msg?: string) => void} o.countError
 * @param {(body: string) => Promise<{status: number, text: string}>} o.post one POST of a command
 * @param {() => boolean} o.closed whether the transport is closed
 * @param {(err: Error) => void} o.onLost the request failed: the endpoint is not reachable now
 * @param {() => void} o.onRefused the endpoint refused the token (HTTP 401): final
 * @param {number} o.maxQueue commands that may wait; beyond that they are merged into what the twin owes
 */
function createCommands(o) {
  const queue = []; // commands waiting, oldest first: {d} (made right before its POST) or {make} (an attempt of one in doubt)
  let sending = false;
  let dirty = false; // changes were merged into what the twin owes: send that when the queue is free

  /** Send one command; resolves false when the sending must stop (the endpoint is gone or refused). */
  async function one(item) {
    const env = item.make ? item.make() : o.link.command(item.d);
    const { answers } = o.link;
    o.stats.sent += 1;
    o.stats.inFlight = 1;
    let r;
    try {
      r = await o.post(envelope.stringify(env));
    } catch (err) {
      o.stats.inFlight = 0;
      // The outcome is unknown: it is asked about (a keyed command), and what the twin owes goes
      // out once the endpoint answers.
      o.onLost(err);
      dirty = true;
      answers.answered(env.seq, 'E_OUTCOME_UNKNOWN', `the request failed before its answer (${err.message})`);
      return false;
    }
    o.stats.inFlight = 0;
    const a = commandAnswer(r);
    if (a.ok) {
      o.stats.acks += 1;
      answers.answered(env.seq, undefined, undefined, a.dl, a.extra);
      return true;
    }
    if (a.unauthorized) {
      o.stats.authFailures += 1;
      answers.answered(env.seq, 'E_UNAUTHORIZED', 'token refused');
      o.onRefused();
      return false;
    }
    o.countError(a.code, a.msg);
    answers.answered(env.seq, a.code, a.msg, a.dl, a.extra);
    return true;
  }

  async function pump() {
    if (sending || o.closed()) return;
    sending = true;
    while (!o.closed() && o.stats.connected && (queue.length || dirty)) {
      let item = queue.shift();
      if (!item) {
        dirty = false;
        const owed = o.link.answers.unsent();
        if (!Object.keys(owed).length) continue;
        item = { d: owed };
      }
      if (!(await one(item))) break;
    }
    sending = false;
  }

  return {
    /** Inputs that changed in one tick: a command now, or merged into what the twin owes while down or when too many wait. */
    send(values) {
      if (!o.stats.connected) { o.link.answers.changedWhileDown(values); dirty = true; o.stats.coalesced += 1; return; }
      if (queue.length >= o.maxQueue) {
        for (const item of queue.splice(0)) if (item.d) o.link.answers.changedWhileDown(item.d);
        o.link.answers.changedWhileDown(values);
        dirty = true;
        o.stats.coalesced += 1;
      } else queue.push({ d: values });
      pump();
    },
    /** A resync after a doubtful answer: these values go out next, whatever waits. */
    resend(d) {
      queue.push({ d });
      pump();
    },
    /** One more attempt of a command in doubt (`make` makes its envelope): next, ahead of what waits. */
    attempt(make) {
      queue.unshift({ make });
      pump();
    },
    /** Back after a drop: what the twin owes replaces whatever waited. */
    sendImage() {
      for (const item of queue.splice(0)) if (item.d) o.link.answers.changedWhileDown(item.d);
      dirty = true;
      pump();
    },
    get waiting() { return queue.length; },
  };
}

module.exports = { createCommands, commandAnswer };
