'use strict';
/**
 * plc/services.js: the interfaces that are on start, a failure stops those already started, and
 * stopping goes in reverse order to the end whatever fails. (Its own file: node-snap7 allows one
 * S7Server per process.)
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const { startServices, stopServices } = require('../../plc/services');
const { createImage } = require('../../plc/image');

const ctx = () => ({ counters: {}, setInputs: () => {}, setProbe: () => {}, scanMs: 10, onReject: () => {} });
const off = { s7: null, modbus: null, opcua: null, mqtt: [null] };

test('with everything off nothing starts', async () => {
  const services = {};
  assert.deepEqual(await startServices(createImage(), off, ctx(), services), { s7: null, opcua: null, modbus: null });
  assert.deepEqual(services, {});
});

test('the interfaces that are on start on free ports; one failing stops those already started', async () => {
  const image = createImage();
  const services = {};
  const ports = await startServices(image, { ...off, s7: { host: '127.0.0.1', port: 0 }, modbus: { host: '127.0.0.1', port: 0 } }, ctx(), services);
  assert.ok(ports.s7 > 0 && ports.modbus > 0);
  assert.deepEqual(Object.keys(services), ['s7', 'modbus']);
  await stopServices(services);
  assert.deepEqual(services, {});

  const busy = net.createServer();
  await new Promise((r) => busy.listen(0, '127.0.0.1', r));
  try {
    const again = {};
    const clash = { ...off, s7: { host: '127.0.0.1', port: 0 }, modbus: { host: '127.0.0.1', port: busy.address().port } };
    await assert.rejects(startServices(image, clash, ctx(), again));
    // The S7 server started first was stopped: the process's one S7 server is free again.
    const next = {};
    await startServices(image, { ...off, s7: { host: '127.0.0.1', port: 0 } }, ctx(), next);
    await stopServices(next);
  } finally {
    await new Promise((r) => busy.close(r));
  }
});

test('stopServices stops the last started first, forgets all, and throws the first failure after all stopped', async () => {
  const order = [];
  const services = {
    a: { stop: async () => { order.push('a'); } },
    b: { stop: async () => { order.push('b'); throw new Error('b failed'); } },
    c: { stop: async () => { order.push('c'); } },
  };
  let closed = false;
  await assert.rejects(stopServices(services, [Promise.resolve().then(() => { closed = true; })]), /b failed/);
  assert.deepEqual(order, ['c', 'b', 'a']);
  assert.deepEqual(services, {});
  assert.equal(closed, true);
});
