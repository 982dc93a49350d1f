'use strict';
/**
 * The frames' encoding, chosen per connection by the WebSocket subprotocol (lib/core/codec,
 * lib/link/ws-transport.js, lib/link/endpoint-core.js), over real sockets: a client that asks for
 * nothing and one that asks for JSON get JSON text frames, a compact client gets MessagePack
 * binary frames both ways, a client offering only unknown subprotocols is refused before any
 * socket, a malformed binary frame is answered E_DECODE and counted and goes nowhere, and the
 * edge's dialer links in the compact encoding (or JSON when told).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const WebSocket = require('ws');
const codec = require('../../../../nodes/lib/core/codec');
const envelope = require('../../../../nodes/lib/core/envelope');
const { createDialer } = require('../../../../nodes/lib/link/dialer');
const { startCloud } = require('../../../helpers/cloud');
const { waitFor } = require('../../../helpers/nodes');

const { JSON_PROTOCOL, COMPACT_PROTOCOL, TIME_UNIT_US } = codec;

/** A raw twin offering `protocols`; frames decoded with the codec the server chose. */
function rawTwin(url, protocols) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, { headers: { Authorization: 'Bearer tw' } });
    const frames = [];
    const waiters = [];
    let c = null;
    ws.on('unexpected-response', (req, res) => { res.resume(); reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })); });
    ws.on('error', reject);
    ws.on('open', () => {
      const out = codec.createCodec(ws.protocol, { timeUnitUs: TIME_UNIT_US.twin });
      const inn = codec.createCodec(ws.protocol, { timeUnitUs: TIME_UNIT_US.twin });
      c = {
        ws, frames, binaries: 0,
        send: (env) => ws.send(out.encode(env)),
        next: (pred) => new Promise((res) => {
          const hit = frames.find(pred);
          if (hit) res(hit); else waiters.push({ pred, res });
        }),
      };
      ws.on('message', (data, isBinary) => {
        if (isBinary) c.binaries += 1;
        const env = inn.decode(data, isBinary);
        frames.push(env);
        for (const w of [...waiters]) if (w.pred(env)) { waiters.splice(waiters.indexOf(w), 1); w.res(env); }
      });
      resolve(c);
    });
  });
}

const cmd = (src, seq, d) => ({ v: 1, k: 'cmd', src, seq, ts: Date.now(), d });

test('no subprotocol or JSON: text frames; compact: binary frames both ways, relayed and answered like JSON ones', async (t) => {
  const cloud = await startCloud();
  t.after(() => cloud.stop());
  const edge = await cloud.edgePeer();
  t.after(() => edge.ws.terminate());
  await edge.sync();
  cloud.twins.send({ v: 1, k: 'state', src: 'edge-s7', seq: 1, ts: Date.now(), d: { grn: 1, ng: 7 } });
  const url = `${cloud.base}/t`;
  const plain = await rawTwin(url, []);
  const json = await rawTwin(url, [JSON_PROTOCOL]);
  const compact = await rawTwin(url, codec.offerFor('compact'));
  t.after(() => { for (const c of [plain, json, compact]) c.ws.terminate(); });
  assert.deepEqual([plain.ws.protocol, json.ws.protocol, compact.ws.protocol], ['', JSON_PROTOCOL, COMPACT_PROTOCOL]);
  for (const c of [plain, json, compact]) assert.deepEqual((await c.next((f) => f.k === 'snap')).d, { grn: 1, ng: 7 });
  assert.deepEqual([plain.binaries, json.binaries, compact.binaries], [0, 0, 1]);
  assert.equal(cloud.twins.counters.compactPeers, 1);

  compact.send(cmd('twin-c', 1, { st: 1, dmg: 0 }));
  const relayed = await edge.next((f) => f.k === 'cmd' && f.src === 'twin-c');
  assert.deepEqual(relayed.d, { st: 1, dmg: 0 });
  edge.send(edge.frame('ack', { ref: { src: 'twin-c', seq: 1 }, dl: relayed.dl }));
  const ack = await compact.next((f) => f.k === 'ack');
  assert.equal(ack.ref.seq, 1);
  assert.ok(ack.dl <= relayed.dl && relayed.dl - ack.dl < 0.1, 'the deadline comes back, never later');
  edge.send(edge.frame('state', { d: { c1: 1 } }));
  for (const c of [plain, json, compact]) assert.deepEqual((await c.next((f) => f.k === 'state' && 'c1' in f.d)).d, { c1: 1 });
  assert.ok(compact.binaries >= 3);
});

