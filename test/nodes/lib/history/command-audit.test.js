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

test('a flow\'s own command: logged as via flow with its node as the sender, its outcome from the edge\'s answer to the flow', () => {
  const { audit, entries } = recorder();
  const by = { id: 'n1', name: 'start line' };
  assert.equal(audit.flowSent({ plant: 'p1', by, at: 1000, env: cmd(1, { src: 'flow', key: 'k-9' }) }), true);
  assert.deepEqual(entries[0], {
    t: 1000, kind: 'cmd', via: 'flow', plant: 'p1', role: 'flow', user: 'start line', node: 'n1', src: 'flow', seq: 1, key: 'k-9', dl: 2000, d: { se: 1 },
  });
  // The edge's answer reaches the twin endpoint too (the flow passes it on): recorded once, from the edge endpoint.
  assert.equal(audit.answered('p1', { k: 'ack', ts: 1500, ref: { src: 'flow', seq: 1 } }), false, 'not a twin\'s command');
  assert.equal(audit.answered('p1', { k: 'ack', ts: 1500, ref: { src: 'flow', seq: 1 } }, { flow: true }), true);
  assert.deepEqual(entries[1], { t: 5000, kind: 'outcome', plant: 'p1', src: 'flow', seq: 1, key: 'k-9', outcome: 'written', plcAt: 1500 });
  assert.equal(audit.flowSent({ plant: 'p1', by: { id: 'n2' }, at: 1, env: cmd(2, { src: 'flow' }) }), true);
  assert.equal(entries[2].user, 'n2', 'a node without a name: its id');
  assert.equal(audit.refused('p1', { src: 'flow', seq: 2 }, 'E_EDGE_DOWN', 'no edge', { flow: true }), true);
  assert.equal(audit.counters.flowCommands, 2);
});

test('a twin\'s command the flow passes on to the edge is not a flow\'s: one entry, its outcome as its answer leaves for the twin', () => {
  const { audit, entries } = recorder();
  audit.arrived({ via: 'ws', plant: 'p1', who, at: 1, env: cmd(1) });
  assert.equal(audit.flowSent({ plant: 'p1', by: { id: 'out' }, at: 2, env: cmd(1) }), false);
  assert.equal(audit.answered('p1', { k: 'ack', ts: 3, ref: { src: 'tw', seq: 1 } }, { flow: true }), false,
    'the edge endpoint does not answer it for the log');
  assert.equal(audit.answered('p1', { k: 'ack', ts: 3, ref: { src: 'tw', seq: 1 } }), true);
  assert.deepEqual(entries.map((e) => [e.kind, e.via]), [['cmd', 'ws'], ['outcome', undefined]]);
  assert.equal(audit.flowSent({ plant: 'p1', by: { id: 'out' }, at: 2, env: { k: 'probe', src: 'f', seq: 1, d: {} } }), false, 'probes stay out');
});

test('taken: a command of a path without answers, one entry with its outcome; refusals past the sender\'s budget counted and summed up', () => {
  const entries = [];
  let t = 1000;
  const audit = createCommandAudit({ log: { append: (e) => { entries.push(e); return true; } }, now: () => t, refusals: { perWindow: 2 }, sweepMs: 0 });
  const mq = { via: 'mqtt', plant: 'p1', who: { user: 'lab3', role: 'twin' }, from: '10.1.2.3:40000', src: 'c-1', target: 's7twin/p1/cmd' };
  assert.equal(audit.taken({ ...mq, at: 990, seq: 1, d: { st: 1 }, outcome: 'relayed' }), true);
  assert.deepEqual(entries, [{
    t: 990, kind: 'cmd', via: 'mqtt', plant: 'p1', role: 'twin', user: 'lab3', from: '10.1.2.3:40000', src: 'c-1', seq: 1,
    target: 's7twin/p1/cmd', d: { st: 1 }, outcome: 'relayed',
  }]);
  for (let seq = 2; seq <= 6; seq += 1) {
    // Each refusal from a new connection (port) of the same user and address: one budget.
    audit.taken({ ...mq, from: `10.1.2.3:${40000 + seq}`, at: t, seq, d: { c1: 1 }, outcome: 'refused', code: 'E_NOT_WRITABLE', msg: 'an output' });
  }
  assert.equal(entries.length, 1 + 2, 'two refusals logged one by one');
  assert.deepEqual([entries[1].outcome, entries[1].code, entries[1].msg], ['refused', 'E_NOT_WRITABLE', 'an output']);
  assert.equal(audit.taken({ ...mq, at: t, seq: 7, d: { st: 0 }, outcome: 'relayed' }), true, 'accepted commands are never muted');
  assert.equal(audit.counters.mutedRefusals, 3);
  t = 70000;
  audit.flush();
  const muted = entries[entries.length - 1];
  assert.deepEqual(muted, {
    t: 70000, kind: 'muted', via: 'mqtt', plant: 'p1', user: 'lab3', host: '10.1.2.3', refused: 3, codes: { E_NOT_WRITABLE: 3 }, since: 1000, until: 1000,
  });
  assert.ok(entries.every((e) => !JSON.stringify(e).includes('password')));
});
