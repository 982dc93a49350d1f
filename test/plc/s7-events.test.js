'use strict';
/** plc/s7-events.js: the S7 server's events counted for clients, the PLC's own client left out. */
const test = require('node:test');
const assert = require('node:assert/strict');
const snap7 = require('node-snap7');
const { createServerEvents, sig } = require('../../plc/s7-events');

const K = snap7.S7Server.prototype; // node-snap7's event codes (no server is made)
const counters = () => ({ s7Clients: 0, s7Connects: 0, s7Writes: 0, s7WriteErrors: 0, s7ClientErrors: 0 });
const write = (db, start, size, ret = 0) => ({ EvtCode: K.evcDataWrite, EvtParam2: db, EvtParam3: start, EvtParam4: size, EvtRetCode: ret });

test('clients connecting, leaving and writing are counted', () => {
  const c = counters();
  const ev = createServerEvents(K, c);
  ev.handle({ EvtCode: K.evcClientAdded });
  ev.handle({ EvtCode: K.evcClientAdded });
  ev.handle({ EvtCode: K.evcClientDisconnected });
  ev.handle(write(1, 0, 1));
  ev.handle(write(1, 0, 1, 5));
  ev.handle({ EvtCode: K.evcClientException });
  assert.deepEqual(c, { s7Clients: 1, s7Connects: 2, s7Writes: 1, s7WriteErrors: 1, s7ClientErrors: 1 });
  ev.handle({ EvtCode: K.evcClientTerminated });
  ev.handle({ EvtCode: K.evcClientTerminated });
  assert.equal(c.s7Clients, 0, 'never below zero');
});

test('the own client\'s announced connect, disconnect and writes are not counted', () => {
  const c = counters();
  const ev = createServerEvents(K, c);
  ev.connecting();
  ev.handle({ EvtCode: K.evcClientAdded });
  ev.writing([sig(1, 2, 1), sig(2, 8, 4)]);
  ev.handle(write(1, 2, 1));
  ev.handle(write(2, 8, 4));
  ev.handle(write(2, 8, 4)); // a client's write to the same place, after the own one
  ev.disconnecting();
  ev.handle({ EvtCode: K.evcClientDisconnected });
  assert.deepEqual(c, { s7Clients: 0, s7Connects: 0, s7Writes: 1, s7WriteErrors: 0, s7ClientErrors: 0 });
});

test('announcements taken back (the call failed) leave the next events to the clients', () => {
  const c = counters();
  const ev = createServerEvents(K, c);
  ev.connecting();
  ev.connectFailed();
  ev.handle({ EvtCode: K.evcClientAdded });
  ev.writing([sig(1, 0, 1)]);
  ev.writeFailed([sig(1, 0, 1)]);
  ev.handle(write(1, 0, 1));
  assert.equal(c.s7Connects, 1);
  assert.equal(c.s7Writes, 1);
});
