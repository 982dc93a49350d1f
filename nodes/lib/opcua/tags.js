'use strict';
/**
 * The OPC UA view of a plant's I/O table, shared by the cloud server, the edge bridge and the
 * twin transport: which node id a plant variable has on the PLC and on the cloud server, how
 * values are typed as OPC UA Variants, and which role may write what. Pure functions, no sockets.
 * Where a table is not given, the demo plant's is meant.
 *
 * Cloud server node ids: `ns=1;s=<plant>.<Name>` (e.g. `ns=1;s=plant1.ConveyorBelt`), in the
 * server's own namespace (index 1, URI `urn:s7twin:<plant>:cloud`), browse path
 * `Objects/<plant>/Commands/<Name>` for the tags the twin writes (dir `in`) and
 * `Objects/<plant>/States/<Name>` for the PLC outputs (dir `out`).
 * PLC node ids: the table's `opcua` column (`ns=3;s="DB1"."ConveyorBelt"`, as an S7-1500 names them).
 */
const { codedError } = require('../core/errors');
const { demoTable } = require('../core/io-table');
const { normalise, shortReal, TYPES } = require('../core/table/types');
const { numberOr } = require('../core/props');

const DEFAULTS = {
  plant: 'plant1',
  namespaceIndex: 1, // node-opcua's own namespace: the first after the standard one
};

/** Error with a stable `code`. */
const OpcuaTagError = codedError('OpcuaTagError');

/** Plant ids become part of node ids and browse names: keep them to a safe alphabet. */
function checkPlant(plant) {
  const p = plant === undefined || plant === null || plant === '' ? DEFAULTS.plant : String(plant);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(p)) throw new OpcuaTagError('E_PLANT', `plant id must be 1-64 of [A-Za-z0-9_-], got ${JSON.stringify(plant)}`);
  return p;
}

/**
 * The tags that live on the cloud server: every streamed tag of the table (the demo plant's
 * ScanCount is a diagnostic that is never sent per scan, so it is not mirrored).
 * @param {object} [table] default: the demo plant's
 * @returns {object[]}
 */
function cloudTags(table = demoTable()) {
  return table.streamed;
}

/**
 * Node id of a tag on the cloud server.
 * @param {string|object} tag short name, long name or tag object
 * @param {{plant?: string, ns?: number, table?: object}} [opts] table: to look a name up in
 * @returns {string}
 */
function cloudNodeId(tag, opts = {}) {
  const t = typeof tag === 'string' ? (opts.table || demoTable()).get(tag) : tag;
  if (!t) throw new OpcuaTagError('E_UNKNOWN_TAG', `unknown tag ${JSON.stringify(tag)}`);
  return `ns=${opts.ns ?? DEFAULTS.namespaceIndex};s=${checkPlant(opts.plant)}.${t.name}`;
}

/** Namespace URI of the cloud server's plant namespace. */
function cloudNamespaceUri(plant) {
  return `urn:s7twin:${checkPlant(plant)}:cloud`;
}

/**
 * Node id of a tag on the PLC's OPC UA server (the table's `opcua` column).
 * @param {string|object} tag
 * @param {object} [table] to look a name up in (default: the demo plant's)
 * @returns {string}
 */
function plcNodeId(tag, table = demoTable()) {
  const t = typeof tag === 'string' ? table.get(tag) : tag;
  if (!t) throw new OpcuaTagError('E_UNKNOWN_TAG', `unknown tag ${JSON.stringify(tag)}`);
  return t.opcua;
}

/** The OPC UA built-in type of each S7 type, as an S7-1500's own OPC UA server maps them. */
const UA_TYPES = {
  BOOL: 'Boolean', BYTE: 'Byte', USINT: 'Byte', SINT: 'SByte', WORD: 'UInt16', UINT: 'UInt16', INT: 'Int16',
  DWORD: 'UInt32', UDINT: 'UInt32', DINT: 'Int32', REAL: 'Float', LREAL: 'Double', STRING: 'String',
};

/**
 * OPC UA data type name of a tag (a key of node-opcua's DataType enum).
 * @param {object} tag
 * @returns {string} Boolean, Byte, SByte, UInt16, Int16, UInt32, Int32, Float, Double or String
 */
function dataTypeOf(tag) {
  const t = UA_TYPES[tag.type];
  if (!t) throw new OpcuaTagError('E_TYPE', `no OPC UA type for ${tag.type}`);
  return t;
}

/**
 * A Variant-like value for a tag: booleans as true/false, numbers and text checked for type and
 * range.
 * @param {object} tag
 * @param {*} value 0/1/true/false for BOOL, a number or text otherwise
 * @returns {{dataType: string, value: boolean|number|string}}
 * @throws {TagError} E_TYPE, E_RANGE (from the table's normalise)
 */
function toVariant(tag, value) {
  const v = normalise(tag, value);
  return { dataType: dataTypeOf(tag), value: tag.type === 'BOOL' ? v === 1 : v };
}

