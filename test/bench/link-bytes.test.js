'use strict';
/**
 * bench/lib/link-bytes.js: the edge↔cloud link's bytes from the kernel's counters (`ss -tinp`),
 * summed over the edge's connections to the link's ports only.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const { parseSs, tcpBytes } = require('../../bench/lib/link-bytes');

// Two sockets of pid 41 to port 5672 (the broker), one of pid 41 to another port, one of another
// process to 5672: what `ss -tinpH state established` prints (a line per socket, its counters
// indented below it).
const SS = [
  '0      0      127.0.0.1:40100 127.0.0.1:5672 users:(("node",pid=41,fd=20))',
  '\t cubic wscale:7,7 rto:204 bytes_sent:1200 bytes_acked:1100 bytes_received:900 segs_out:10',
  '0      0      127.0.0.1:40101 127.0.0.1:5672 users:(("node",pid=41,fd=21))',
  '\t cubic wscale:7,7 rto:204 bytes_sent:300 bytes_acked:300 bytes_received:50 segs_out:2',
  '0      0      127.0.0.1:40102 127.0.0.1:1880 users:(("node",pid=41,fd=22))',
  '\t cubic wscale:7,7 rto:204 bytes_sent:7777 bytes_acked:7777 bytes_received:7777',
  '0      0      127.0.0.1:40103 127.0.0.1:5672 users:(("node",pid=411,fd=23))',
  '\t cubic wscale:7,7 rto:204 bytes_sent:5555 bytes_acked:5555 bytes_received:5555',
  '0      0      127.0.0.1:5672 127.0.0.1:40104 users:(("beam.smp",pid=41,fd=9))',
  '\t cubic wscale:7,7 rto:204 bytes_acked:1 bytes_received:1',
  '',
].join('\n');

test('parseSs: sums acked and received bytes of the pid\'s sockets whose peer port is the link\'s', () => {
  assert.deepEqual(parseSs(SS, 41, [5672]), { sent: 1400, received: 950, sockets: 2 });
  assert.deepEqual(parseSs(SS, 41, [5672, 1880]), { sent: 9177, received: 8727, sockets: 3 });
  // pid 411 is not pid 41; a socket whose local port is 5672 is not one to the link.
  assert.deepEqual(parseSs(SS, 411, [5672]), { sent: 5555, received: 5555, sockets: 1 });
  assert.deepEqual(parseSs(SS, 41, [9092]), { sent: 0, received: 0, sockets: 0 });
  assert.deepEqual(parseSs('', 41, [5672]), { sent: 0, received: 0, sockets: 0 });
});

test('tcpBytes: this process\'s bytes to a loopback server, as the kernel counts them', async (t) => {
  const server = net.createServer((s) => { s.on('data', (d) => s.write(d)); });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const port = server.address().port;
  const sock = net.connect(port, '127.0.0.1');
  t.after(() => { sock.destroy(); server.close(); });
  await new Promise((r) => sock.once('connect', r));
  const before = await tcpBytes(process.pid, [port]);
  assert.equal(before.sockets, 1);
  const echoed = new Promise((r) => { let n = 0; sock.on('data', (d) => { n += d.length; if (n >= 1000) r(); }); });
  sock.write(Buffer.alloc(1000, 1));
  await echoed;
  // The echo came back, so all 1,000 bytes were acknowledged and 1,000 received.
  const after = await tcpBytes(process.pid, [port]);
  assert.equal(after.sent - before.sent, 1000);
  assert.equal(after.received - before.received, 1000);
});
