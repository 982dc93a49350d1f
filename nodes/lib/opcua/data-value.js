'use strict';
/**
 * node-opcua's DataValues and status codes as the client session (session.js) hands them on:
 * plain objects with the value, whether it is good, and its timestamps as numbers a caller can
 * compare. Pure functions; the node-opcua enums come in as arguments.
 */

/** A DataValue's source timestamp in ms with sub-ms picoseconds (node-opcua keeps them monotonic), or null. */
function sourceTime(dv) {
  const t = dv.sourceTimestamp;
  return t ? t.getTime() + (dv.sourcePicoseconds || 0) / 1e9 : null;
}

/**
 * A DataValue's server timestamp as one exact number, picoseconds since 1970 (a BigInt: a double
 * cannot hold milliseconds and picoseconds apart), or null. The server's own clock: a value
 * sampled or written before a Read has a clock no later than that Read's (the Read of a value
 * with maxAge 0 stamps it with the time of the read, node-opcua-server addressSpace_accessor.js).
 */
function serverClock(dv) {
  const t = dv.serverTimestamp;
  return t ? BigInt(t.getTime()) * 1000000000n + BigInt(dv.serverPicoseconds || 0) : null;
}

/**
 * One notification of a monitored item.
 * @param {object} item node-opcua's monitored item (itemToMonitor.nodeId)
 * @param {object} dv the DataValue it reported
 * @param {boolean} serverClocks with the server clock (else `clock` is null)
 * @returns {{nodeId: string, value: *, status: object, ts: number|null, clock: bigint|null}}
 */
function notification(item, dv, serverClocks) {
  return {
    nodeId: item.itemToMonitor.nodeId.toString(), value: dv.value.value, status: dv.statusCode,
    ts: sourceTime(dv), clock: serverClocks ? serverClock(dv) : null,
  };
}

/**
 * A Write request's nodesToWrite.
 * @param {Array<{nodeId: string, dataType: string, value: *}>} items dataType: a key of DataType
 * @param {{AttributeIds: object, DataType: object}} opcua node-opcua's enums
 * @returns {object[]}
 */
function writeRequest(items, { AttributeIds, DataType }) {
  return items.map((it) => ({
    nodeId: it.nodeId,
    attributeId: AttributeIds.Value,
    value: { value: { dataType: DataType[it.dataType], value: it.value } },
  }));
}

/**
 * A Write's status codes, item by item.
 * @param {object[]} codes node-opcua StatusCodes, one per item
 * @param {Array<{nodeId: string}>} items as written
 * @returns {Array<{nodeId: string, status: string, good: boolean}>}
 */
function writeResults(codes, items) {
  return codes.map((c, i) => ({ nodeId: items[i].nodeId, status: c.name, good: c.isGood() }));
}

/**
 * A Read's DataValues, item by item.
 * @param {object[]} dvs
 * @param {string[]} nodeIds as read
 * @param {boolean} serverClocks with the server clock (else `clock` is null)
 * @returns {Array<{nodeId: string, value: *, good: boolean, status: string, clock: bigint|null}>}
 */
function readResults(dvs, nodeIds, serverClocks) {
  return dvs.map((dv, i) => ({
    nodeId: nodeIds[i], value: dv.value.value, good: dv.statusCode.isGood(), status: dv.statusCode.name,
    clock: serverClocks ? serverClock(dv) : null,
  }));
}

module.exports = { sourceTime, serverClock, notification, writeRequest, writeResults, readResults };
