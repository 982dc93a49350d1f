'use strict';
/**
 * The one error class of the edge's S7 side (connection, queue, addresses): an Error with a stable
 * `code`, so every refusal an S7 write can meet reaches its sender as the same code.
 */
const { codedError } = require('../core/errors');

/** Error with a stable `code` (E_PLC_DOWN, E_BUSY, E_EXPIRED, E_WRITE, E_OUTCOME_UNKNOWN, ...). */
const S7Error = codedError('S7Error');

/**
 * @param {string} code
 * @param {string} message
 * @returns {Error & {code: string}}
 */
const s7Error = (code, message) => new S7Error(code, message);

module.exports = { S7Error, s7Error };
