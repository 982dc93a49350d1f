'use strict';
/**
 * The study's loads: the network load shapes only a namespace of its own, never the machine's
 * loopback, and only when the bench that started the process said where it came from.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const loads = require('../../../bench/study/loads');

function withOuter(value, fn) {
  const saved = process.env[loads.OUTER_ENV];
  if (value === undefined) delete process.env[loads.OUTER_ENV]; else process.env[loads.OUTER_ENV] = value;
  try { return fn(); } finally {
    if (saved === undefined) delete process.env[loads.OUTER_ENV]; else process.env[loads.OUTER_ENV] = saved;
  }
}

test('a process is in a namespace of its own only if it was told another one it came from', () => {
  const own = loads.netnsId();
  assert.match(own, /^net:\[\d+\]$/);
  withOuter(undefined, () => assert.equal(loads.inOwnNetns(), false));
  withOuter(own, () => assert.equal(loads.inOwnNetns(), false));
  withOuter('net:[1]', () => assert.equal(loads.inOwnNetns(), true));
});

test('shaping the loopback in the machine\'s namespace is refused with a code, and nothing is changed', () => {
  withOuter(undefined, () => assert.throws(() => loads.shapeLoopback({ rateMbit: 1 }), { code: 'E_STUDY_NETNS' }));
});

test('an unknown load is refused with a code', async () => {
  await assert.rejects(loads.applyLoad('disk'), { code: 'E_STUDY_ARGS' });
  const idle = await loads.applyLoad('idle');
  assert.deepEqual(idle.ignorePorts, []);
  await idle.stop();
});
