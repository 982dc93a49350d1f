'use strict';
/** nodes/lib/s7/nodes7-client.js: a nodes7 connection torn down completely, and its narrow interface. */
const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const NodeS7 = require('nodes7');
const { createNodes7Client, teardown } = require('../../../../nodes/lib/s7/nodes7-client');

test('teardown clears every timer nodes7 keeps and silences its callbacks', () => {
  const inst = new NodeS7({ silent: true });
  let fired = 0;
  for (const t of ['reconnectTimer', 'rereadTimer', 'connectTimeout', 'PDUTimeout', 'resetTimeout', 'dropConnectionTimer']) {
    inst[t] = setTimeout(() => { fired += 1; }, 10);
  }
  let called = 0;
  inst.readDoneCallback = () => { called += 1; };
  teardown(inst);
  assert.equal(inst.reconnectTimer, undefined);
  inst.readDoneCallback(true, {});
  assert.equal(called, 0);
  teardown(null); // nothing to do
  return new Promise((r) => setTimeout(r, 30)).then(() => assert.equal(fired, 0));
});

test('connecting where nothing listens reports the error', async () => {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const port = srv.address().port;
  await new Promise((r) => srv.close(r)); // a free port nobody listens on
  const client = createNodes7Client({ host: '127.0.0.1', port, rack: 0, slot: 1, timeoutMs: 1000, parallelJobs: 1 });
  const err = await new Promise((resolve) => client.connect(resolve, () => {}));
  client.destroy();
  assert.ok(err, 'an error');
  assert.match(String(err.code || err.message || err), /ECONNREFUSED|timeout/i);
});

test('a write\'s gate is asked right before its bytes go to the socket: closed, nothing is sent and nodes7 takes the next write', async (t) => {
  const { startBareS7 } = require('../../../../system/bare-s7');
  const srv = await startBareS7();
  t.after(() => srv.stop());
  const client = createNodes7Client({ host: '127.0.0.1', port: srv.port, rack: 0, slot: 1, timeoutMs: 2000, parallelJobs: 1 });
  t.after(() => client.destroy());
  const err = await new Promise((resolve) => client.connect(resolve, () => {}));
  assert.equal(err, undefined);
  let asked = 0;
  const late = client.write([{ addr: 'DB1,X0.2', value: true }], () => assert.fail('a refused write is never answered'), () => { asked += 1; return false; });
  assert.equal(late, 'late');
  assert.equal(asked, 1);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(srv.values().se, 0, 'nothing reached the PLC');
  const done = new Promise((resolve) => {
    assert.equal(client.write([{ addr: 'DB1,X0.3', value: true }], (bad, info) => resolve([bad, info]), () => true), 'sent');
  });
  const [bad, info] = await done;
  assert.equal(bad, false);
  assert.equal(info.timedOut, false);
  assert.equal(srv.values().se, 0);
  assert.equal(srv.io()[0] & 0x08, 0x08, 'the next write went out');
});