test('a client offering only subprotocols this bridge does not speak is refused with 400 before any socket', async (t) => {
  const cloud = await startCloud();
  t.after(() => cloud.stop());
  await assert.rejects(rawTwin(`${cloud.base}/t`, ['mqtt', 's7twin.v2+cbor']), { status: 400 });
  assert.equal(cloud.twins.counters.protocolRefused, 1);
  assert.equal(cloud.twins.counters.connections, 0);
});

test('a malformed binary frame is answered E_DECODE and counted; nothing is relayed; binary on JSON is E_SCHEMA', async (t) => {
  const cloud = await startCloud();
  t.after(() => cloud.stop());
  const edge = await cloud.edgePeer();
  t.after(() => edge.ws.terminate());
  await edge.sync();
  const compact = await rawTwin(`${cloud.base}/t`, [COMPACT_PROTOCOL]);
  const json = await rawTwin(`${cloud.base}/t`, []);
  t.after(() => { compact.ws.terminate(); json.ws.terminate(); });
  const invalid = [];
  cloud.twins.on('invalid', (err) => invalid.push(err.code));
  compact.ws.send(Buffer.from([0x95, 0x01, 0xc1, 0x00]));
  assert.equal((await compact.next((f) => f.k === 'err')).e.code, 'E_DECODE');
  json.ws.send(Buffer.from([0x95, 0x01, 0x00]));
  assert.equal((await json.next((f) => f.k === 'err')).e.code, 'E_SCHEMA');
  assert.deepEqual(invalid, ['E_DECODE', 'E_SCHEMA']);
  assert.equal(cloud.twins.counters.errors, 2);
  // The connection still works: the next frame of the twin's own encoder is relayed.
  compact.send(cmd('twin-c', 1, { st: 1 }));
  await edge.next((f) => f.k === 'cmd' && f.src === 'twin-c');
  assert.equal(cloud.toEdge.length, 1);
});

test('the edge\'s dialer links in the compact encoding by default, in JSON when told; syncs and states cross either way', async (t) => {
  const cloud = await startCloud();
  t.after(() => cloud.stop());
  for (const encoding of ['compact', 'json']) {
    const dialer = createDialer({ url: `${cloud.base}/e`, token: 'ed', src: `edge-${encoding}`, encoding, heartbeatMs: 100 });
    dialer.start();
    await waitFor(() => cloud.edge.edgeReady());
    assert.equal(dialer.counters.encoding, encoding === 'compact' ? COMPACT_PROTOCOL : JSON_PROTOCOL);
    const twin = await rawTwin(`${cloud.base}/t`, []);
    const s = envelope.createSender(`edge-s7-${encoding}`);
    dialer.send(s.make('state', { d: { red: 1, nb: 123456 } }));
    assert.deepEqual((await twin.next((f) => f.k === 'state' && f.src === s.src)).d, { red: 1, nb: 123456 });
    await waitFor(() => dialer.counters.syncs >= 2);
    assert.ok(dialer.counters.offsetUncertaintyMs !== null);
    twin.ws.terminate();
    await dialer.close();
    await waitFor(() => !cloud.edge.edgeReady());
  }
  assert.throws(() => createDialer({ url: `${cloud.base}/e`, src: 'e', encoding: 'xml' }), { code: 'E_ENCODING' });
});