/**
 * The table's value of an OPC UA value: booleans as 0/1, a Float in its shortest decimal (what
 * the PLC's REAL reads as everywhere), text as text, other numbers as they are.
 * @param {object} tag
 * @param {*} value a Variant's `.value`
 * @returns {number|string}
 */
function fromVariant(tag, value) {
  if (tag.type === 'BOOL') return value ? 1 : 0;
  if (tag.type === 'STRING') return value === null || value === undefined ? '' : String(value);
  if (tag.type === 'REAL') return shortReal(Math.fround(Number(value)));
  return Number(value);
}

/**
 * Which role may write a tag on the cloud server: the twin writes commands (the PLC's inputs),
 * the edge writes states (the PLC's outputs), never the other way round.
 * @param {object} tag
 * @returns {'twin'|'edge'}
 */
function writerRole(tag) {
  return tag.dir === 'in' ? 'twin' : 'edge';
}

module.exports = {
  DEFAULTS, OpcuaTagError, UA_TYPES, checkPlant, cloudTags, cloudNodeId, cloudNamespaceUri, plcNodeId, dataTypeOf,
  toVariant, fromVariant, writerRole,
};

/**
 * An opc.tcp:// URL with host and port filled in when a flow's env vars left them empty
 * ("opc.tcp://:" after `opc.tcp://${S7T_PLC_HOST}:${S7T_PLC_OPCUA_PORT}` with neither set).
 * @param {string} url
 * @param {string} defHost
 * @param {number} defPort
 * @returns {string}
 * @throws {OpcuaTagError} E_CONFIG when it is not an opc.tcp URL at all
 */
function endpointUrl(url, defHost, defPort) {
  const s = String(url || '').trim();
  if (!s) return `opc.tcp://${defHost}:${defPort}`;
  const m = /^opc\.tcp:\/\/([^:/]*)(?::(\d*))?(\/.*)?$/.exec(s);
  if (!m) throw new OpcuaTagError('E_CONFIG', `not an opc.tcp://host:port URL: ${JSON.stringify(s)}`);
  return `opc.tcp://${m[1] || defHost}:${m[2] || defPort}${m[3] || ''}`;
}

/**
 * Node id of a probe variable, in the PLC's style on both servers: `ns=<ns>;s="Probe"."Req"[i]`
 * (twin → PLC) or `."Res"[i]` (PLC → twin). On the PLC ns is 3 (the table's template), on the
 * cloud server the server's own namespace (1).
 * @param {'req'|'res'} kind
 * @param {number} slot 0..
 * @param {{ns?: number}} [opts]
 * @returns {string}
 */
function probeNodeId(kind, slot, opts = {}) {
  if (kind !== 'req' && kind !== 'res') throw new OpcuaTagError('E_CONFIG', `probe kind must be req or res, got ${JSON.stringify(kind)}`);
  if (!Number.isInteger(slot) || slot < 0) throw new OpcuaTagError('E_PROBE_SLOT', `probe slot must be an integer >= 0, got ${JSON.stringify(slot)}`);
  return `ns=${opts.ns ?? DEFAULTS.namespaceIndex};s="Probe"."${kind === 'req' ? 'Req' : 'Res'}"[${slot}]`;
}

/**
 * Node id of a probe variable on the PLC (the table's probe templates).
 * @param {'req'|'res'} kind
 * @param {number} slot
 * @param {object} [table] default: the demo plant's
 * @returns {string}
 */
function plcProbeNodeId(kind, slot, table = demoTable()) {
  probeNodeId(kind, slot); // same checks
  return table.template(kind === 'req' ? table.TABLE.probe.opcuaRequest : table.TABLE.probe.opcuaResponse, { i: slot });
}

/** Parse a probe node id of either server: {kind, slot} or null. */
function parseProbeNodeId(nodeId) {
  const m = /;s="Probe"\."(Req|Res)"\[(\d+)\]$/.exec(String(nodeId));
  return m ? { kind: m[1] === 'Req' ? 'req' : 'res', slot: Number(m[2]) } : null;
}

/**
 * A probe value as the UInt32 it must be.
 * @param {*} value
 * @returns {number}
 * @throws {OpcuaTagError} E_PROBE_VALUE
 */
function checkProbeValue(value) {
  if (!Number.isInteger(value) || value < 0 || value > TYPES.UDINT.max) {
    throw new OpcuaTagError('E_PROBE_VALUE', `probe value must be a UInt32 (0..${TYPES.UDINT.max}), got ${JSON.stringify(value)}`);
  }
  return value;
}

module.exports.probeNodeId = probeNodeId;
module.exports.plcProbeNodeId = plcProbeNodeId;
module.exports.parseProbeNodeId = parseProbeNodeId;
module.exports.checkProbeValue = checkProbeValue;
module.exports.numberOr = numberOr; // nodes/lib/core/props.js, here for the OPC UA nodes
module.exports.endpointUrl = endpointUrl;
