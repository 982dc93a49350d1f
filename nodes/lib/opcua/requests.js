'use strict';
/**
 * Read and Write requests of a client session (session.js), counted, with the bytes on the wire
 * refreshed after each. A request needs a live session now: none is queued for later.
 */
const { OpcuaSessionError } = require('./session-options');
const { writeRequest, writeResults, readResults } = require('./data-value');

/**
 * @param {object} opts
 * @param {string} opts.name label for errors
 * @param {boolean} [opts.serverClocks] read results carry the server clock (data-value.js)
 * @param {object} opts.counters the session's: writes, writeItems, writeErrors, reads
 * @param {() => object|null} opts.live the node-opcua session if connected now, else null
 * @param {() => object} opts.opcua node-opcua (loaded by the session's first connect)
 * @param {() => void} opts.refreshBytes after every request, failed ones too
 * @returns {{write: Function, read: Function}}
 */
function createRequests({ name, serverClocks, counters, live, opcua, refreshBytes }) {
  function sessionNow() {
    const s = live();
    if (!s) throw new OpcuaSessionError('E_NOT_CONNECTED', `${name}: not connected`);
    return s;
  }

  /**
   * Write several variables in one Write request.
   * @param {Array<{nodeId:string, dataType:string, value:*}>} items
   * @returns {Promise<Array<{nodeId:string, status:string, good:boolean}>>}
   * @throws {OpcuaSessionError} E_NOT_CONNECTED when there is no session now, E_WRITE
   */
  async function write(items) {
    const session = sessionNow();
    const nodesToWrite = writeRequest(items, opcua());
    counters.writes += 1;
    counters.writeItems += items.length;
    let codes;
    try {
      codes = await session.write(nodesToWrite);
    } catch (err) {
      counters.writeErrors += items.length;
      throw Object.assign(new OpcuaSessionError('E_WRITE', `${name}: write failed: ${err.message}`), { cause: err });
    } finally {
      refreshBytes();
    }
    const results = writeResults(codes, items);
    for (const r of results) if (!r.good) counters.writeErrors += 1;
    return results;
  }

  /**
   * Read the values of several variables in one Read request (maxAge 0: the server's current
   * values; with serverClocks, `clock` is the server's time of the read, see data-value.js).
   * @param {string[]} nodeIds
   * @returns {Promise<Array<{nodeId, value, good, status, clock}>>}
   * @throws {OpcuaSessionError} E_NOT_CONNECTED, E_READ
   */
  async function read(nodeIds) {
    const session = sessionNow();
    counters.reads += 1;
    let dvs;
    try {
      dvs = await session.read(nodeIds.map((nodeId) => ({ nodeId, attributeId: opcua().AttributeIds.Value })), 0);
    } catch (err) {
      throw Object.assign(new OpcuaSessionError('E_READ', `${name}: read failed: ${err.message}`), { cause: err });
    } finally {
      refreshBytes();
    }
    return readResults(dvs, nodeIds, !!serverClocks);
  }

  return { write, read };
}

module.exports = { createRequests };
