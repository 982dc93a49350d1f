'use strict';
/** The MQTT path's topic scheme (nodes/lib/mqtt/topics.js): one probe response topic per slot. */
const test = require('node:test');
const assert = require('node:assert/strict');
const topics = require('../../../../nodes/lib/mqtt/topics');
const auth = require('../../../../nodes/lib/mqtt/auth');

test('topicsOf names the plant\'s topics, a response topic per probe slot', () => {
  const T = topics.topicsOf('line2');
  assert.equal(T.cmd, 's7twin/line2/cmd');
  assert.equal(T.state, 's7twin/line2/state');
  assert.equal(T.req, 's7twin/line2/probe/req');
  assert.equal(T.res(0), 's7twin/line2/probe/res/0');
  assert.equal(T.res(1023), 's7twin/line2/probe/res/1023');
  assert.equal(T.resAll, 's7twin/line2/probe/res/+');
  assert.equal(topics.probeResponseTopic('plant1', 7), 's7twin/plant1/probe/res/7');
  assert.ok(auth.topicMatches(T.resAll, T.res(5)));
  assert.ok(!auth.topicMatches(T.res(5), T.res(6)), 'a slot\'s subscription gets only that slot');
});

test('slotOfResponse reads the slot of a response topic of the plant, null otherwise', () => {
  assert.equal(topics.slotOfResponse('s7twin/plant1/probe/res/0', 'plant1'), 0);
  assert.equal(topics.slotOfResponse('s7twin/plant1/probe/res/1023', 'plant1'), 1023);
  for (const t of ['s7twin/plant1/probe/res/1024', 's7twin/plant1/probe/res', 's7twin/plant1/probe/res/', 's7twin/plant1/probe/res/+',
    's7twin/plant1/probe/res/01', 's7twin/plant1/probe/res/-1', 's7twin/plant1/probe/res/1.5', 's7twin/plant1/probe/res/3/x',
    's7twin/plant2/probe/res/3', 's7twin/plant1/probe/req', 's7twin/plant1/state', '', null, 5]) {
    assert.equal(topics.slotOfResponse(t, 'plant1'), null, String(t));
  }
});

test('answerSlot: a request\'s answer goes to its slot, an array\'s to its first slot', () => {
  assert.equal(topics.answerSlot({ i: 9, v: 1 }), 9);
  assert.equal(topics.answerSlot([{ i: 4, v: 1 }, { i: 2, v: 1 }]), 4);
});

test('the broker ACLs follow the scheme: a twin may subscribe to one slot or all, the PLC publishes any slot', () => {
  const a = auth.createAuthorizer(auth.parseUsers('t:pw:twin@plant1,p:pw:plc@plant1'));
  const t = a.authenticate('t', 'pw');
  const p = a.authenticate('p', 'pw');
  const T = topics.topicsOf('plant1');
  assert.ok(a.canSubscribe(t, T.res(42)));
  assert.ok(a.canSubscribe(t, T.resAll));
  assert.ok(!a.canSubscribe(t, topics.probeResponseTopic('plant2', 42)), 'another plant');
  assert.ok(!a.canPublish(t, T.res(42)));
  assert.ok(a.canPublish(p, T.res(42)));
  assert.ok(!a.canSubscribe(p, T.res(42)));
  assert.equal(auth.kindOf(T.res(42)), 'probe-res');
});

test('the link\'s topics: one pair per plant, told apart from every other topic', () => {
  assert.deepEqual(topics.linkTopicsOf('plant1'), { up: 's7twin/plant1/link/up', down: 's7twin/plant1/link/down' });
  assert.deepEqual(topics.linkTopicsOf('+'), { up: 's7twin/+/link/up', down: 's7twin/+/link/down' });
  assert.equal(topics.isLinkTopic('s7twin/plant1/link/up'), true);
  assert.equal(topics.isLinkTopic('s7twin/plant1/link/down'), true);
  assert.equal(topics.isLinkTopic('s7twin/+/link/up'), false);
  assert.equal(topics.isLinkTopic('s7twin/plant1/state'), false);
  assert.equal(topics.isLinkTopic('s7twin/plant1/link/up/x'), false);
});
