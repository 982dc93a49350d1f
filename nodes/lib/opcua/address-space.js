'use strict';
/**
 * The cloud OPC UA server's address space (server.js):
 *   Objects/<plant>/Commands/<Name>  the tags the twin writes (dir `in`), role Operator
 *   Objects/<plant>/States/<Name>    the PLC's outputs, written by the edge, role Engineer
 *   Objects/<plant>/Probe/{Req,Res}/[i]  probe slots, node ids as on the PLC
 * Every variable is readable by any authenticated user (by anonymous ones too when the server
 * allows them) and writable by one role only; the standard role permissions decide, so a client
 * that may not write sees BadUserAccessDenied.
 *
 * Writes are seen through a hook on writeAttribute: that is where node-opcua's write service
 * checks the permissions, so both outcomes (accepted, with the writer's session, or refused) are
 * seen there, and the writer's identity travels with the change.
 */
const ot = require('./tags');

/** A tag's value before anything was written: 0, or empty text for a STRING. */
const zeroOf = (tag) => (tag.type === 'STRING' ? '' : 0);

/**
 * Hook the writes of a variable's Value: `begin(context, writeValue)` is called as a write starts
 * (before the value changes) and returns `settle(outcome, status)`, called once the write is done
 * with 'good', 'denied' (BadUserAccessDenied) or 'failed' (any other bad status), and the
 * status's name. Writes of other attributes pass unseen. Both of node-opcua's call styles
 * (callback and promise) are kept.
 * @param {object} variable a UAVariable
 * @param {{AttributeIds: object, StatusCodes: object}} opcua node-opcua's enums
 * @param {(context: object, writeValue: object) => (outcome: 'good'|'denied'|'failed', status: string) => void} begin
 */
function hookWrites(variable, { AttributeIds, StatusCodes }, begin) {
  const original = variable.writeAttribute.bind(variable);
  variable.writeAttribute = (context, writeValue, cb) => {
    if (writeValue.attributeId !== AttributeIds.Value) return original(context, writeValue, cb);
    const settle = begin(context, writeValue);
    const finish = (status) => {
      if (!status) return;
      if (status.isGood()) settle('good', status.name);
      else settle(status === StatusCodes.BadUserAccessDenied ? 'denied' : 'failed', status.name);
    };
    if (typeof cb === 'function') return original(context, writeValue, (err, status) => { finish(status); cb(err, status); });
    return original(context, writeValue).then((status) => { finish(status); return status; });
  };
}

/**
 * The role permissions of a variable: readable by authenticated users (and anonymous ones when
 * allowed), writable by `writer` only.
 * @param {object} opcua node-opcua (PermissionType, WellKnownRoles)
 * @param {object} writer a WellKnownRoles value
 * @param {boolean} allowAnonymous
 * @returns {Array<{roleId, permissions: number}>}
 */
function permissionsFor({ PermissionType, WellKnownRoles }, writer, allowAnonymous) {
  const read = PermissionType.Browse | PermissionType.Read | PermissionType.ReadRolePermissions;
  const write = read | PermissionType.Write;
  return [
    { roleId: WellKnownRoles.Anonymous, permissions: allowAnonymous ? read : 0 },
    { roleId: WellKnownRoles.AuthenticatedUser, permissions: read },
    { roleId: writer, permissions: write },
  ];
}

/**
 * The plant's variables, one per tag of the cloud (tags.js cloudTags), starting from `values`
 * (a restarted server keeps its image: clients that come back find the plant as it was); tags
 * missing from `values` are set to 0 there.
 * @returns {Map<string, object>} short name -> UAVariable
 */
