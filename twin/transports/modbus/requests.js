'use strict';
/**
 * The Modbus transport's requests on its one connection: one request at a time, the command
 * write first, then probe writes, then the poll. A write that is due is never queued behind more
 * than the request in flight, and while one is in flight further input changes are coalesced
 * into the next write (holding register 0 holds the whole image, so nothing is lost).
 *
 * The poll reads the PLC's states and counters (HR1..4) and reports what changed (everything, as
 * a 'snap', on the first poll of a connection), then the response of every probe still waiting
 * for its answer (HR4000+2i, a UDInt, high word first).
 *
 * A Modbus exception is an answer (the connection is fine): counted, and the next request goes
 * on. A timeout or a socket error means the connection is not to be trusted: the transport is
 * told (onBroken) and starts over on a fresh one. An answer that comes for a connection given up
 * meanwhile is ignored: it must not free the current connection's request slot.
 */
const codec = require('../../../nodes/lib/modbus/codec');

// The demo plant's blocks (HR0, HR1..4); another plant's come from its table (o.table).
const CMD = codec.COMMAND_REGISTER;
const STATE = codec.STATE_BLOCK;

/**
 * @param {object} o
 * @param {object} o.image the twin's input image (written whole to HR0)
 * @param {object} o.stats writes, polls, received, probesSent, probesAnswered, coalesced, exceptions are counted there
 * @param {(code: string, msg?: string) => void} o.countError
 * @param {Function[]} o.valueCbs cb(values, kind)
 * @param {Function[]} o.probeCbs cb(slot, value)
 * @param {() => void} o.onBroken a request failed in a way that the connection must be dropped
 * @param {object} [o.table] the plant's I/O table (default: the demo plant's): its commands block is
 *   written whole (one register: FC6), its states block polled
 */
function createRequests(o) {
  const c = codec.codecOf(o.table);
  const cmd = c.COMMAND_BLOCK;
  const state = c.STATE_BLOCK;
  let client = null; // the connected modbus-serial client, null while there is none
  let gen = 0; // connection generation: answers of an earlier one are ignored
  let busy = false;
  let dirty = false; // HR0 differs from what the server holds
  let pollDue = false;
  let snapNext = true; // the next poll is reported whole, as a 'snap'
  let last = null; // values of HR1..4 as last reported
  const probes = new Map(); // slot -> value awaiting its response
  const probeWrites = []; // [slot, value] not yet written

  /** The request that is due, started; null when none is. */
  function start() {
    if (dirty) {
      dirty = false;
      const words = c.encode(cmd.address, cmd.count, o.image);
      const write = words.length === 1 ? client.writeRegister(cmd.address, words[0]) : client.writeRegisters(cmd.address, words);
      return write.then(() => { o.stats.writes += 1; });
    }
    if (probeWrites.length) {
      const [slot, value] = probeWrites.shift();
      return client.writeRegisters(c.PROBE_REQUEST_BASE + 2 * slot, [value >>> 16, value & 0xffff])
        .then(() => { o.stats.probesSent += 1; });
    }
    if (pollDue) {
      pollDue = false;
      return poll();
    }
    return null;
  }

  /** Run the next due request. */
  function pump() {
    if (busy || !client) return;
    const job = start();
    if (!job) return;
    busy = true;
    const g = gen; // a request of an earlier connection must not free the current one
    job.then(() => {
      if (g !== gen) return;
      busy = false;
      pump();
    }, (err) => {
      if (g !== gen) return;
      busy = false;
      failed(err);
      pump();
    });
  }

  async function poll() {
    const res = await client.readHoldingRegisters(state.address, state.count);
    o.stats.polls += 1;
    const values = c.decode(state.address, res.data);
    const kind = snapNext ? 'snap' : 'state';
    const changed = snapNext || !last ? values : c.table.diff(last, values);
    snapNext = false;
    last = values;
    if (Object.keys(changed).length) {
      o.stats.received += 1;
      for (const cb of o.valueCbs) cb(changed, kind);
    }
    for (const [slot, value] of [...probes]) {
      const r = await client.readHoldingRegisters(c.PROBE_RESPONSE_BASE + 2 * slot, 2);
      const got = ((r.data[0] << 16) | r.data[1]) >>> 0;
      if (got === value && probes.get(slot) === value) {
        probes.delete(slot);
        o.stats.probesAnswered += 1;
        for (const cb of o.probeCbs) cb(slot, got);
      }
    }
  }

  function failed(err) {
    if (err && err.modbusCode !== undefined) {
      // A Modbus exception: the server answered, the connection is fine.
      o.stats.exceptions += 1;
      o.countError(`E_MODBUS_EXCEPTION_${err.modbusCode}`, err.message);
      return;
    }
    o.countError(err && err.errno === 'ETIMEDOUT' ? 'E_TIMEOUT' : 'E_REQUEST', err && err.message);
    o.onBroken(); // a timeout or a socket error: start over on a fresh connection
  }

  return {
    /**
     * A connection is up: requests go to `c`; the next poll is reported as a 'snap'.
     * @param {object} c the modbus-serial client
     * @param {boolean} writeImage whether HR0 must be written (the server's may not hold the plant as it is now)
     */
    attach(c, writeImage) {
      client = c;
      dirty = writeImage;
      snapNext = true;
      pollDue = true;
      pump();
    },
    /** The connection is given up: whatever it still answers is ignored. */
    detach() {
      client = null;
      gen += 1;
      busy = false;
    },
    /** The image changed: HR0 is written with the next request slot (one write for any number of changes). */
    command() {
      if (dirty) o.stats.coalesced += 1;
      dirty = true;
      pump();
    },
    /** Probe slot `slot` with the UDInt `value`; its answer is looked for by every poll. */
    probe(slot, value) {
      probes.set(slot, value >>> 0);
      probeWrites.push([slot, value >>> 0]);
      pump();
    },
    /** Time for a poll (the poll timer). */
    pollDue() {
      pollDue = true;
      pump();
    },
    get pendingProbes() { return probes.size; },
  };
}

module.exports = { createRequests, CMD, STATE };
