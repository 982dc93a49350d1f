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

/** An error as the outcome a key store records. */
const failure = (err) => ({ k: 'err', code: err.code || 'E_INTERNAL', msg: err.message });

/**
 * The probe slots a partly written probe frame did write, as `{slot: value}`, or null.
 * @param {Array<{slot: number, addr: string, value: number}>} items the frame's (lib/s7/edge.js probeItems)
 * @param {Array<{addr: string}>} [written] the write items that were written (err.written)
 */
function writtenSlots(items, written) {
  if (!written || !written.length) return null;
  const done = new Set(written.map((w) => w.addr));
  return Object.fromEntries(items.filter((i) => done.has(i.addr)).map((i) => [String(i.slot), i.value]));
}

/** The `ref`, `dl`, `cid` and `key` an answer to `env` carries. */
function answerFields(env) {
  const fields = { ref: { src: env.src, seq: env.seq }, dl: env.dl };
  if (env.cid !== undefined) fields.cid = env.cid;
  if (env.key !== undefined) fields.key = env.key;
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
 * @returns {{command(env, msg, done, settled?): void, probe(env, msg, done): void}} each calls
 *   done() once its one answer went out; a command calls settled(outcome) right before it
 *   ({k: 'ack'} or {k: 'err', code, msg}: what the key store records)
 */
function createRequests(r) {
  const { conn, counters } = r;
  const writeOpts = (msg) => (typeof msg.deadline === 'number' ? { deadline: msg.deadline } : {});
  /** Check with `check`; on a bad value answer, call refused(err) and return null. */
  function itemsOf(check, env, msg, refused) {
    try {
      return check(env.d, r.table);
    } catch (err) {
      counters.refused += 1;
      r.answerErr(err, env, msg._client);
      refused(err);
      return null;
    }
  }

  return {
    command(env, msg, done, settled = () => {}) {
      counters.cmds += 1;
      const items = itemsOf(commandItems, env, msg, (err) => { settled(failure(err)); done(); });
      if (!items) return;
      conn.write(items, writeOpts(msg)).then(() => {
        counters.acks += 1;
        settled({ k: 'ack' });
        r.answer('ack', answerFields(env), msg._client);
        done();
      }, (err) => {
        const counter = commandFailure(err.code);
        counters[counter] = (counters[counter] || 0) + 1;
        settled(failure(err));
        r.answerErr(err, env, msg._client);
        done();
      });
    },

    probe(env, msg, done) {
      counters.probes += 1;
      const items = itemsOf(probeItems, env, msg, () => done());
      if (!items) return;
      const slots = items.map((i) => ({ addr: i.addr, value: i.value }));
      conn.write(slots, { ...writeOpts(msg), independent: true }).then(() => {
        // Read from the next read on, which the connection makes readGapMs after the last (a read
        // asked for here, at once, made one read a write at 1,000 twins).
        r.probes.track({ src: env.src, seq: env.seq, cid: env.cid, dl: env.dl }, msg._client, items);
        done();
      }, (err) => {
        counters[err.code === 'E_EXPIRED' ? 'expired' : 'refused'] += 1;
        // A frame split over several write requests may have been written in part: its one
        // answer says which slots were (d), so that the twin knows what its probe left behind.
        const d = writtenSlots(items, err.written);
        r.answerErr(d ? Object.assign(err, { d }) : err, env, msg._client);
        done();
      });
    },
  };
}

module.exports = { createRequests, lateness, commandFailure, answerFields, writtenSlots };