function addPlantVariables(opcua, ns, plantFolder, { cfg, values, onWrite }) {
  const { DataType, Variant, WellKnownRoles } = opcua;
  const folders = {
    in: ns.addObject({ organizedBy: plantFolder, browseName: 'Commands', nodeId: `s=${cfg.plant}.Commands` }),
    out: ns.addObject({ organizedBy: plantFolder, browseName: 'States', nodeId: `s=${cfg.plant}.States` }),
  };
  const variables = new Map();
  for (const tag of ot.cloudTags(cfg.table)) {
    const nodeId = ot.cloudNodeId(tag, { plant: cfg.plant, ns: ns.index });
    const dataType = DataType[ot.dataTypeOf(tag)];
    const v = ns.addVariable({
      componentOf: folders[tag.dir],
      browseName: tag.name,
      description: tag.desc,
      nodeId: `s=${cfg.plant}.${tag.name}`,
      dataType,
      accessLevel: 'CurrentRead | CurrentWrite',
      userAccessLevel: 'CurrentRead | CurrentWrite',
      minimumSamplingInterval: cfg.minimumSamplingIntervalMs,
      value: new Variant({ dataType, value: ot.toVariant(tag, values[tag.short] ?? zeroOf(tag)).value }),
    });
    const writer = ot.writerRole(tag) === 'twin' ? WellKnownRoles.Operator : WellKnownRoles.Engineer;
    v.setRolePermissions(permissionsFor(opcua, writer, cfg.allowAnonymous));
    values[tag.short] = values[tag.short] ?? zeroOf(tag);
    hookWrites(v, opcua, onWrite(tag, nodeId, v));
    variables.set(tag.short, v);
  }
  return variables;
}

/**
 * Probe variables, node ids as on the PLC: `ns=<ns>;s="Probe"."Req"[i]` (the twin writes, the
 * edge relays to the PLC) and `."Res"[i]` (the edge writes what the PLC answered, twins read).
 * UInt32 only: node-opcua refuses any other Variant type with BadTypeMismatch.
 * MinimumSamplingInterval 0: a monitored item on them is exception-based (no sampling timer per
 * item, a change is queued as it happens), so 2 x probeSlots items cost nothing while idle.
 */
function addProbeVariables(opcua, ns, plantFolder, { cfg, probeValues, onWrite }) {
  if (!cfg.probeSlots) return;
  const { DataType, WellKnownRoles } = opcua;
  const probe = ns.addObject({ organizedBy: plantFolder, browseName: 'Probe', nodeId: 's="Probe"' });
  const folders = {
    req: ns.addObject({ componentOf: probe, browseName: 'Req', nodeId: 's="Probe"."Req"' }),
    res: ns.addObject({ componentOf: probe, browseName: 'Res', nodeId: 's="Probe"."Res"' }),
  };
  for (const kind of ['req', 'res']) {
    const writer = kind === 'req' ? WellKnownRoles.Operator : WellKnownRoles.Engineer;
    for (let i = 0; i < cfg.probeSlots; i++) {
      const nodeId = ot.probeNodeId(kind, i, { ns: ns.index });
      const v = ns.addVariable({
        componentOf: folders[kind],
        browseName: `${kind === 'req' ? 'Req' : 'Res'}[${i}]`,
        nodeId: nodeId.replace(/^ns=\d+;/, ''),
        dataType: DataType.UInt32,
        accessLevel: 'CurrentRead | CurrentWrite',
        userAccessLevel: 'CurrentRead | CurrentWrite',
        minimumSamplingInterval: 0,
        value: { dataType: DataType.UInt32, value: probeValues[kind][i] },
      });
      v.setRolePermissions(permissionsFor(opcua, writer, cfg.allowAnonymous));
      hookWrites(v, opcua, onWrite(kind, i, v));
    }
  }
}

/**
 * Build the address space of a server that was initialised.
 * @param {object} opcua node-opcua
 * @param {object} addressSpace the server's (server.engine.addressSpace)
 * @param {object} parts
 * @param {object} parts.cfg server-config.js serverConfig
 * @param {Object<string, number>} parts.values the image by short name (filled up with 0)
 * @param {{req: number[], res: number[]}} parts.probeValues the probe slots' values
 * @param {(tag, nodeId: string, variable) => Function} parts.onTagWrite hookWrites' begin of a tag
 * @param {(kind: 'req'|'res', slot: number, variable) => Function} parts.onProbeWrite ... of a probe slot
 * @returns {Map<string, object>} short name -> the tag's UAVariable
 */
function buildAddressSpace(opcua, addressSpace, { cfg, values, probeValues, onTagWrite, onProbeWrite }) {
  const ns = addressSpace.getOwnNamespace();
  const plantFolder = ns.addObject({ organizedBy: addressSpace.rootFolder.objects, browseName: cfg.plant, nodeId: `s=${cfg.plant}` });
  const variables = addPlantVariables(opcua, ns, plantFolder, { cfg, values, onWrite: onTagWrite });
  addProbeVariables(opcua, ns, plantFolder, { cfg, probeValues, onWrite: onProbeWrite });
  return variables;
}

module.exports = { buildAddressSpace, hookWrites, permissionsFor };
