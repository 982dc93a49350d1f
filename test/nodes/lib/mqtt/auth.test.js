'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const auth = require('../../../../nodes/lib/mqtt/auth');

test('parseUsers: entries, passwords with colons, plant-bound roles', () => {
  const users = auth.parseUsers('twin:pw:twin, plc:p:w:d:plc\nmonitor:m:monitor,lab3:x:twin@plant3');
  assert.deepEqual([...users.keys()], ['twin', 'plc', 'monitor', 'lab3']);
  assert.equal(users.get('plc').role, 'plc');
  assert.equal(users.get('twin').plant, null);
  assert.equal(users.get('lab3').plant, 'plant3');
  assert.equal(auth.parseUsers('').size, 0);
  assert.equal(auth.parseUsers(undefined).size, 0);
  // The stored secret is a digest, never the password itself.
  assert.ok(!JSON.stringify([...users.values()]).includes('p:w:d'));
});

test('parseUsers: malformed entries are refused with E_MQTT_USERS and no password in the message', () => {
  for (const bad of ['twin', 'twin:pw', ':pw:twin', 'twin::twin', 'a:secretpw:admin', 'a:pw:twin@', 'a:pw:twin@pl/x', 'a:pw:twin@a@b', 'a:pw:twin,a:pw2:plc']) {
    assert.throws(() => auth.parseUsers(bad), (e) => e.code === 'E_MQTT_USERS' && !e.message.includes('secretpw'), bad);
  }
});

test('topicMatches follows MQTT 3.1.1 wildcards', () => {
  assert.ok(auth.topicMatches('s7twin/+/cmd', 's7twin/plant1/cmd'));
  assert.ok(!auth.topicMatches('s7twin/+/cmd', 's7twin/plant1/cmd/x'));
  assert.ok(!auth.topicMatches('s7twin/+/cmd', 's7twin/plant1/state'));
  assert.ok(auth.topicMatches('s7twin/#', 's7twin/plant1/probe/req'));
  assert.ok(auth.topicMatches('#', 's7twin/a/b'));
  assert.ok(!auth.topicMatches('#', '$SYS/x'));
  assert.ok(!auth.topicMatches('+/x', '$SYS/x'));
  assert.ok(auth.topicMatches('$SYS/#', '$SYS/x/y'));
  assert.ok(auth.topicMatches('a/#', 'a'));
});

test('filterCovers: a filter is allowed only if everything it matches is allowed', () => {
  assert.ok(auth.filterCovers('s7twin/+/state', 's7twin/plant1/state'));
  assert.ok(auth.filterCovers('s7twin/+/state', 's7twin/+/state'));
  assert.ok(!auth.filterCovers('s7twin/+/state', 's7twin/#'));
  assert.ok(!auth.filterCovers('s7twin/+/state', 's7twin/+/#'));
  assert.ok(!auth.filterCovers('s7twin/+/state', 's7twin/+/+'));
  assert.ok(!auth.filterCovers('s7twin/plant1/state', 's7twin/+/state'));
  assert.ok(auth.filterCovers('#', 's7twin/#'));
  assert.ok(!auth.filterCovers('#', '$SYS/#'));
  assert.ok(auth.filterCovers('$SYS/#', '$SYS/broker/#'));
});

