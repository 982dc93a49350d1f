'use strict';
/**
 * nodes/lib/mqtt/listeners.js with a stand-in broker: every socket counted and handed over (TCP
 * behind the frame guard), plain HTTP on the WebSocket port refused, a port in use refused with
 * E_MQTT_LISTEN, and the ports free after close.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const http = require('node:http');
const { createListeners, listen, mqttProtocol } = require('../../../../nodes/lib/mqtt/listeners');
const { DEFAULTS } = require('../../../../nodes/lib/mqtt/server');
const { waitFor } = require('../../../helpers/nodes');

function setup(o = {}) {
  const handled = [];
  const reports = [];
  const counters = { connections: 0, oversized: 0, tlsErrors: 0 };
  const l = createListeners({
    o: { ...DEFAULTS, host: '127.0.0.1', port: 0, wsPort: 0, maxFrameBytes: 64, ...o },
    broker: { handle: (stream) => { handled.push(stream); stream.on('error', () => {}); } },
    counters, report: (ev) => reports.push(ev),
  });
  return { l, handled, reports, counters };
}

test('TCP sockets go to the broker; a packet announced over maxFrameBytes drops the connection', async () => {
  const s = setup({ wsPort: null });
  const ports = await s.l.start();
  assert.equal(ports.ws, null);
  const sock = net.connect(ports.tcp, '127.0.0.1');
  sock.on('error', () => {});
  await waitFor(() => s.handled.length === 1, 5000, 'the socket at the broker');
  assert.equal(s.counters.connections, 1);
  sock.write(Buffer.from([0x10, 0xff, 0x7f])); // CONNECT announcing 16,383 bytes
  await waitFor(() => s.counters.oversized === 1, 5000, 'the frame guard');
  assert.equal(s.reports[0].code, 'E_MQTT_FRAME');
  s.l.drop();
  await Promise.all(s.l.close());
});

test('the WebSocket port answers plain HTTP with 426; closing frees both ports', async () => {
  const s = setup();
  const ports = await s.l.start();
  const status = await new Promise((resolve, reject) => http.get(`http://127.0.0.1:${ports.ws}/`, (res) => { res.resume(); resolve(res.statusCode); }).on('error', reject));
  assert.equal(status, 426);
  s.l.drop();
  await Promise.all(s.l.close());
  for (const port of [ports.tcp, ports.ws]) {
    const again = net.createServer();
    assert.equal(await listen(again, port, '127.0.0.1'), port, 'free again');
    await new Promise((r) => again.close(r));
  }
});

test('a port in use is refused with E_MQTT_LISTEN', async () => {
  const busy = net.createServer();
  const port = await listen(busy, 0, '127.0.0.1');
  try {
    const s = setup({ port, wsPort: null });
    await assert.rejects(s.l.start(), { code: 'E_MQTT_LISTEN' });
    await Promise.all(s.l.close());
  } finally {
    await new Promise((r) => busy.close(r));
  }
});

test('mqttProtocol offers mqtt, then mqttv3.1, and nothing else', () => {
  assert.equal(mqttProtocol(new Set(['mqttv3.1', 'mqtt'])), 'mqtt');
  assert.equal(mqttProtocol(new Set(['mqttv3.1'])), 'mqttv3.1');
  assert.equal(mqttProtocol(new Set(['chat'])), false);
});
