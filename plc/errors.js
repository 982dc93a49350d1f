'use strict';
/**
 * Errors of the virtual PLC. Every error carries a stable `code`, as ws and the tag dictionary
 * do, so callers (and tests) branch on the code, never on the message.
 */

class PlcError extends Error {
  /**
   * @param {string} code stable error code (E_...)
   * @param {string} message human-readable detail
   */
  constructor(code, message) {
    super(message);
    this.name = 'PlcError';
    this.code = code;
  }
}

module.exports = { PlcError };
