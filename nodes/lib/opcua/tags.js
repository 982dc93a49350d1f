'use strict';
/**
 * The OPC UA view of the tag dictionary, shared by the cloud server, the edge bridge and the twin
 * transport: which node id a plant variable has on the PLC and on the cloud server, how values are
 * typed as OPC UA Variants, and which role may write what. Pure functions, no sockets.
 *
 * Cloud server node ids: `ns=1;s=<plant>.<Name>` (e.g. `ns=1;s=plant1.ConveyorBelt`), in the
 * server's own namespace (index 1, URI `urn:s7twin:<plant>:cloud`), browse path
 * `Objects/<plant>/Commands/<Name>` for the tags the twin writes (dir `in`) and
 * `Objects/<plant>/States/<Name>` for the PLC outputs (dir `out`).
 * PLC node ids: the table's `opcua` column (`ns=3;s="DB1"."ConveyorBelt"`, as an S7-1500 names them).
 */
const { codedError } = require('../core/errors');
const tags = require('../core/tags');
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
 * The tags that live on the cloud server: every streamed tag of the table (ScanCount is a
 * diagnostic that is never sent per scan, so it is not mirrored).
 * @returns {object[]}
 */
function cloudTags() {
  return tags.tags.filter((t) => !t.noStream);
}

/**
 * Node id of a tag on the cloud server.
 * @param {string|object} tag short name, long name or tag object
 * @param {{plant?: string, ns?: number}} [opts]
 * @returns {string}
 */
function cloudNodeId(tag, opts = {}) {
  const t = typeof tag === 'string' ? tags.get(tag) : tag;
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
 * @returns {string}
 */
function plcNodeId(tag) {
  const t = typeof tag === 'string' ? tags.get(tag) : tag;
  if (!t) throw new OpcuaTagError('E_UNKNOWN_TAG', `unknown tag ${JSON.stringify(tag)}`);
  return t.opcua;
}

/**
 * OPC UA data type name of a tag (a key of node-opcua's DataType enum).
 * @param {object} tag
 * @returns {'Boolean'|'Int16'|'Int32'|'UInt32'}
 */
function dataTypeOf(tag) {
  switch (tag.type) {
    case 'BOOL': return 'Boolean';
    case 'INT': return 'Int16';
    case 'DINT': return 'Int32';
    case 'UDINT': return 'UInt32';
    default: throw new OpcuaTagError('E_TYPE', `no OPC UA type for ${tag.type}`);
  }
}

/**
 * A Variant-like value for a tag: booleans as true/false, integers checked for range.
 * @param {object} tag
 * @param {*} value 0/1/true/false for BOOL, an integer otherwise
 * @returns {{dataType: string, value: boolean|number}}
 * @throws {TagError} E_TYPE, E_RANGE (from tags.normalise)
 */
function toVariant(tag, value) {
  const v = tags.normalise(tag, value);
  return { dataType: dataTypeOf(tag), value: tag.type === 'BOOL' ? v === 1 : v };
}

/**
 * The dictionary's value of an OPC UA value: booleans as 0/1, numbers as they are.
 * @param {object} tag
 * @param {*} value a Variant's `.value`
 * @returns {number}
 */
function fromVariant(tag, value) {
  if (tag.type === 'BOOL') return value ? 1 : 0;
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
  DEFAULTS, OpcuaTagError, checkPlant, cloudTags, cloudNodeId, cloudNamespaceUri, plcNodeId, dataTypeOf,
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
 * @returns {string}
 */
function plcProbeNodeId(kind, slot) {
  probeNodeId(kind, slot); // same checks
  return tags.template(kind === 'req' ? tags.TABLE.probe.opcuaRequest : tags.TABLE.probe.opcuaResponse, { i: slot });
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
  if (!tags.isProbeValue(value)) {
    throw new OpcuaTagError('E_PROBE_VALUE', `probe value must be a UInt32 (0..${tags.UDINT_MAX}), got ${JSON.stringify(value)}`);
  }
  return value;
}

module.exports.probeNodeId = probeNodeId;
module.exports.plcProbeNodeId = plcProbeNodeId;
module.exports.parseProbeNodeId = parseProbeNodeId;
module.exports.checkProbeValue = checkProbeValue;
module.exports.numberOr = numberOr; // nodes/lib/core/props.js, here for the OPC UA nodes
module.exports.endpointUrl = endpointUrl;
