'use strict';
/** bench/lib/tcp-bytes.js: which captured TCP streams are production twins, and their bytes per box. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { productionStreams, perProduction, portsOf, totals } = require('../../bench/lib/tcp-bytes');

const hex = (x) => Buffer.from(x, 'latin1').toString('hex');
const mqttConnect = (client) => hex(`\x10\x20\x00\x04MQTT\x04\x02\x00\x3c\x00\x15${client}`);

test('production streams: a WebSocket twin by its handshake and first id, an MQTT twin by its CONNECT; warm-up, probe twins and the edge link left out', () => {
  const rows = [
    { stream: 1, time: 10, srcPort: 50001, dstPort: 1880, payload: hex('GET /s7twin/twin HTTP/1.1\r\n') },
    { stream: 2, time: 11, srcPort: 50002, dstPort: 1880, payload: hex('GET /s7twin/edge HTTP/1.1\r\n') },
    { stream: 1, time: 12, srcPort: 50001, dstPort: 1880, payload: hex('\x82\x90\x98\x01\xaetwin-p3xab12c') },
    { stream: 2, time: 13, srcPort: 50002, dstPort: 1880, payload: hex('..twin-p3xab12c..') }, // a relayed command
    { stream: 3, time: 14, srcPort: 50003, dstPort: 1883, payload: mqttConnect('s7twin-twin-p4xzz9zz') },
    { stream: 4, time: 15, srcPort: 50004, dstPort: 1883, payload: mqttConnect('s7twin-twin-p999xqqqqq') },
    { stream: 5, time: 16, srcPort: 50005, dstPort: 1880, payload: hex('GET /s7twin/twin HTTP/1.1\r\n') }, // a probe twin: no production id
    { stream: 6, time: 17, srcPort: 50006, dstPort: 1883, payload: mqttConnect('s7twin-plc') },
    { stream: 6, time: 18, srcPort: 1883, dstPort: 50006, payload: hex('0twin-p4xzz9zz') },
  ];
  const s = productionStreams(rows);
  assert.deepEqual([...s.values()].map((x) => [x.stream, x.id, x.protocol, x.serverPort]), [[1, 'p3xab12c', 'ws', 1880], [3, 'p4xzz9zz', 'mqtt', 1883]]);
});

test('bytes per production: its first-opened leg, up and down by the server\'s port; its profile by the cloud port the logs name; per box', () => {
  const streams = new Map([
    [1, { stream: 1, id: 'p1xaaaaa', protocol: 'ws', serverPort: 9000, openedAt: 5 }], // loopback
    [7, { stream: 7, id: 'p1xbbbbb', protocol: 'ws', serverPort: 1880, openedAt: 9 }], // WAN: proxy → cloud
    [6, { stream: 6, id: 'p1xbbbbb', protocol: 'ws', serverPort: 7000, openedAt: 8 }], // WAN: twin → proxy
  ]);
  const sizes = [
    { stream: 1, srcPort: 40000, len: 100 }, { stream: 1, srcPort: 9000, len: 300 },
    { stream: 6, srcPort: 40001, len: 50 }, { stream: 6, srcPort: 7000, len: 70 },
    { stream: 7, srcPort: 40002, len: 999 }, { stream: 9, srcPort: 1, len: 5 },
  ];
  streams.set(8, { stream: 8, id: 'p2xccccc', protocol: 'ws', serverPort: 5555, openedAt: 3 }); // another system's
  const prods = perProduction(streams, sizes);
  assert.deepEqual(prods, [
    { id: 'p1xaaaaa', protocol: 'ws', legs: 1, serverPorts: [9000], up: 100, down: 300 },
    { id: 'p1xbbbbb', protocol: 'ws', legs: 2, serverPorts: [1880, 7000], up: 50, down: 70 },
    { id: 'p2xccccc', protocol: 'ws', legs: 1, serverPorts: [5555], up: 0, down: 0 },
  ]);
  const ports = portsOf({
    local: '25 Nov 05:36:44 - [info] Server now running at http://127.0.0.1:9000/\n… MQTT broker listening on mqtt://127.0.0.1:9001 and ws://…',
    wan: '25 Nov 05:39:44 - [info] Server now running at http://127.0.0.1:1880/',
  });
  assert.deepEqual([...ports], [[9000, 'local'], [9001, 'local'], [1880, 'wan']]);
  const summary = {
    profiles: {
      local: { links: null, productions: { ws: { productions: 1, bytes: { boxes: 4, bothPerBox: 101 } } } },
      wan: { links: { 'twin-cloud': {} }, productions: { ws: { productions: 1, bytes: { boxes: 2, bothPerBox: 60 } } } },
    },
  };
  assert.deepEqual(totals(prods, summary, ports).map((r) => [r.profile, r.protocol, r.productions, r.perBox, r.reportPerBox, r.reportProductions]), [
    ['local', 'ws', 1, 100, 101, 1],
    ['wan', 'ws', 1, 60, 60, 1],
  ]);
});
