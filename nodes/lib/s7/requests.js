'use strict';
/**
 * The edge's two writing requests, `cmd` and `probe`, from a checked envelope to its one answer:
 * the values checked (all or nothing, lib/s7/edge.js), written in one write (a probe's slots as
 * independent writes that may merge with other twins'), then an `ack` (a command) or the wait for
 * the PLC's copy in the response slots (a probe, lib/s7/probes.js). A request whose deadline has
 * passed is answered E_EXPIRED and never written (lateness(), and the write queue checks again
 * right before its write request goes out).
 */
const clock = require('../core/clock');
const { commandItems, probeItems } = require('./edge');

/**
 * Why a request may not be written now (its deadline, judged on this edge's clock), or null.
 * @param {{k: string, dl?: *}} env
 * @param {{deadline?: number}} msg msg.deadline: lib/core/clock.js time on this edge
 * @param {number} [now] lib/core/clock.js time
 * @returns {string|null}
 */
function lateness(env, msg, now = clock.now()) {
  if (typeof msg.deadline === 'number') {
    const left = msg.deadline - now;
    return left > 0 ? null : `its deadline passed ${Math.round(-left)} ms before it could be written`;
  }
  // A deadline on the cloud's clock with no offset estimate to judge it by: the clocks of two
  // hosts are never taken to be equal. (s7twin-link-in sets msg.deadline on the edge.)
  if (env.dl !== undefined) {
    return 'it carries a deadline on another host\'s clock and no estimate of that clock (msg.deadline); ' +
      'send it through an s7twin-link-in on an s7twin-link-client';
  }
  return null;
}

/**
 * The counter a refused or failed command write counts in.
 * @param {string} code the write's error code
 * @returns {'expired'|'refused'|'unknownOutcomes'|'writeErrors'}
 */
function commandFailure(code) {
  if (code === 'E_EXPIRED') return 'expired';
  if (code === 'E_PLC_DOWN' || code === 'E_BUSY') return 'refused';
  if (code === 'E_OUTCOME_UNKNOWN') return 'unknownOutcomes';
  return 'writeErrors';
}

/** The `ref`, `dl` and `cid` an answer to `env` carries. */
function answerFields(env) {
  const fields = { ref: { src: env.src, seq: env.seq }, dl: env.dl };
  if (env.cid !== undefined) fields.cid = env.cid;
  return fields;
}

/**
 * @param {object} r
 * @param {{write(items: object[], opts: object): Promise<void>, readSoon(): void}} r.conn lib/s7/connection.js
 * @param {object} r.counters the node's counters (cmds, acks, refused, expired, ...)
 * @param {{track: Function}} r.probes lib/s7/probes.js
 * @param {(kind: string, fields: object, client: *) => void} r.answer send an answer envelope
 * @param {(err: {code: string, message: string}, about: object, client: *) => void} r.answerErr
 * @param {object} [r.table] the plant's I/O table (default: the demo plant's)
 * @returns {{command(env, msg, done): void, probe(env, msg, done): void}} each calls done() once
 *   its one answer went out
 */
function createRequests(r) {
  const { conn, counters } = r;
  const writeOpts = (msg) => (typeof msg.deadline === 'number' ? { deadline: msg.deadline } : {});
  /** Check with `check`; on a bad value answer and return null. */
  function itemsOf(check, env, msg, done) {
    try {
      return check(env.d, r.table);
    } catch (err) {
      counters.refused += 1;
      r.answerErr(err, env, msg._client);
      done();
      return null;
    }
  }

  return {
    command(env, msg, done) {
      counters.cmds += 1;
      const items = itemsOf(commandItems, env, msg, done);
      if (!items) return;
      conn.write(items, writeOpts(msg)).then(() => {
        counters.acks += 1;
        r.answer('ack', answerFields(env), msg._client);
        done();
      }, (err) => {
        const counter = commandFailure(err.code);
        counters[counter] = (counters[counter] || 0) + 1;
        r.answerErr(err, env, msg._client);
        done();
      });
    },

    probe(env, msg, done) {
      counters.probes += 1;
      const items = itemsOf(probeItems, env, msg, done);
      if (!items) return;
      const slots = items.map((i) => ({ addr: i.addr, value: i.value }));
      conn.write(slots, { ...writeOpts(msg), independent: true }).then(() => {
        r.probes.track({ src: env.src, seq: env.seq, cid: env.cid, dl: env.dl }, msg._client, items);
        conn.readSoon();
        done();
      }, (err) => {
        counters[err.code === 'E_EXPIRED' ? 'expired' : 'refused'] += 1;
        r.answerErr(err, env, msg._client);
        done();
      });
    },
  };
}

module.exports = { createRequests, lateness, commandFailure, answerFields };
