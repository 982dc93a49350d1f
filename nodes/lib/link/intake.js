'use strict';
/**
 * Every frame a peer sends to a link endpoint, in order: a message rate (past it the peer is told
 * why and closed with 1008), a size limit (E_TOO_LARGE answer, then close 1009), parse and
 * validation (a malformed frame is answered with an `err` envelope and counted, never passed on),
 * an error budget (past it: told, 1008), duplicate and gap tracking (lib/link/senders.js; not
 * for backfill, which lib/link/backfill-intake.js files once), and last the role's own check
 * (lib/link/twin-endpoint.js, lib/link/edge-endpoint.js).
 *
 * Plain module; lib/link/endpoint-core.js keeps one per endpoint.
 */
const clock = require('../core/clock');
const { readFrame } = require('./frame');

/**
 * @param {object} o
 * @param {number} o.maxPayload bytes; larger frames are answered E_TOO_LARGE and closed (1009)
 * @param {object} o.counters the endpoint's
 * @param {object} o.sender the endpoint's envelope sender (its err answers)
 * @param {object} o.senders lib/link/senders.js
 * @param {(err: Error, clientId: string, extra?: object) => void} o.onInvalid a frame was refused
 * @param {(peer: object, env: object, arrived: number) => boolean} o.check the role's check: pass it on?
 * @param {(peer: object, env: object) => void} o.pass a frame for the flow
 * @returns {{receive(peer, data: Buffer, isBinary: boolean): void, answerError(peer, err, extra?): void}}
 */
function createIntake(o) {
  const { counters, sender } = o;

  const expel = (c, why) => c.expel(sender.error(why.code, why.message));

  /** Answer a refused frame with an err envelope, count it, and expel a peer past its budget. */
  function answerError(c, err, extra) {
    counters.errors += 1;
    c.deliver(sender.error(err.code || 'E_SCHEMA', err.message, err.ref, err.cid));
    o.onInvalid(err, c.id, extra);
    const over = c.limits.error();
    if (over) { counters.errorBudget += 1; expel(c, over); }
  }

  function receive(c, data, isBinary) {
    const arrived = clock.now();
    c.markHeard();
    if (c.closing) return;
    counters.bytesIn += data.length;
    const over = c.limits.frame();
    if (over) { counters.rateLimited += 1; expel(c, over); return; }
    let env;
    try {
      env = readFrame(data, isBinary, o.maxPayload, c.conn.codec || undefined);
    } catch (err) {
      if (data.length > o.maxPayload) {
        counters.tooLarge += 1;
        answerError(c, err);
        c.conn.close(1009, 'frame too large');
        return;
      }
      answerError(c, err, { raw: isBinary ? `<${data.length} bytes: ${data.subarray(0, 32).toString('hex')}…>` : String(data).slice(0, 200) });
      return;
    }
    counters.framesIn += 1;
    // A backfill frame is a journal record the edge may send again on the same link (after the
    // cloud's history failed to file one): filed once by lib/link/backfill-intake.js, not here.
    if (env.k !== 'backfill' && o.senders.accept(c, env) === 'duplicate') return;
    if (o.check(c, env, arrived)) o.pass(c, env);
  }

  return { receive, answerError };
}

module.exports = { createIntake };
