'use strict';
/**
 * lib/history/command-audit.js: a command's arrival and its one outcome as log entries; answers
 * to anything else are not recorded.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createCommandAudit, outcomeOf } = require('../../../../nodes/lib/history/command-audit');

function recorder() {
  const entries = [];
  const audit = createCommandAudit({ log: { append: (e) => { entries.push(e); return true; } }, now: () => 5000, maxOpen: 3 });
  return { audit, entries };
}

const cmd = (seq, extra = {}) => ({ v: 1, k: 'cmd', src: 'tw', seq, ts: 1, d: { se: 1 }, dl: 2000, ...extra });
const who = { token: 'abc123abc123', role: 'twin' };

test('outcomeOf: ack written, E_EXPIRED expired, E_OUTCOME_UNKNOWN and E_TIMEOUT unknown, any other err refused', () => {
  assert.equal(outcomeOf({ k: 'ack' }), 'written');
  assert.equal(outcomeOf({ k: 'err', e: { code: 'E_EXPIRED' } }), 'expired');
  assert.equal(outcomeOf({ k: 'err', e: { code: 'E_OUTCOME_UNKNOWN' } }), 'unknown');
  assert.equal(outcomeOf({ k: 'err', e: { code: 'E_TIMEOUT' } }), 'unknown');
  assert.equal(outcomeOf({ k: 'err', e: { code: 'E_NOT_WRITABLE' } }), 'refused');
});

test('a command is recorded as it arrives (who, from where, deadline, values), then its outcome with the PLC\'s time', () => {
  const { audit, entries } = recorder();
  audit.arrived({ via: 'ws', plant: 'p1', who, from: '127.0.0.1:5000', at: 1000, env: cmd(1, { cid: 'c1', ttl: 800, key: 'k-1' }) });
  assert.equal(entries.length, 1, 'the arrival is in the log before the command goes on');
  assert.deepEqual(entries[0], {
    t: 1000, kind: 'cmd', via: 'ws', plant: 'p1', token: who.token, role: 'twin', user: undefined, from: '127.0.0.1:5000',
    src: 'tw', seq: 1, cid: 'c1', key: 'k-1', dl: 2000, ttl: 800, d: { se: 1 },
  });
  assert.equal(audit.answered('p1', { k: 'ack', src: 'edge', seq: 9, ts: 1500, ref: { src: 'tw', seq: 1 } }), true);
  assert.deepEqual(entries[1], { t: 5000, kind: 'outcome', plant: 'p1', src: 'tw', seq: 1, key: 'k-1', outcome: 'written', plcAt: 1500 });
  assert.equal(audit.answered('p1', { k: 'ack', ref: { src: 'tw', seq: 1 } }), false, 'one outcome per command');
  assert.equal(entries.length, 2);
});

test('refusals, expiries, unknown outcomes and repeats of a key', () => {
  const { audit, entries } = recorder();
  for (const seq of [1, 2, 3]) audit.arrived({ via: 'rest', plant: 'p1', who, at: 1, env: cmd(seq) });
  audit.refused('p1', { src: 'tw', seq: 1 }, 'E_READ_ONLY', 'read-only');
  audit.answered('p1', { k: 'err', ref: { src: 'tw', seq: 2 }, e: { code: 'E_EXPIRED', msg: 'too late' } });
  audit.answered('p1', { k: 'err', ref: { src: 'tw', seq: 3 }, e: { code: 'E_EXPIRED', msg: 'too late' }, repeat: true });
  const outs = entries.filter((e) => e.kind === 'outcome').map((e) => [e.seq, e.outcome, e.first, e.code]);
  assert.deepEqual(outs, [[1, 'refused', undefined, 'E_READ_ONLY'], [2, 'expired', undefined, 'E_EXPIRED'], [3, 'repeat', 'expired', 'E_EXPIRED']]);
});

test('answers to probes, to other plants and to commands not seen arriving are not recorded', () => {
  const { audit, entries } = recorder();
  audit.arrived({ via: 'ws', plant: 'p1', at: 1, env: { k: 'probe', src: 'tw', seq: 1, d: { 0: 1 } } });
  audit.arrived({ via: 'ws', plant: 'p1', at: 1, env: cmd(2) });
  assert.equal(audit.answered('p1', { k: 'probe-res', ref: { src: 'tw', seq: 1 } }), false);
  assert.equal(audit.answered('p2', { k: 'ack', ref: { src: 'tw', seq: 2 } }), false, 'another plant\'s twin with the same id');
  assert.equal(audit.answered('p1', { k: 'ack', ref: { src: 'tw', seq: 7 } }), false);
  assert.equal(audit.answered('p1', { k: 'state', d: {} }), false);
  assert.deepEqual(entries.map((e) => e.kind), ['cmd']);
});

test('a duplicate of a command still waiting gets its own outcome; the first keeps its own', () => {
  const { audit, entries } = recorder();
  audit.arrived({ via: 'rest', plant: 'p1', at: 1, env: cmd(1) });
  audit.arrived({ via: 'rest', plant: 'p1', at: 2, env: cmd(1) });
  assert.equal(audit.refused('p1', { src: 'tw', seq: 1 }, 'E_DUPLICATE', 'dup'), true);
  assert.equal(audit.answered('p1', { k: 'ack', ts: 3, ref: { src: 'tw', seq: 1 } }), true);
  assert.deepEqual(entries.filter((e) => e.kind === 'outcome').map((e) => e.outcome), ['refused', 'written']);
});

test('memory is bounded: past maxOpen waiting commands the oldest is forgotten and counted', () => {
  const { audit } = recorder();
  for (const seq of [1, 2, 3, 4]) audit.arrived({ via: 'ws', plant: 'p1', at: 1, env: cmd(seq) });
  assert.equal(audit.counters.forgotten, 1);
  assert.equal(audit.answered('p1', { k: 'ack', ref: { src: 'tw', seq: 1 } }), false);
  assert.equal(audit.answered('p1', { k: 'ack', ref: { src: 'tw', seq: 4 } }), true);
});
