'use strict';
/**
 * nodes/lib/modbus/peer.js on a socket pair: requests framed and answered, several per chunk or
 * split across chunks, garbage and flooding refused, limits cutting a connection off.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const { servePeer } = require('../../../../nodes/lib/modbus/peer');
const { createRegisterBank } = require('../../../../nodes/lib/modbus/registers');
const { DEFAULTS } = require('../../../../nodes/lib/modbus/server');
const { waitFor } = require('../../../helpers/nodes');

/** A server serving one peer per connection; `connect()` gives a client socket collecting answers. */
async function setup(o = {}, edge = true) {
  const counters = { requests: 0, reads: 0, writes: 0, exceptions: 0, badFrames: 0, bytesIn: 0, bytesOut: 0, writeRefused: 0, rateLimited: 0, errorBudget: 0 };
  const events = [];
  const bank = createRegisterBank({ registers: 10, twinWritable: [], counters, onRefused: () => {} });
  let closed = 0;
  const srv = net.createServer((sock) => servePeer(sock, {
    o: { ...DEFAULTS, ...o }, bank, counters, emit: (ev, arg) => events.push([ev, arg]), onClose: () => { closed += 1; },
    sources: { matchesNow: () => edge, matches: async () => edge, hasNames: false },
  }));
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const clients = [];
  const connect = async () => {
    const c = net.connect(srv.address().port, '127.0.0.1');
    c.got = Buffer.alloc(0);
    c.on('data', (d) => { c.got = Buffer.concat([c.got, d]); });
    c.on('error', () => {});
    await new Promise((r) => c.once('connect', r));
    clients.push(c);
    return c;
  };
  const stop = async () => { for (const c of clients) c.destroy(); await new Promise((r) => srv.close(r)); };
  return { connect, counters, events, bank, stop, closed: () => closed };
}
/** An MBAP frame: transaction id, protocol 0, length, unit 1, PDU. */
function frame(tid, pdu) {
  const h = Buffer.alloc(7);
  h.writeUInt16BE(tid, 0); h.writeUInt16BE(0, 2); h.writeUInt16BE(pdu.length + 1, 4); h[6] = 1;
  return Buffer.concat([h, pdu]);
}
const fc6 = (a, v) => Buffer.from([6, 0, a, v >> 8, v & 0xff]);
const fc3 = (a, n) => Buffer.from([3, 0, a, 0, n]);

test('requests in one chunk and split across chunks are each answered with their transaction id', async (t) => {
  const s = await setup();
  t.after(s.stop);
  const c = await s.connect();
  const two = Buffer.concat([frame(1, fc6(2, 42)), frame(2, fc3(2, 1))]);
  c.write(two.subarray(0, 9));
  c.write(two.subarray(9));
  await waitFor(() => c.got.length >= 12 + 11, 5000, 'both answers');
  assert.equal(c.got.readUInt16BE(0), 1);
  assert.equal(c.got.readUInt16BE(12), 2);
  assert.equal(c.got.readUInt16BE(12 + 9), 42, 'the read sees the write');
  assert.deepEqual(s.events, [['write', { address: 2, words: [42] }]]);
  assert.equal(s.counters.requests, 2);
});

test('bytes that are not Modbus TCP drop the connection', async (t) => {
  const s = await setup();
  t.after(s.stop);
  const c = await s.connect();
  c.write(Buffer.from('GET / HTTP/1.1\r\n\r\n'));
  await waitFor(() => s.closed() === 1, 5000, 'the connection dropped');
  assert.equal(s.counters.badFrames, 1);
});

test('past its rate a connection not from the edge gets exception 06 and is closed; the edge is exempt', async (t) => {
  const limited = await setup({ ratePerS: 1, burst: 1 }, false);
  t.after(limited.stop);
  const c = await limited.connect();
  c.write(Buffer.concat([frame(1, fc3(0, 1)), frame(2, fc3(0, 1)), frame(3, fc3(0, 1))]));
  await waitFor(() => limited.closed() === 1, 5000, 'the connection closed');
  assert.equal(limited.counters.rateLimited, 1);
  assert.deepEqual([...c.got.subarray(c.got.length - 2)], [0x83, 6]);
  assert.equal(limited.events.at(-1)[0], 'limited');
  const edge = await setup({ ratePerS: 1, burst: 1 }, true);
  t.after(edge.stop);
  const e = await edge.connect();
  e.write(Buffer.concat([frame(1, fc3(0, 1)), frame(2, fc3(0, 1)), frame(3, fc3(0, 1))]));
  await waitFor(() => e.got.length === 3 * 11, 5000, 'three answers');
  assert.equal(edge.counters.rateLimited, 0);
});

test('past its error budget a connection gets its exception and is closed', async (t) => {
  const s = await setup({ errors: 1, errorWindowMs: 60000 }, false);
  t.after(s.stop);
  const c = await s.connect();
  c.write(Buffer.concat([frame(1, fc3(9, 5)), frame(2, fc3(9, 5))]));
  await waitFor(() => s.closed() === 1, 5000, 'the connection closed');
  assert.equal(s.counters.errorBudget, 1);
});
