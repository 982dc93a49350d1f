'use strict';
/**
 * The edge's S7 connection reading a table of several areas from the REAL virtual PLC (snap7's
 * server through node-snap7), through a relay that counts the S7 read requests on the wire: the
 * tank's two data blocks and M area are one request per read (nodes7 packs the three items into
 * one PDU), a table larger than a PDU takes as few requests as the negotiated PDU size allows, and
 * every value arrives decoded by the table. (Its own file: node-snap7 allows one S7Server per
 * process.)
 */
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const path = require('node:path');
const { createPlc } = require('../../../../plc');
const { createTable, loadTable } = require('../../../../nodes/lib/core/io-table');
const { createS7Connection } = require('../../../../nodes/lib/s7/connection');
const { createS7Bridge } = require('../../../../nodes/lib/s7/bridge');
const { waitFor } = require('../../../helpers/nodes');

const tank = loadTable({ file: path.join(__dirname, '..', '..', '..', '..', 'examples', 'tables', 'tank.json') });

/**
 * A TCP relay to the PLC that counts the S7 jobs a client sends, by function (0x04 read, 0x05
 * write): TPKT (4 bytes) + COTP data (3) + S7 header (10), then the function code.
 */
async function countingRelay(port) {
  const jobs = { read: 0, write: 0 };
  const server = net.createServer((client) => {
    const plcSide = net.connect(port, '127.0.0.1');
    let pending = Buffer.alloc(0);
    client.on('data', (b) => {
      plcSide.write(b);
      pending = Buffer.concat([pending, b]);
      while (pending.length >= 4 && pending.length >= pending.readUInt16BE(2)) {
        const frame = pending.subarray(0, pending.readUInt16BE(2));
        pending = pending.subarray(frame.length);
        if (frame.length > 17 && frame[5] === 0xf0 && frame[7] === 0x32 && frame[8] === 0x01) {
          if (frame[17] === 0x04) jobs.read += 1;
          if (frame[17] === 0x05) jobs.write += 1;
        }
      }
    });
    plcSide.on('data', (b) => { if (!client.destroyed) client.write(b); });
    const end = () => { client.destroy(); plcSide.destroy(); };
    client.on('error', end); plcSide.on('error', end); client.on('close', end); plcSide.on('close', end);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { jobs, port: server.address().port, close: () => new Promise((r) => server.close(r)) };
}

/** A connection to the PLC through a counting relay, reading `table`'s ranges; its decoded reads. */
async function connect(plc, table, t) {
  const relay = await countingRelay(plc.ports.s7);
  const conn = createS7Connection({ host: '127.0.0.1', port: relay.port, cycleMs: 20, chaseMs: 0, timeoutMs: 2000,
    ranges: table.readRanges({ filter: () => true }) });
  const seen = [];
  conn.on('data', (areas) => seen.push(table.decodeBlock(areas)));
  conn.start();
  t.after(async () => { await conn.close(); await relay.close(); });
  await waitFor(() => conn.connected && seen.length >= 3, 10000, 'reads');
  return { conn, relay, seen };
}

describe('the tank\'s areas over S7', () => {
  let plc;
  before(async () => { plc = await createPlc({ table: tank, scanMs: 10, s7: { host: '127.0.0.1', port: 0 }, opcua: false, modbus: false }); });
  after(async () => { await plc.stop(); });

  it('two data blocks and the M area: three items, one request per read', async (t) => {
    const { conn, relay, seen } = await connect(plc, tank, t);
    assert.deepEqual(conn.ioAddrs, ['DB10,BYTE0.30', 'DB11,BYTE0.24', 'MB2.10']);
    const r0 = conn.counters.reads;
    const j0 = relay.jobs.read;
    await waitFor(() => conn.counters.reads >= r0 + 20, 10000, '20 more reads');
    const reads = conn.counters.reads - r0;
    const requests = relay.jobs.read - j0;
    // (a read in flight at either end of the window counts on one side only)
    assert.ok(requests >= reads - 1 && requests <= reads + 1, `${requests} read requests for ${reads} reads`);
    plc.setInputs({ sp: 42.5, vlv: 1, rcp: 'Milk' });
    await waitFor(() => { const v = seen[seen.length - 1]; return v.lvl === 42.5 && v.vo === 1 && v.rca === 'Milk'; }, 10000, 'the echoes read back');
  });

  it('a command of the tank\'s types lands on the PLC with its type, in one write request', async (t) => {
    const { conn, relay } = await connect(plc, tank, t);
    const sent = [];
    const bridge = createS7Bridge({ conn, table: tank, src: 'edge-test', send: (m) => sent.push(m.payload), setStatus: () => {} });
    t.after(() => bridge.close());
    const w0 = relay.jobs.write;
    await new Promise((resolve) => bridge.input({ payload: { v: 1, k: 'cmd', src: 'twin-1', seq: 1, ts: Date.now(), d: { sp: 12.25, vlv: 0,
      rcp: 'Beer' } } }, resolve));
    await waitFor(() => sent.some((e) => e.k === 'ack'), 10000, 'ack');
    assert.equal(relay.jobs.write - w0, 1, 'one write request for the three values');
    await waitFor(() => plc.values().sp === 12.25 && plc.values().vlv === 0 && plc.values().rcp === 'Beer', 10000, 'on the PLC');
    await waitFor(() => sent.some((e) => (e.k === 'state' || e.k === 'snap') && e.d.lvl === 12.25), 10000, 'the state change comes back');
    await new Promise((resolve) => bridge.input({ payload: { v: 1, k: 'cmd', src: 'twin-1', seq: 2, ts: Date.now(), d: { sp: 101 } } }, resolve));
    assert.equal(sent[sent.length - 1].e.code, 'E_RANGE', 'refused at the edge, before any write');
    assert.equal(relay.jobs.write - w0, 1);
  });
});

describe('a table larger than one PDU', () => {
  // Five STRING[254]s in one data block: 1,280 bytes in one range, more than one PDU carries.
  const big = createTable({
    name: 'big',
    tags: [0, 1, 2, 3, 4].map((i) => ({ name: `Text${i}`, short: `t${i}`, type: 'STRING[254]', s7: `DB20,S${256 * i}.254`, dir: 'in', cloudWritable: true })),
  });
  let plc;
  before(async () => { plc = await createPlc({ table: big, scanMs: 10, s7: { host: '127.0.0.1', port: 0 }, opcua: false, modbus: false }); });
  after(async () => { await plc.stop(); });

  it('is read in as few requests as the negotiated PDU allows', async (t) => {
    const { conn, relay, seen } = await connect(plc, big, t);
    assert.deepEqual(conn.ioAddrs, ['DB20,BYTE0.1280']);
    const r0 = conn.counters.reads;
    const j0 = relay.jobs.read;
    await waitFor(() => conn.counters.reads >= r0 + 10, 10000, '10 more reads');
    const reads = conn.counters.reads - r0;
    const requests = relay.jobs.read - j0;
    // nodes7 splits a range at 4 * floor((PDU - 18) / 4) bytes and packs the parts into as few
    // requests as fit (one part each, here: a part fills a PDU).
    const perRead = Math.ceil(1280 / (4 * Math.floor((conn.maxPdu - 18) / 4)));
    assert.ok(perRead >= 2, `PDU ${conn.maxPdu}: ${perRead} requests per read`);
    assert.ok(requests >= perRead * (reads - 1) && requests <= perRead * (reads + 1), `${requests} read requests for ${reads} reads at ${perRead} each`);
    plc.setInputs({ t3: 'x'.repeat(254) });
    await waitFor(() => seen[seen.length - 1].t3 === 'x'.repeat(254), 10000, 'a STRING across the PDU boundary');
  });
});
