'use strict';
/**
 * Errors of the virtual PLC. Every error carries a stable `code`, as ws and the tag dictionary
 * do, so callers (and tests) branch on the code, never on the message.
 */

const { codedError } = require('../nodes/lib/core/errors');
const PlcError = codedError('PlcError');

module.exports = { PlcError };
