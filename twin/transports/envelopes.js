'use strict';
/**
 * The twin's side of the envelope protocol (nodes/lib/core/envelope.js), whatever carries the
 * envelopes: the headless twin's WebSocket transport (./ws.js), the browser's (../browser/link-ws.js)
 * and the HTTP transport (./http.js). It makes the twin's `cmd` envelopes and books each one for
 * its answer (./answers.js), keeps the input image (every value sent so far), and takes what the
 * cloud sends: `snap`/`state` to the onValues callbacks (and to the resync after a doubtful
 * answer), `ack`/`err` to the command they answer, `probe-res` to the onProbe callbacks.
 *
 * Every command carries an idempotency key (`<this twin's random prefix>-<seq>`: unique per plant
 * across the twin's restarts) and an explicit lifetime (`ttl`, the endpoint's default 1 s unless
 * told otherwise), so that a command whose outcome is in doubt can go again with the same key
 * within what is left of that lifetime, or be asked about after it (./retries.js); `keys: false`
 * sends plain commands, answered once each as they come.
 *
 * Encoding stays with the carrier: this module takes and gives envelope objects, so a carrier
 * may frame them as it likes. Browser-safe.
 */
const envelope = require('../../nodes/lib/core/envelope');
const { createAnswers } = require('./answers');

/** A prefix for this twin's keys: 12 random base-36 characters (no crypto API needed in a page). */
const keyPrefix = () => Array.from({ length: 12 }, () => Math.floor(Math.random() * 36).toString(36)).join('');
const monotonic = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/**
 * @param {object} o
 * @param {string} o.src sender id of the twin's envelopes (`twin-<id>`)
 * @param {object} o.stats the transport's stats: acks counted here, the answer counters by ./answers.js
 * @param {(code: string, msg?: string) => void} o.countError an err envelope's code is counted there
 * @param {(d: object) => void} o.resend sends a fresh command with these values (a resync)
 * @param {() => boolean} o.canSend whether a command can go out now
 * @param {boolean} [o.atOnce] resync right after a doubtful answer (see ./answers.js)
 * @param {number} [o.ttl] lifetime asked for each command, ms (default: with keys, the endpoint's
 *   default of 1 s sent explicitly; without, none sent: the endpoint's own)
 * @param {boolean} [o.keys] idempotency keys and retries (default true)
 * @param {(env: object) => void} [o.write] sends an envelope now (the retries' attempts; needed with keys)
 * @param {(make: () => object) => void} [o.attempt] instead of write: queues an attempt whose
 *   envelope `make()` makes right before it goes out (a carrier that sends one request at a time)
 * @param {object} [o.retry] ./retries.js options (askForMs, …)
 * @param {() => number} [o.now] the twin's clock, ms (default a monotonic one)
 */
function createEnvelopes(o) {
  const sender = envelope.createSender(o.src);
  const image = {};
  const keyed = o.keys !== false;
  const ttl = o.ttl !== undefined ? o.ttl : (keyed ? envelope.DEFAULT_LIFETIME_MS : undefined);
  const now = o.now || monotonic;
  const prefix = keyPrefix();
  const retry = keyed ? {
    ...o.retry,
    now,
    send(cmd, fields) {
      if (!o.canSend()) return false;
      const make = () => {
        const env = sender.make('cmd', { d: cmd.d, key: cmd.key, ...fields });
        answers.attempted(env.seq, cmd, fields.ttl, fields.ask);
        return env;
      };
      if (o.attempt) o.attempt(make); else o.write(make());
      return true;
    },
  } : undefined;
  const answers = createAnswers({ stats: o.stats, atOnce: o.atOnce, resend: o.resend, canSend: o.canSend, retry });
  const valueCbs = [];
  const probeCbs = [];
  const sentCbs = [];

  /** An answer (ack or err) to one of this twin's commands goes to the command's booking. */
  function answer(env, code, msg) {
    if (env.ref && env.ref.src === sender.src) answers.answered(env.ref.seq, code, msg, env.dl, { key: env.key, repeat: env.repeat });
  }

  return {
    sender,
    image,
    answers,
    /**
     * A `cmd` envelope with the values `d`, booked for its answer; the onSent callbacks hear of
     * it before it can land anywhere.
     * @returns {object} the envelope, for the carrier to send
     */
    command(d) {
      const seq = sender.seq + 1;
      const env = sender.make('cmd', { d, ttl, key: keyed ? `${prefix}-${seq}` : undefined });
      answers.sent(env.seq, d, { key: env.key, ttl, sentAt: now() });
      for (const cb of sentCbs) cb({ seq: env.seq, d, image: { ...image } });
      return env;
    },
    /** A valid envelope from the cloud (kinds that are not for a twin are ignored). */
    receive(env) {
      switch (env.k) {
        case 'state':
        case 'snap':
          for (const cb of valueCbs) cb(env.d, env.k);
          answers.resyncFrom(env.d);
          break;
        case 'ack':
          o.stats.acks += 1;
          answer(env);
          break;
        case 'err':
          o.countError(env.e.code, env.e.msg);
          answer(env, env.e.code, env.e.msg);
          break;
        case 'probe-res':
          for (const [slot, v] of Object.entries(env.d)) for (const cb of probeCbs) cb(Number(slot), v);
          break;
        default:
          break; // cmd/probe are not for a twin
      }
    },
    /** cb(values, kind) for every snap and state. */
    onValues(cb) { valueCbs.push(cb); },
    /** cb(slot, value) for every probe answer. */
    onProbe(cb) { probeCbs.push(cb); },
    /** cb({seq, d, image}) for every command, the twin's own resyncs included, just before it goes out. */
    onSent(cb) { sentCbs.push(cb); },
  };
}

module.exports = { createEnvelopes };
