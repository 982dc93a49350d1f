'use strict';
/**
 * The sums of a capture: tshark's field lines into packets, packets into payload and frame bytes,
 * and one capture split into set-up and per-message bytes by the client's time windows.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { parseFields, sumPackets, splitByWindows, FIELDS } = require('../../../bench/study/capture');

test('tshark asks for the capture time, the frame length and both transports\' ports and lengths', () => {
  assert.deepEqual(FIELDS, ['frame.time_epoch', 'frame.len', 'tcp.srcport', 'tcp.dstport', 'tcp.len', 'udp.srcport', 'udp.dstport', 'udp.length']);
});

test('field lines become TCP, UDP and other packets; UDP payload is its length less the 8-byte header', () => {
  const text = [
    '1.5,74,40000,11311,0,,,', // a bare TCP ACK
    '1.6,180,40000,11311,114,,,',
    '1.7,150,,,,7410,7411,116',
    '1.8,98,,,,,,', // ICMP or ARP: no transport ports
    '',
  ].join('\n');
  const p = parseFields(text);
  assert.deepEqual(p, [
    { t: 1.5, frame: 74, proto: 'tcp', src: 40000, dst: 11311, payload: 0 },
    { t: 1.6, frame: 180, proto: 'tcp', src: 40000, dst: 11311, payload: 114 },
    { t: 1.7, frame: 150, proto: 'udp', src: 7410, dst: 7411, payload: 108 },
    { t: 1.8, frame: 98, proto: 'other', src: null, dst: null, payload: 0 },
  ]);
});

test('a field tshark repeats (a packet inside an ICMP error) counts by its first value', () => {
  const [p] = parseFields('2.0,100,,,,5000;6000,7000;8000,30;20');
  assert.deepEqual(p, { t: 2, frame: 100, proto: 'udp', src: 5000, dst: 7000, payload: 22 });
});

test('sums add frames and payload, count data packets apart from bare ACKs, and leave out ignored ports', () => {
  const p = parseFields(['1,74,1,2,0,,,', '1,174,1,2,100,,,', '1,150,,,,3,4,58', '1,9000,5201,9,8934,,,'].join('\n'));
  const s = sumPackets(p, { ignorePorts: [5201] });
  assert.deepEqual(s, { packets: 3, frameBytes: 398, payload: 150, dataPackets: 2, tcp: { packets: 2, payload: 100 }, udp: { packets: 1, payload: 50 } });
  assert.equal(sumPackets([]).packets, 0);
});

test('a capture splits into set-up and per-message bytes by the windows the client wrote', () => {
  const pk = (t, payload) => ({ t, frame: payload + 66, proto: 'tcp', src: 1, dst: 2, payload });
  const packets = [
    pk(0.5, 300), pk(0.6, 0), // connecting (set-up)
    pk(1.1, 8), pk(1.2, 8), pk(1.3, 8), pk(1.4, 8), // size 0: two exchanges, 8 bytes of header each way
    pk(2.1, 108), pk(2.2, 108), pk(2.25, 0), pk(2.3, 108), pk(2.4, 108), // size 100, and a bare ACK
    pk(3.5, 40), // closing (set-up)
  ];
  const windows = [{ size: 0, t0: 1, t1: 1.5, messages: 2 }, { size: 100, t0: 2, t1: 2.5, messages: 2 }];
  const r = splitByWindows(packets, windows);
  assert.equal(r.setup.payload, 340);
  assert.equal(r.setup.packets, 3);
  assert.deepEqual([r.bySize[0].bytesPerMessage, r.bySize[0].overhead, r.bySize[0].packetsPerMessage], [8, 8, 1]);
  assert.deepEqual([r.bySize[100].bytesPerMessage, r.bySize[100].overhead, r.bySize[100].packetsPerMessage], [108, 8, 1.25]);
});

test('through a broker each message crosses two links, and the figures are per link', () => {
  const pk = (t, payload) => ({ t, frame: payload + 66, proto: 'tcp', src: 1, dst: 2, payload });
  // one exchange: request client → broker → echo, answer echo → broker → client: 4 packets of 7 bytes
  const r = splitByWindows([pk(1.1, 7), pk(1.2, 7), pk(1.3, 7), pk(1.4, 7)], [{ size: 0, t0: 1, t1: 2, messages: 1 }], { hops: 2 });
  assert.equal(r.bySize[0].bytesPerMessage, 7);
  assert.equal(r.bySize[0].packetsPerMessage, 1);
});