test('roles: twin, plc and monitor may do exactly what the table says', () => {
  const users = auth.parseUsers('t:pw:twin,p:pw:plc,m:pw:monitor,l:pw:twin@plant3');
  const a = auth.createAuthorizer(users);
  const t = a.authenticate('t', 'pw');
  const p = a.authenticate('p', Buffer.from('pw'));
  const m = a.authenticate('m', 'pw');
  const l = a.authenticate('l', 'pw');
  assert.ok(t && p && m && l);
  assert.equal(t.role, 'twin');

  assert.ok(a.canPublish(t, 's7twin/plant1/cmd'));
  assert.ok(a.canPublish(t, 's7twin/plant1/probe/req'));
  assert.ok(!a.canPublish(t, 's7twin/plant1/state'));
  assert.ok(!a.canPublish(t, 's7twin/plant1/probe/res/5'));
  assert.ok(a.canSubscribe(t, 's7twin/plant1/state'));
  assert.ok(a.canSubscribe(t, 's7twin/plant1/probe/res/5'), 'one slot\'s answers');
  assert.ok(a.canSubscribe(t, 's7twin/+/probe/res/+'));
  assert.ok(!a.canSubscribe(t, 's7twin/plant1/probe/res'), 'the old shared topic is gone');
  assert.ok(!a.canSubscribe(t, 's7twin/plant1/probe/res/#'));
  assert.ok(!a.canSubscribe(t, 's7twin/plant1/cmd'));
  assert.ok(!a.canSubscribe(t, '#'));

  assert.ok(a.canPublish(p, 's7twin/plant1/state'));
  assert.ok(a.canPublish(p, 's7twin/plant1/probe/res/5'));
  assert.ok(!a.canPublish(p, 's7twin/plant1/probe/res'));
  assert.ok(!a.canPublish(p, 's7twin/plant1/cmd'));
  assert.ok(a.canSubscribe(p, 's7twin/plant1/cmd'));
  assert.ok(a.canSubscribe(p, 's7twin/plant1/probe/req'));
  assert.ok(!a.canSubscribe(p, 's7twin/plant1/state'));

  assert.ok(!a.canPublish(m, 's7twin/plant1/cmd'));
  assert.ok(!a.canPublish(m, 'anything'));
  assert.ok(a.canSubscribe(m, '#'));
  assert.ok(a.canSubscribe(m, 's7twin/+/cmd'));
  assert.ok(a.canSubscribe(m, '$SYS/#'));

  assert.ok(a.canPublish(l, 's7twin/plant3/cmd'));
  assert.ok(!a.canPublish(l, 's7twin/plant1/cmd'));
  assert.ok(a.canSubscribe(l, 's7twin/plant3/state'));
  assert.ok(!a.canSubscribe(l, 's7twin/+/state'));
});

test('authenticate refuses wrong, missing and unknown credentials', () => {
  const a = auth.createAuthorizer(auth.parseUsers('t:pw:twin'));
  assert.equal(a.authenticate('t', 'nope'), null);
  assert.equal(a.authenticate('t', undefined), null);
  assert.equal(a.authenticate('t', ''), null);
  assert.equal(a.authenticate('x', 'pw'), null);
  assert.equal(a.authenticate(undefined, undefined), null);
  assert.equal(a.canPublish(null, 's7twin/plant1/cmd'), false);
  assert.equal(a.canSubscribe(undefined, 's7twin/plant1/state'), false);
});

test('kindOf and plantOf read the table topics', () => {
  assert.equal(auth.kindOf('s7twin/plant1/cmd'), 'cmd');
  assert.equal(auth.kindOf('s7twin/plant1/state'), 'state');
  assert.equal(auth.kindOf('s7twin/p2/probe/req'), 'probe');
  assert.equal(auth.kindOf('s7twin/p2/probe/res/0'), 'probe-res');
  assert.equal(auth.kindOf('s7twin/p2/probe/res/1023'), 'probe-res');
  assert.equal(auth.kindOf('s7twin/p2/probe/res/1024'), null);
  assert.equal(auth.kindOf('s7twin/p2/probe/res'), null);
  assert.equal(auth.kindOf('s7twin/p2/other'), null);
  assert.equal(auth.kindOf('other/p2/cmd'), null);
  assert.equal(auth.plantOf('s7twin/p2/cmd'), 'p2');
  assert.equal(auth.plantOf('s7twin//cmd'), null);
});

