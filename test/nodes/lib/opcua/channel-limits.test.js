'use strict';
/**
 * nodes/lib/opcua/channel-limits.js against a stand-in server and channel: a request over the
 * rate is answered with a ServiceFault that says why and never processed, the channel closed; the
 * edge is exempt; refused answers spend the error budget. (limits.test.js floods a real server.)
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { limitChannels, isRefusal } = require('../../../../nodes/lib/opcua/channel-limits');
const { roleOf } = require('../../../../nodes/lib/opcua/accounts');

const good = { isNotGood: () => false };
const bad = { isNotGood: () => true };
const opcua = {
  StatusCodes: { BadTcpServerTooBusy: 'BadTcpServerTooBusy' },
  OPCUAServer: { makeServiceFault: (statusCode, texts) => ({ fault: statusCode, texts }) },
};
const USERS = { twin: { user: 'twin' }, edge: { user: 'edge' } };

function setup(limits) {
  const processed = [];
  const sessions = { tw: { userIdentityToken: { userName: 'twin' } }, ed: { userIdentityToken: { userName: 'edge' } } };
  const srv = { on_request: (message) => processed.push(message.id), engine: { getSession: (token) => sessions[token] } };
  const counters = { rateLimited: 0, errorBudget: 0 };
  const limited = [];
  limitChannels(srv, {
    opcua, counters, roleOf: (u) => roleOf(USERS, u), onLimited: (ev) => limited.push(ev), closeAfterMs: 1,
    cfg: { ratePerS: 0, burst: 0, errors: 0, errorWindowMs: 60000, exemptRoles: ['edge'], ...limits },
  });
  const channel = {
    channelId: 7, sent: [], interrupted: false,
    send_response(type, response, msg, cb) { this.sent.push(response); if (cb) cb(); },
    abruptlyInterrupt() { this.interrupted = true; },
  };
  const request = (id, token = 'tw') => srv.on_request({ id, request: { requestHeader: { authenticationToken: token } } }, channel);
  return { srv, channel, request, processed, counters, limited };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

test('over its rate a channel gets a ServiceFault that says why, nothing more is processed, and it is closed', async () => {
  const s = setup({ ratePerS: 1, burst: 2 });
  for (let i = 1; i <= 5; i++) s.request(i);
  assert.deepEqual(s.processed, [1, 2], 'the burst is served, the rest never processed');
  assert.equal(s.channel.sent.length, 1);
  assert.equal(s.channel.sent[0].fault, 'BadTcpServerTooBusy');
  assert.match(s.channel.sent[0].texts[0], /^E_RATE_LIMIT: /);
  assert.equal(s.counters.rateLimited, 1);
  assert.deepEqual(s.limited.map((e) => [e.code, e.channelId]), [['E_RATE_LIMIT', 7]]);
  await settle();
  assert.equal(s.channel.interrupted, true);
});

test('the edge account is never limited', () => {
  const s = setup({ ratePerS: 1, burst: 1 });
  for (let i = 1; i <= 50; i++) s.request(i, 'ed');
  assert.equal(s.processed.length, 50);
  assert.equal(s.counters.rateLimited, 0);
});

test('refused answers spend the error budget; past it the answer still goes out, then the channel closes', async () => {
  const s = setup({ errors: 2 });
  s.request(1); // the channel's limits are made on its first request
  const answer = (results) => s.channel.send_response('MSG', { responseHeader: { serviceResult: good }, results },
    { request: { requestHeader: { authenticationToken: 'tw' } } });
  answer([good]);
  answer([bad]);
  answer([good, bad]);
  assert.equal(s.counters.errorBudget, 0);
  answer([bad]);
  assert.equal(s.counters.errorBudget, 1);
  assert.equal(s.limited[0].code, 'E_ERROR_BUDGET');
  assert.equal(s.channel.sent.length, 4, 'every answer sent, the last one too');
  await settle();
  assert.equal(s.channel.interrupted, true);
  s.request(2);
  assert.deepEqual(s.processed, [1], 'nothing processed once the budget is spent');
});

test('a refusal is a bad service result or a bad result of any operation', () => {
  assert.equal(isRefusal({ responseHeader: { serviceResult: bad } }), true);
  assert.equal(isRefusal({ responseHeader: { serviceResult: good }, results: [good, bad] }), true);
  assert.equal(isRefusal({ responseHeader: { serviceResult: good }, results: [good, 5] }), false);
  assert.equal(isRefusal(undefined), false);
});
