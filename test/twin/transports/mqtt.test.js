'use strict';
/**
 * The twin's MQTT transport against the real broker library and a real mqtt.js client standing in
 * for the PLC: snapshot as 'snap', state as 'state', probes, the whole input image resent after
 * the broker restarts, option errors.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const mqtt = require('mqtt');
const { createMqttServer } = require('../../../nodes/lib/mqtt/server');
const { createTransport } = require('../../../twin/transports/mqtt');
const { waitFor } = require('../../helpers/nodered');
const tags = require('../../../nodes/lib/core/io-table').demoTable();

const IMAGE = Object.fromEntries(tags.outputs.filter((x) => !x.noStream).map((x) => [x.short, 0]));

const USERS = 'twin:twin-pw:twin,plc:plc-pw:plc';

/** A stand-in PLC like plc/mqtt.js: records commands, answers probes, publishes its whole image on connect. */
function fakePlc(url) {
  return new Promise((resolve, reject) => {
    const c = mqtt.connect(url, { username: 'plc', password: 'plc-pw', reconnectPeriod: 100 });
    const cmds = [];
    c.on('message', (topic, payload) => {
      const obj = JSON.parse(payload.toString());
      if (topic.endsWith('/cmd')) cmds.push(obj);
      else c.publish(`s7twin/plant1/probe/res/${obj.i}`, JSON.stringify(obj));
    });
    c.on('connect', () => {
      c.subscribe(['s7twin/plant1/cmd', 's7twin/plant1/probe/req']);
      c.publish('s7twin/plant1/state', JSON.stringify(IMAGE));
    });
    c.once('connect', () => resolve({ c, cmds }));
    c.once('error', reject);
  });
}

test('mqtt transport: options are checked', () => {
  assert.throws(() => createTransport({}), (e) => e.code === 'E_TRANSPORT_CONFIG');
  assert.throws(() => createTransport({ url: 'http://x' }), (e) => e.code === 'E_TRANSPORT_CONFIG');
  assert.throws(() => createTransport({ url: 'mqtt://x', qos: 2 }), (e) => e.code === 'E_TRANSPORT_CONFIG');
});

test('mqtt transport: snapshot, state, probes, and the input image resent after a broker restart', async (t) => {
  let srv = await createMqttServer({ port: 0, wsPort: null, users: USERS });
  const port = srv.ports.tcp;
  const url = `mqtt://127.0.0.1:${port}`;
  const plc = await fakePlc(url);
  const tr = createTransport({ url, username: 'twin', password: 'twin-pw', backoff: { initialMs: 50, maxMs: 200 } });
  t.after(async () => { await tr.close(); plc.c.end(true); await srv.close(); });

  plc.c.publish('s7twin/plant1/state', JSON.stringify({ c1: 0, grn: 1 }));
  await waitFor(() => srv.snapshot('plant1') && srv.snapshot('plant1').grn === 1, 20000, 'the broker to see the state');
  const values = [];
  const probes = [];
  tr.onValues((v, kind) => values.push({ v, kind }));
  tr.onProbe((slot, v) => probes.push([slot, v]));
  await tr.connect();
  await waitFor(() => values.length === 1, 20000, 'the snapshot');
  assert.deepEqual(values[0], { v: { ...IMAGE, grn: 1 }, kind: 'snap' });

  tr.send({ st: 1, se: 0 });
  tr.probe(3, 99);
  await waitFor(() => plc.cmds.length === 1 && probes.length === 1, 20000, 'command and probe answer');
  assert.deepEqual(plc.cmds[0], { st: 1, se: 0 });
  assert.deepEqual(probes[0], [3, 99]);
  plc.c.publish('s7twin/plant1/state', JSON.stringify({ c1: 1 }));
  await waitFor(() => values.length === 2, 20000, 'a state change');
  assert.deepEqual(values[1], { v: { c1: 1 }, kind: 'state' });

  // The broker goes away; inputs that change meanwhile are kept, then sent as one whole image.
  await srv.close();
  await waitFor(() => !tr.stats().connected, 20000, 'the transport to notice');
  tr.send({ st: 0 });
  tr.send({ se: 1 });
  tr.probe(4, 1);
  assert.equal(tr.stats().coalesced, 2);
  assert.equal(tr.stats().probesDropped, 1);
  srv = await createMqttServer({ port, wsPort: null, users: USERS });
  await waitFor(() => tr.stats().reconnects === 1 && tr.stats().connected, 20000, 'the transport to reconnect');
  // Whichever came back first, the PLC ends up with the twin's whole image (the transport's own
  // resend, or its answer to the PLC's image when that was the later one).
  await waitFor(() => plc.cmds.length >= 2, 20000, 'the resent image at the PLC');
  for (const cmd of plc.cmds.slice(1)) assert.deepEqual(cmd, { st: 0, se: 1 });
  const s = tr.stats();
  assert.ok(s.bytesOut > 0 && s.bytesIn > 0 && s.payloadBytesOut > 0);
  assert.equal(s.snapshots, 1);
  // The slot's response topic is subscribed again on the new connection.
  tr.probe(3, 100);
  await waitFor(() => probes.length === 2, 20000, 'a probe answer after the reconnect');
  assert.deepEqual(probes[1], [3, 100]);
});

test('mqtt transport: a twin receives the answers of its own probe slots only (probe/res/<slot>)', async (t) => {
  const srv = await createMqttServer({ port: 0, wsPort: null, users: USERS });
  const url = `mqtt://127.0.0.1:${srv.ports.tcp}`;
  const plc = await fakePlc(url);
  const a = createTransport({ url, username: 'twin', password: 'twin-pw' });
  const b = createTransport({ url, username: 'twin', password: 'twin-pw' });
  t.after(async () => { await a.close(); await b.close(); plc.c.end(true); await srv.close(); });
  await Promise.all([a.connect(), b.connect()]);
  const got = { a: [], b: [] };
  a.onProbe((slot, v) => got.a.push([slot, v]));
  b.onProbe((slot, v) => got.b.push([slot, v]));
  // Two probes of a slot asked before its SUBACK: both wait for it, both are answered.
  a.probe(10, 1);
  a.probe(10, 2);
  for (let v = 1; v <= 20; v += 1) b.probe(20, v);
  await waitFor(() => got.a.length === 2 && got.b.length === 20, 20000, 'every answer');
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(got.a, [[10, 1], [10, 2]], 'none of the other twin\'s 20 answers');
  assert.equal(got.b.length, 20);
  assert.ok(got.b.every(([slot]) => slot === 20));
  assert.equal(a.stats().probesDropped + b.stats().probesDropped, 0);
});
