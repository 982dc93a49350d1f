'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { render, snake, leaves } = require('../../../../nodes/lib/runtime/metrics');
const registry = require('../../../../nodes/lib/runtime/registry');

test('metrics: every numeric counter becomes s7twin_<snake case>{node_id,node_type,node_name}', async () => {
  assert.equal(snake('framesIn'), 'frames_in');
  assert.equal(snake('offsetMs'), 'offset_ms');
  assert.deepEqual(leaves({ a: 1, up: true, state: 'connected', nested: { deepOne: 2 }, list: [1] }), [['a', 1], ['up', 1], ['nested_deep_one', 2]]);
  const text = await render([
    { id: 'n1', type: 's7twin-link-server', name: 'edge "main"', counters: { connections: 1, framesIn: 10 } },
    { id: 'n2', type: 's7twin-modbus-server', name: '', counters: { connections: 3, writeRefused: 2, state: 'x' } },
  ]);
  assert.match(text, /^# TYPE s7twin_connections gauge$/m);
  assert.match(text, /^s7twin_connections\{node_id="n1",node_type="s7twin-link-server",node_name="edge \\"main\\""\} 1$/m, 'label values escaped');
  assert.match(text, /^s7twin_connections\{node_id="n2",node_type="s7twin-modbus-server",node_name=""\} 3$/m);
  assert.match(text, /^s7twin_frames_in\{.*\} 10$/m);
  assert.match(text, /^s7twin_write_refused\{.*\} 2$/m);
  assert.doesNotMatch(text, /s7twin_state/);
  assert.match(text, /^process_cpu_user_seconds_total /m, 'the process metrics are there too');
  const again = await render([]);
  assert.doesNotMatch(again, /^s7twin_/m, 'a node gone is gone from the next scrape');
});

test('registry: /s7twin/health answers 503 until the flows start, 200 while they run; stats and metrics sit behind the permission', async () => {
  const routes = {};
  const app = { get: (p, ...handlers) => { routes[p] = handlers; } };
  const permission = () => {};
  registry.install(app, permission);
  assert.equal(routes['/s7twin/stats'][0], permission);
  assert.equal(routes['/s7twin/metrics'][0], permission);
  assert.equal(routes['/s7twin/health'].length, 1, 'health has no permission check');
  const call = () => new Promise((resolve) => {
    const res = { code: 200, status(c) { this.code = c; return this; }, json(b) { resolve({ code: this.code, body: b }); } };
    routes['/s7twin/health'][0]({}, res);
  });
  const { EventEmitter } = require('node:events');
  const events = new EventEmitter();
  registry.watchRuntime(events);
  assert.equal((await call()).code, 503);
  events.emit('flows:started');
  const ok = await call();
  assert.equal(ok.code, 200);
  assert.equal(ok.body.status, 'ok');
  events.emit('flows:stopped');
  assert.equal((await call()).code, 503);
});
