'use strict';
/**
 * Commands with an idempotency key at the edge, the authority on keys (lib/s7/key-store.js keeps
 * them): a key is written at most once, whatever its copies do on the way.
 *
 * - A key seen before with the same values: never written again, answered with the first outcome
 *   (ack or err) marked `repeat`; if that first write is still on its way, the copy waits and is
 *   answered with its outcome when it comes (not a second write).
 * - A key seen before with other values: E_KEY_REUSED, nothing written (a twin reusing keys for
 *   different commands would otherwise be told a false outcome).
 * - An `ask` (a twin asking what became of a key after its deadline): a key never seen is closed
 *   as E_EXPIRED and recorded so, so a late copy of it is never written either.
 * - A new key: recorded before its write starts, its outcome after (the late, the bad and the
 *   written alike: lib/s7/requests.js says which).
 * Every answer to a keyed command echoes its key, except a refusal that left the key unrecorded
 * (the store full, the file not writable): the twin may send it again.
 *
 * Plain module; lib/s7/bridge.js keeps one per s7twin-s7 node.
 */
const envelope = require('../core/envelope');
const { lateness, answerFields } = require('./requests');

/**
 * @param {object} k
 * @param {object} k.store lib/s7/key-store.js
 * @param {object} k.counters the node's: keyRepeats, keyReused, keyAsks, keyRefused, cmds, expired
 * @param {object} k.requests lib/s7/requests.js
 * @param {(kind: string, fields: object, client: *) => void} k.answer an answer envelope
 * @param {(err: object, about: object, client: *) => void} k.answerErr an err answer (err.repeat,
 *   err.unrecorded honoured)
 * @returns {{command(env: object, msg: object, done: Function): void}}
 */
function createKeyedCommands(k) {
  const { store, counters } = k;

  /** Answer `env` with a key's recorded outcome, as a repeat. */
  function repeat(outcome, env, client) {
    counters.keyRepeats += 1;
    if (outcome.k === 'ack') k.answer('ack', { ...answerFields(env), repeat: true }, client);
    else k.answerErr({ code: outcome.code, message: `repeat of the first command with this key: ${outcome.msg}`, repeat: true }, env, client);
  }

  /** A new key settled before any write: recorded with `outcome` and answered with it. */
  function settle(env, c, outcome, client) {
    const no = store.settle(env.key, c, outcome);
    if (no) { refuse(no, env, client); return; }
    k.answerErr({ code: outcome.code, message: outcome.msg }, env, client);
  }

  /** The key could not be recorded: nothing written, and the key not echoed (it is still free). */
  function refuse(err, env, client) {
    counters.keyRefused += 1;
    k.answerErr({ code: err.code, message: err.message, unrecorded: true }, env, client);
  }

  return {
    /**
     * A valid `cmd` envelope with a key.
     * @param {object} env
     * @param {object} msg its message (msg.deadline, msg._client)
     * @param {() => void} done once its one answer went out
     */
    command(env, msg, done) {
      const client = msg._client;
      const c = envelope.canonicalValues(env.d);
      const rec = store.get(env.key);
      if (rec && rec.c !== c) {
        counters.keyReused += 1;
        const message = `key ${env.key} was used for a command with other values: nothing written (give every command its own key)`;
        k.answerErr({ code: 'E_KEY_REUSED', message }, env, client);
        done();
        return;
      }
      if (rec && rec.o) { repeat(rec.o, env, client); done(); return; }
      if (rec) { rec.waiters.push({ env, client, done }); return; } // its first write is on its way
      if (env.ask) {
        counters.keyAsks += 1;
        settle(env, c, { k: 'err', code: 'E_EXPIRED', msg: `key ${env.key} was never seen here before its deadline: closed, never written` }, client);
        done();
        return;
      }
      const late = lateness(env, msg);
      if (late) {
        counters.cmds += 1;
        counters.expired += 1;
        settle(env, c, { k: 'err', code: 'E_EXPIRED', msg: `cmd not written: ${late}` }, client);
        done();
        return;
      }
      store.begin(env.key, c, (err) => {
        if (err) {
          const r = store.get(env.key); // recorded, and then not surely on the disk: that is its outcome
          if (r && r.o) k.answerErr({ code: r.o.code, message: r.o.msg }, env, client);
          else refuse(err, env, client);
          done();
          return;
        }
        k.requests.command(env, msg, done, (outcome) => {
          // The first answer goes out right after this; the copies that waited follow it.
          const waiters = store.finish(env.key, outcome);
          if (waiters.length) setImmediate(() => { for (const w of waiters) { repeat(outcome, w.env, w.client); w.done(); } });
        });
      });
    },
  };
}

module.exports = { createKeyedCommands };
