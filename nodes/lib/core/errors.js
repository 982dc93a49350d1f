'use strict';
/**
 * Error classes with a stable `code` (as ws's errors carry one), made in one place so every
 * module's errors have the same shape: `throw new TagError('E_RANGE', 'value … outside …')`.
 * Every code is listed, with what it means and whether a twin resyncs after it, in
 * ./error-codes.js (docs/errors.md is made from it); a test fails on a code raised but not listed.
 */

/**
 * Make an Error subclass whose instances carry `name`, a stable `code` and optional extra fields.
 * @param {string} name class name, also each instance's `name`
 * @returns {new (code: string, message: string, extra?: object) => Error & {code: string}}
 */
function codedError(name) {
  const C = class extends Error {
    constructor(code, message, extra) {
      super(message);
      this.code = code;
      if (extra) Object.assign(this, extra);
    }
  };
  Object.defineProperty(C, 'name', { value: name });
  C.prototype.name = name;
  return C;
}

module.exports = { codedError };
