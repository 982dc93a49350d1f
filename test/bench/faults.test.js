'use strict';
/**
 * bench/lib/faults.js analyse(): what a fault run's answers and the PLC's input log say, on
 * made-up runs whose faults are known.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { analyse, patternValues, patternOf } = require('../../bench/lib/faults');

const O = { ttlMs: 1000, unknownDlSlackMs: 1000 };
const cmd = (seq, sentAt, code = 'ack', dl = sentAt + 1000) => ({
  seq, pattern: patternOf(patternValues(seq)), sentAt, answer: code ? { code, dl, at: sentAt + 5 } : null,
});
const entry = (seq, scan, pattern) => ({ t: scan * 10, tp: scan * 10 - 10, scan, in: patternValues(pattern === undefined ? seq : pattern) });

test('a clean run: every command answered, applied in order before its deadline, the last one stays', () => {
  const cmds = [cmd(1, 0), cmd(2, 50), cmd(3, 100)];
  const r = analyse(cmds, [entry(1, 1), entry(2, 6), entry(3, 11)], O);
  assert.deepEqual({ ...r, problems: undefined, samples: undefined }, {
    sent: 3, answers: { ack: 3 }, unanswered: 0, duplicates: 0, retried: 0, repeats: 0, applied: 3, appliedTwice: 0,
    appliedLate: 0, appliedRefused: 0, notCommanded: 0,
    wentBack: 0, transients: 0, finalOk: true, inputChanges: 3, problems: undefined, samples: undefined,
  });
});

test('finds a command applied past its deadline, one applied though refused, and an unanswered one', () => {
  const cmds = [cmd(1, 0, 'ack', 500), cmd(2, 50, 'E_EXPIRED'), cmd(3, 100, null)];
  const r = analyse(cmds, [entry(1, 100), entry(2, 101), entry(3, 120)], O);
  assert.equal(r.appliedLate, 1, 'command 1 landed after 990, its deadline was 500');
  assert.equal(r.appliedRefused, 1);
  assert.equal(r.unanswered, 1);
});

test('a stale image (inputs no command had) and an acknowledged write undone for good are found; a one-scan mix is not', () => {
  const cmds = [cmd(1, 5), cmd(2, 10), cmd(3, 15), cmd(4, 20)];
  const stale = { t: 300, tp: 290, scan: 30, in: patternValues(-1) }; // all inputs off
  const r = analyse(cmds, [entry(1, 1), entry(2, 6), entry(1, 7), entry(3, 8), stale, entry(2, 40)], O);
  assert.equal(r.transients, 1, 'command 1 seen for one scan between 2 and 3: a write read half done');
  assert.equal(r.notCommanded, 1);
  assert.equal(r.wentBack, 1, 'back to command 2 after 3, and it stayed');
  assert.equal(r.finalOk, false, 'the PLC ends with 2, not the acknowledged 4');
});

test('a PLC that restarts (a log line with no scan before it) starts the order afresh', () => {
  const cmds = [cmd(1, 0), cmd(2, 50), cmd(3, 100, 'E_PLC_DOWN'), cmd(4, 150)];
  const restart = { t: 120, tp: null, scan: 0, in: patternValues(-1) };
  const r = analyse(cmds, [entry(1, 1), entry(2, 6), restart, entry(4, 20)], O);
  assert.equal(r.notCommanded + r.wentBack + r.appliedRefused + r.appliedLate, 0);
  assert.equal(r.finalOk, true);
});

test('a command applied again after another one, or after the PLC restarted, is applied twice; retries and repeats are counted', () => {
  const cmds = [cmd(1, 0), cmd(2, 50), cmd(3, 100), cmd(4, 150)];
  cmds[1].answer = { ...cmds[1].answer, attempts: 2, repeat: true }; // sent again with its key, the edge answered the first outcome
  const restart = { t: 300, tp: null, scan: 0, in: patternValues(-1) };
  const twice = analyse(cmds, [entry(1, 1), entry(2, 6), entry(3, 11), entry(2, 20), entry(3, 25)], O);
  assert.equal(twice.appliedTwice, 2, 'command 2 and then 3 came back after others');
  const afterRestart = analyse(cmds, [entry(1, 1), entry(4, 16), restart, entry(4, 40)], O);
  assert.equal(afterRestart.appliedTwice, 1, 'command 4 written again into the restarted PLC');
  assert.deepEqual([afterRestart.retried, afterRestart.repeats, afterRestart.applied], [1, 1, 2]);
  const once = analyse(cmds, [entry(1, 1), entry(2, 6), entry(3, 11), entry(4, 16)], O);
  assert.equal(once.appliedTwice, 0);
});

test('patterns: ten inputs, never all off, 1023 distinct', () => {
  const seen = new Set();
  for (let i = 0; i < 1023; i += 1) {
    const p = patternOf(patternValues(i));
    assert.ok(p >= 1 && p <= 1023);
    seen.add(p);
  }
  assert.equal(seen.size, 1023);
  assert.equal(Object.keys(patternValues(0)).length, 10);
});

test('the report has a faults section: one row per fault, problems listed, an error said', () => {
  const { faultLines } = require('../../bench/lib/report');
  const r = (id, extra) => ({
    id, label: `${id} label`, sent: 10, answers: { ack: 8, E_EDGE_DOWN: 1, E_WEIRD: 1 }, unanswered: 0, duplicates: 0, appliedLate: 0,
    appliedRefused: 0, notCommanded: 0, wentBack: 0, transients: 0, finalOk: true, problems: [], detectedMs: 1300, restartMs: null, recoveryMs: 800,
    retried: 2, repeats: 1, applied: 9, appliedTwice: 0, ...extra,
  });
  const killed = r('plc-kill', { restartMs: 5200, recoveryMs: null, finalOk: false, problems: ['inputs 0 at 1 match no command'] });
  const lines = faultLines({ options: { intervalMs: 50, ttlMs: 1000 }, results: [r('stall'), killed] });
  const md = lines.join('\n');
  assert.match(md, /^## Faults$/m);
  assert.match(md, /\| stall label \| 10 \| 8 \| 0 \| 1 \| 0 \| 0 \| E_WEIRD 1 \| 2 \| 1 \| 9 \| 0 \| 0 \| 0 \| 0 \| 0 \| 0 \| 0 \| yes \| 1\.3 \| – \| 0\.8 \|/);
  assert.match(md, /\| plc-kill label .*\| \*\*no\*\* \| 1\.3 \| 5\.2 \| \*\*never\*\* \|/);
  assert.match(md, /- plc-kill: inputs 0 at 1 match no command/);
  assert.match(faultLines({ error: 'E_X it broke' }).join('\n'), /did not run: E_X it broke/);
});
