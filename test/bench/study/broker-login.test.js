'use strict';
/**
 * The study's Mosquitto stacks log their companions in with the broker's random password. That
 * password is base64url and may start with '-', which the companion's option parser took for an
 * option (CI saw "Option '--password' argument is ambiguous" once in a while). Here the password
 * starts with '-' every time: the companion gets it from its environment, logs in to a real
 * Mosquitto and answers; a wrong one is refused by the broker. Needs Mosquitto
 * (scripts/broker-deps.sh), as the study's own test does.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { brokerLogin } = require('../../../bench/study/cell');
const { STACKS } = require('../../../bench/study/stacks');
const { startCompanion } = require('../../../bench/study/companion');
const { startMosquitto } = require('../../../system/brokers/mosquitto');

const READY_MS = 30000;

test('a Mosquitto password that starts with "-" logs the companion in, from its environment only', { timeout: 120000 }, async (t) => {
  const mq = await startMosquitto({ password: '-starts-with-a-dash' });
  t.after(() => mq.stop());
  const login = brokerLogin(mq.credentials);
  assert.ok(!login.args.some((a) => a.includes(mq.credentials.password)), 'the password is not on the command line');
  const command = STACKS.mosquitto.command('echo', ['--port', String(mq.port), ...login.args]);
  const echo = startCompanion(command, { name: 'mosquitto echo', env: login.env });
  t.after(() => echo.stop());
  const ready = await echo.next((l) => l.event === 'ready', READY_MS);
  assert.equal(ready.event, 'ready');

  // The same login with another password: the broker refuses it, and the companion says so.
  const wrong = brokerLogin({ username: mq.credentials.username, password: '-not-the-password' });
  const refused = startCompanion(STACKS.mosquitto.command('echo', ['--port', String(mq.port), ...wrong.args]), { name: 'refused echo', env: wrong.env });
  t.after(() => refused.stop());
  await assert.rejects(refused.next((l) => l.event === 'ready', READY_MS), /E_COMPANION_CONNECT/);
});
