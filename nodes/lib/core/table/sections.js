'use strict';
/**
 * What a table says besides its tags, with the defaults a table that leaves them out gets: the
 * PLC's probe blocks, the MQTT topic templates, where the Modbus map starts and where its probe
 * slots are, the probe variables' node ids. The defaults are the demo plant's, so a table of
 * tags alone runs beside it on every path the same way. Browser-safe.
 */
const DEMO = require('../io-table.json');

/** The PLC section's defaults (DB numbers of the probe blocks, slots per block, rack and slot). */
const PLC = Object.freeze({ rack: DEMO.plc.rack, slot: DEMO.plc.slot, probeRequestDb: DEMO.plc.probeRequestDb, probeResponseDb: DEMO.plc.probeResponseDb,
  probeSlots: DEMO.plc.probeSlots });

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The sections of a definition with every default filled in.
 * @param {object} def
 * @returns {{plc: object, mqtt: object, modbus: object, probe: object, markers: object[]}}
 */
function sectionsOf(def) {
  const plc = { ...PLC, ...(isObj(def.plc) ? def.plc : {}) };
  const modbus = {
    commandRegister: 0, probeRequestBase: DEMO.modbus.probeRequestBase, probeResponseBase: DEMO.modbus.probeResponseBase,
    ...(isObj(def.modbus) ? def.modbus : {}),
  };
  const probe = {
    type: 'UDINT',
    request: `DB${plc.probeRequestDb},UDINT{4*i}`,
    response: `DB${plc.probeResponseDb},UDINT{4*i}`,
    opcuaRequest: DEMO.probe.opcuaRequest,
    opcuaResponse: DEMO.probe.opcuaResponse,
    ...(isObj(def.probe) ? def.probe : {}),
  };
  return {
    plc, modbus, probe,
    mqtt: { ...DEMO.mqtt, ...(isObj(def.mqtt) ? def.mqtt : {}) },
    markers: Array.isArray(def.markers) ? def.markers : [],
  };
}

module.exports = { sectionsOf, DEMO };
