'use strict';
/**
 * What the cloud Modbus server tells the command log (`audit`, lib/history/command-audit.js,
 * handed in by the server node) of each write (FC6, FC16) that touches the registers of the
 * commands (the cloud-writable tags': the demo plant's HR0), from any client:
 *
 * - who: nobody. Modbus has no login: a command is known by its source only. `from` and `src` are
 *   the client's address:port, `seq` the request's transaction id (the client's own number);
 *   `target` the registers written (`HR0`, `HR0..4`);
 * - what it asked: every tag wholly inside the registers written, decoded by the plant's table
 *   (HR0: all ten inputs, as one write of HR0 sets them all);
 * - what the server did: `relayed` (the registers hold new words: the edge, which polls them,
 *   writes the inputs to the PLC if they still differ from its last read when it polls next),
 *   `unchanged` (they held those words already: the edge sees no change and writes nothing), or
 *   `refused` with the server's code: E_MODBUS_NOT_EDGE (the write reaches into registers only
 *   the edge writes), E_MODBUS_ADDRESS (past the bank), E_RATE_LIMIT (the connection went over its
 *   request rate: the write was not applied). Modbus gives the client no answer beyond the echo,
 *   so not "written".
 *
 * Registers written from the flow (the server node's input) that touch the commands are a command
 * too, with the node as its sender (role `flow`). Reads, the edge's writes of states and the
 * probe slots are not commands and are not logged.
 *
 * Plain module: the protocol modules never import lib/history (docs/layout.md).
 */
const clock = require('../core/clock');
const mbtcp = require('./tcp');
const { commandRangesOf } = require('./map');

/** `HR<a>` or `HR<a>..<b>`. */
const targetOf = (address, qty) => (qty > 1 ? `HR${address}..${address + qty - 1}` : `HR${address}`);

/**
 * @param {object} o
 * @param {{taken(c: object): boolean}} [o.audit] the command log's recorder; none: nothing is logged
 * @param {object} o.table the plant's I/O table
 * @param {string} o.plant the server's plant
 * @param {() => number} [o.now] the cloud's clock
 */
function createCommandLog(o) {
  const { audit, table } = o;
  const now = o.now || clock.now;
  const ranges = commandRangesOf(table);
  /** Does a write of address..address+qty-1 touch a command register? */
  const touches = (address, qty) => ranges.some((r) => address <= r.to && address + qty - 1 >= r.from);
  const asked = (address, words) => {
    const d = table.decodeRegisters(address, words);
    return Object.keys(d).length ? d : undefined;
  };
  let localSeq = 0;

  /** Log one write request of a client (parsed), with its outcome. */
  function write(req, remote, tid, outcome) {
    audit.taken({
      via: 'modbus', plant: o.plant, at: outcome.at, from: remote, src: remote, seq: tid, target: targetOf(req.address, req.qty),
      d: asked(req.address, req.words), outcome: outcome.outcome, code: outcome.code, msg: outcome.msg,
    });
  }

  return {
    /**
     * A client's request was answered (lib/modbus/registers.js handle's result).
     * @param {{req?: object, changed?: boolean, exception?: boolean, code?: string, message?: string}} r
     * @param {string} remote the client's address:port
     * @param {number} tid the request's transaction id
     */
    handled(r, remote, tid) {
      const { req } = r;
      if (!audit || !req || !req.words || !touches(req.address, req.qty)) return;
      const at = now();
      if (r.exception) write(req, remote, tid, { at, outcome: 'refused', code: r.code, msg: r.message });
      else write(req, remote, tid, { at, outcome: r.changed ? 'relayed' : 'unchanged' });
    },
    /**
     * A client's request refused before it was served (its connection over its request rate).
     * @param {Buffer} pdu
     * @param {string} remote
     * @param {number} tid
     * @param {{code: string, message: string}} why
     */
    limited(pdu, remote, tid, why) {
      if (!audit) return;
      let req;
      try { req = mbtcp.parseRequest(pdu); } catch { return; } // not a request that writes anything
      if (!req.words || !touches(req.address, req.qty)) return;
      write(req, remote, tid, { at: now(), outcome: 'refused', code: why.code, msg: why.message });
    },
    /**
     * Registers written from the flow (the server node's input): a command when they touch the
     * commands', with the node as its sender.
     * @param {{id: string, name?: string}} by
     * @param {number} address
     * @param {number[]} words
     * @param {boolean} changed
     */
    local(by, address, words, changed) {
      if (!audit || !by || !touches(address, words.length)) return;
      localSeq += 1;
      audit.taken({
        via: 'modbus', plant: o.plant, at: now(), who: { user: by.name || by.id, role: 'flow' }, src: 'local', seq: localSeq, node: by.id,
        target: targetOf(address, words.length), d: asked(address, words), outcome: changed ? 'relayed' : 'unchanged',
      });
    },
  };
}

module.exports = { createCommandLog, targetOf };
