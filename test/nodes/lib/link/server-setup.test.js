'use strict';
/**
 * lib/link/server-setup.js: what an s7twin-link-server decides before it serves: its path, its
 * grants, whether it may serve at all (token conflicts, a taken path, a bad Redis URL), its
 * endpoint's options and status, and how refusals are logged.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { fullPath, endpointGrants, planEndpoint, endpointOptions, endpointStatus, createRefusalLog } = require('../../../../nodes/lib/link/server-setup');

const plan = (o) => planEndpoint({ role: 'twin', path: '/s7twin/twin', env: {}, otherTokens: [], pathTaken: false, ...o });

test('fullPath: under httpNodeRoot, once', () => {
  assert.equal(fullPath(undefined, 's7twin/twin'), '/s7twin/twin');
  assert.equal(fullPath('/', '/s7twin/twin'), '/s7twin/twin');
  assert.equal(fullPath('/api/', '/s7twin/twin'), '/api/s7twin/twin');
  assert.equal(fullPath('/api', '/api/s7twin/twin'), '/api/s7twin/twin');
});

test('endpointGrants: credentials before the environment, the plain lists for S7T_PLANT, every role known', () => {
  const env = { S7T_TWIN_TOKEN: 'envtw', S7T_VIEWER_TOKEN: 'vw', S7T_EDGE_TOKEN: 'ed', S7T_PLANT: 'p9', S7T_TOKENS: 'sc:twin:a|b' };
  const g = endpointGrants({ role: 'twin', credentials: { token: 'credtw' }, env });
  const by = Object.fromEntries(g.map((x) => [x.token, [x.role, x.plants]]));
  assert.deepEqual(by, { credtw: ['twin', ['p9']], vw: ['viewer', ['p9']], ed: ['edge', ['p9']], sc: ['twin', ['a', 'b']] });
  const edge = endpointGrants({ role: 'edge', plant: 'px', env });
  assert.deepEqual(edge.find((x) => x.token === 'ed'), { token: 'ed', role: 'edge', plants: ['px'] }, 'the node\'s plant before S7T_PLANT');
  const au = endpointGrants({ role: 'twin', env: { S7T_AUDITOR_TOKEN: 'au1,au2', S7T_TOKENS: 'au3:auditor:a' } });
  assert.deepEqual(au.filter((x) => x.role === 'auditor'), [
    { token: 'au3', role: 'auditor', plants: ['a'] }, { token: 'au1', role: 'auditor', plants: '*' }, { token: 'au2', role: 'auditor', plants: '*' },
  ], 'S7T_AUDITOR_TOKEN reads every plant\'s log; a scoped auditor its plants');
  assert.deepEqual(plan({ env: { S7T_TWIN_TOKEN: 'tw', S7T_AUDITOR_TOKEN: 'au' } }).tokens, ['tw'], 'an auditor token opens no twin endpoint');
});

test('planEndpoint: serves with its own role\'s tokens; a token of two roles, a taken path or a bad Redis URL make it unusable', () => {
  const ok = plan({ env: { S7T_TWIN_TOKEN: 'tw', S7T_VIEWER_TOKEN: 'vw', S7T_EDGE_TOKEN: 'ed' } });
  assert.deepEqual(ok.tokens.sort(), ['tw', 'vw']);
  assert.equal(ok.unusable, undefined);
  assert.equal(ok.backplane, null, 'in-process without S7T_REDIS_URL');
  const shared = plan({ env: { S7T_TWIN_TOKEN: 'same', S7T_EDGE_TOKEN: 'same' } });
  assert.equal(shared.unusable.text, 'edge token shared with twins');
  assert.match(shared.unusable.why, /^E_TOKENS: .*set distinct S7T_EDGE_TOKEN/);
  const other = plan({ role: 'edge', path: '/s7twin/edge', credentials: { token: 'x' }, otherTokens: ['x'] });
  assert.equal(other.unusable.text, 'edge token shared with twins', 'checked against the other endpoints\' credentials too');
  assert.deepEqual(other.tokens, ['x']);
  const bad = plan({ env: { S7T_TOKENS: 'tok:nosuchrole:a' } });
  assert.equal(bad.unusable.text, 'bad token list');
  const taken = plan({ env: { S7T_TWIN_TOKEN: 'tw' }, pathTaken: true });
  assert.deepEqual(taken.unusable, { text: 'path in use', why: 'another s7twin-link-server already serves /s7twin/twin' });
  assert.ok(taken.grants.length > 0, 'the grants are known even so (the REST node reads them)');
  const redis = plan({ role: 'edge', env: { S7T_EDGE_TOKEN: 'ed', S7T_REDIS_URL: 'http://nope' } });
  assert.equal(redis.unusable.text, 'bad S7T_REDIS_URL');
  assert.match(redis.unusable.why, /^E_BACKPLANE_CONFIG: /);
  assert.deepEqual(plan({ env: {} }).tokens, [], 'no token: it serves, and refuses every peer');
});

test('endpointOptions: the node\'s settings in the endpoint\'s units, defaults for what is unset; a rate of 0 is off', () => {
  const o = endpointOptions({ pingS: 5, maxPayloadKiB: 8, ratePerS: '0' }, { role: 'edge', path: '/e', id: 'a.b c', grants: [] });
  assert.deepEqual([o.pingMs, o.maxPayload, o.ratePerS, o.burst, o.linkTimeoutMs, o.maxClients], [5000, 8192, 0, 0, 3000, 1000]);
  assert.equal(o.src, 'cloud-edge-a.bc');
  assert.equal(o.backplane, undefined);
  const d = endpointOptions({ ratePerS: '' }, { role: 'twin', path: '/t', id: 'n', grants: [] });
  assert.deepEqual([d.ratePerS, d.burst, d.lifetimeMs, d.maxLifetimeMs], [200, 400, 1000, 10000]);
});

test('endpointStatus: connected while a peer is; an edge not yet synced is connecting', () => {
  const ep = (connections, ready) => ({ counters: { connections }, edgeReady: () => ready });
  assert.deepEqual(endpointStatus('twin', ep(0)), { kind: 'disconnected', text: 'no twin' });
  assert.deepEqual(endpointStatus('twin', ep(2)), { kind: 'connected', text: '2 twins' });
  assert.deepEqual(endpointStatus('edge', ep(1, false)), { kind: 'connecting', text: 'edge connecting' });
  assert.deepEqual(endpointStatus('edge', ep(1, true)), { kind: 'connected', text: '1 edge' });
});

test('createRefusalLog: every bad token logged; a second edge warned about at most once a period, with the count', () => {
  const logs = [];
  const warns = [];
  let t = 1000;
  const onRefused = createRefusalLog({ log: (x) => logs.push(x), warn: (x) => warns.push(x), everyMs: 100, now: () => t });
  const req = { socket: { remoteAddress: '10.0.0.9' } };
  onRefused('token', req);
  onRefused('full', req);
  assert.deepEqual(logs, ['refused 10.0.0.9: bad or missing token (HTTP 401)']);
  onRefused('edge-taken', req);
  onRefused('edge-taken', req);
  onRefused('edge-taken', req);
  assert.equal(warns.length, 1);
  assert.match(warns[0], /1 refusal\(s\)/);
  t += 100;
  onRefused('edge-taken', req);
  assert.equal(warns.length, 2);
  assert.match(warns[1], /3 refusal\(s\) since the last warning/);
});

test('planEndpoint and listenerOptions: the edge endpoint\'s transport, its broker from the node, else S7T_LINK_*', () => {
  const { listenerOptions } = require('../../../../nodes/lib/link/server-setup');
  assert.equal(plan({ role: 'edge', env: { S7T_EDGE_TOKEN: 'ed' } }).transport, 'ws');
  assert.equal(plan({ role: 'edge', env: { S7T_EDGE_TOKEN: 'ed' }, transport: '${S7T_LINK_TRANSPORT}' }).transport, 'ws', 'a variable not set: WebSocket');
  assert.equal(plan({ role: 'edge', env: { S7T_EDGE_TOKEN: 'ed' }, transport: 'kafka' }).transport, 'kafka');
  assert.deepEqual(plan({ role: 'edge', transport: 'pigeon' }).unusable.text, 'unknown transport');
  const twin = plan({ transport: 'amqp' });
  assert.equal(twin.unusable.text, 'twins use WebSocket');
  assert.match(twin.unusable.why, /^E_LINK_TRANSPORT: /);
  assert.deepEqual(listenerOptions('amqp', { brokerUrl: 'amqp://u:p@h:5672' }, {}, {}), { url: 'amqp://h:5672', username: 'u', password: 'p' });
  assert.deepEqual(listenerOptions('amqp', { brokerUrl: '${S7T_LINK_URL}' }, { brokerUser: 'cu', brokerPassword: 'cp' }, { S7T_LINK_URL: 'amqp://x:1', S7T_LINK_USER: 'eu' }),
    { url: 'amqp://x:1', username: 'cu', password: 'cp' }, 'credentials before the environment');
  assert.deepEqual(listenerOptions('zmq', {}, {}, {}), { url: 'tcp://127.0.0.1:5560', username: undefined, password: undefined }, 'the development address');
  assert.throws(() => listenerOptions('kafka', { brokerUrl: 'ws://nope' }, {}, {}), { code: 'E_LINK_URL' });
});
