'use strict';
/**
 * The safety invariants of a command stream under a fault (bench/lib/faults.js bookkeeping: the
 * twin's answers and the PLC's input log), asserted in one place for the fault suite and the
 * fleet's killed instance.
 */
const assert = require('node:assert/strict');

/**
 * Every command answered exactly once; nothing written after its deadline, though refused, or
 * without a command; nothing acknowledged undone; nothing applied twice; the PLC ends with the last acknowledged inputs;
 * commands acknowledged again after the fault.
 * @param {object} r one stream's result (analyse() of bench/lib/faults.js)
 * @param {string} what names the stream in the messages
 */
function assertCommandsSafe(r, what) {
  assert.ok(r.sent > 20, `${what}: the stream ran`);
  assert.equal(r.unanswered, 0, `${what}: every command answered`);
  assert.equal(r.duplicates, 0, `${what}: never two answers`);
  assert.equal(r.appliedLate, 0, `${what}: nothing written after its deadline`);
  assert.equal(r.appliedRefused, 0, `${what}: nothing refused was written`);
  assert.equal(r.notCommanded, 0, `${what}: no input changed without a command`);
  assert.equal(r.wentBack, 0, `${what}: no acknowledged write undone`);
  assert.equal(r.appliedTwice, 0, `${what}: no command applied twice (keys: one effect however often it was sent)`);
  assert.ok(r.finalOk, `${what}: the PLC ends with the last acknowledged inputs`);
  assert.ok(r.recoveryMs !== null, `${what}: commands acknowledged again after the fault`);
}

module.exports = { assertCommandsSafe };