test('filtersOverlap: two filters that can match a common topic', () => {
  const { filtersOverlap } = auth;
  for (const [a, b] of [['s7twin/+/cmd', 's7twin/plant1/cmd'], ['s7twin/+/cmd', 's7twin/#'], ['s7twin/+/cmd', '#'],
    ['s7twin/+/probe/req', 's7twin/plant1/+/+'], ['s7twin/+/cmd', 's7twin/+/cmd'], ['a/#', 'a']]) {
    assert.equal(filtersOverlap(a, b), true, `${a} ~ ${b}`);
    assert.equal(filtersOverlap(b, a), true, `${b} ~ ${a}`);
  }
  for (const [a, b] of [['s7twin/+/cmd', 's7twin/plant1/state'], ['s7twin/+/cmd', 's7twin/+/probe/req'], ['s7twin/+/cmd', 's7twin/+'],
    ['s7twin/+/cmd', '$SYS/#'], ['s7twin/+/cmd', 's7twin/plant1/cmd/x']]) {
    assert.equal(filtersOverlap(a, b), false, `${a} !~ ${b}`);
    assert.equal(filtersOverlap(b, a), false, `${b} !~ ${a}`);
  }
});

test('a user bound to several plants gets its role for each of them and for no other', () => {
  const users = auth.parseUsers('plc12:pw:plc@line1|line2,t2:pw:twin@line2');
  assert.deepEqual(users.get('plc12').plants, ['line1', 'line2']);
  assert.equal(users.get('plc12').plant, null);
  assert.equal(users.get('t2').plant, 'line2');
  const a = auth.createAuthorizer(users);
  const plc = users.get('plc12');
  assert.ok(a.canPublish(plc, 's7twin/line1/state'));
  assert.ok(a.canPublish(plc, 's7twin/line2/probe/res/7'));
  assert.ok(!a.canPublish(plc, 's7twin/line3/state'));
  assert.ok(a.canSubscribe(plc, 's7twin/line2/cmd'));
  assert.ok(!a.canSubscribe(plc, 's7twin/+/cmd'), 'a wildcard reaches plants it does not hold');
  const twin = users.get('t2');
  assert.ok(a.canPublish(twin, 's7twin/line2/cmd'));
  assert.ok(!a.canPublish(twin, 's7twin/line1/cmd'));
  assert.ok(!a.canSubscribe(twin, 's7twin/line1/state'));
  assert.throws(() => auth.parseUsers('a:pw:twin@line1|'), (e) => e.code === 'E_MQTT_USERS');
  assert.throws(() => auth.parseUsers('a:pw:twin@line1|l/2'), (e) => e.code === 'E_MQTT_USERS');
});

test('roles edge and link: a plant\'s edge publishes only its own link up topic and reads its down topic; the cloud\'s link the other way', () => {
  const users = auth.parseUsers('e1:pw1:edge@plant1,cloud:pw2:link');
  const a = auth.createAuthorizer(users);
  const e1 = users.get('e1');
  const cloud = users.get('cloud');
  assert.equal(a.canPublish(e1, 's7twin/plant1/link/up'), true);
  assert.equal(a.canPublish(e1, 's7twin/plant2/link/up'), false, 'not another plant\'s');
  assert.equal(a.canPublish(e1, 's7twin/plant1/link/down'), false, 'not the cloud\'s direction');
  assert.equal(a.canPublish(e1, 's7twin/plant1/cmd'), false, 'not the MQTT path\'s topics');
  assert.equal(a.canSubscribe(e1, 's7twin/plant1/link/down'), true);
  assert.equal(a.canSubscribe(e1, 's7twin/+/link/down'), false);
  assert.equal(a.canSubscribe(cloud, 's7twin/+/link/up'), true);
  assert.equal(a.canPublish(cloud, 's7twin/plant7/link/down'), true);
  assert.equal(a.canPublish(cloud, 's7twin/plant7/link/up'), false, 'the cloud cannot speak for an edge');
  assert.throws(() => auth.parseUsers('x:pw:pilot'), (err) => err.code === 'E_MQTT_USERS' && /twin, plc, monitor, edge, link/.test(err.message));
});
