'use strict';
/**
 * Plant ids: the one rule for what names a plant, everywhere one appears (one cloud serves many
 * plants, so every name must be checked the same way): a peer's
 * `?plant=` on the link endpoints, a token's scope (lib/access/auth.js), an MQTT topic level
 * (`s7twin/<plant>/…`, lib/mqtt/auth.js) and the fleet's Redis keys and channels
 * (lib/fleet/backplane.js). One MQTT topic level: no wildcards, no '/', no '$'; short enough for a key.
 */
const { codedError } = require('./errors');

const PLANT_RE = /^[A-Za-z0-9_.-]{1,64}$/;
/** The plant of a single-plant setup when S7T_PLANT is not set (nodes/lib/core/local.js, the flows). */
const DEFAULT_PLANT = 'plant1';

/** Error with a stable `code`. */
const PlantError = codedError('PlantError');

/** @param {*} id */
const isPlant = (id) => typeof id === 'string' && PLANT_RE.test(id);

/**
 * @param {*} id
 * @returns {string} id
 * @throws {PlantError} E_PLANT
 */
function checkPlant(id) {
  if (!isPlant(id)) throw new PlantError('E_PLANT', `invalid plant id ${JSON.stringify(id)}: 1-64 characters of [A-Za-z0-9_.-]`);
  return id;
}

module.exports = { PLANT_RE, DEFAULT_PLANT, PlantError, isPlant, checkPlant };
