'use strict';
/**
 * lib/s7-connection.js against the REAL virtual PLC: after a write it chases the PLC's reaction
 * with back-to-back reads, and a long read is followed by a rest (readDuty) whatever asks for the
 * next one. (Its own file: node-snap7 allows one S7Server per process.)
 */
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { createPlc } = require('../../plc');
const { createS7Connection } = require('../../nodes/lib/s7-connection');
const { waitFor } = require('../helpers/nodes');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

describe('s7-connection read pacing against the virtual PLC', () => {
  let plc;
  before(async () => { plc = await createPlc({ scanMs: 10, s7: { host: '127.0.0.1', port: 0 }, opcua: false, modbus: false, mqtt: false }); });
  after(async () => { await plc.stop(); });

  /**
   * Reads made in `ms` while a probe write goes out every 5 ms (each opens a chase window), with
   * the whole probe response DB (4 KB: several PDUs) watched, as with hundreds of twins.
   */
  async function readsWhileWriting(opts, ms = 600) {
    const conn = createS7Connection({ host: '127.0.0.1', port: plc.ports.s7, cycleMs: 1000, chaseMs: 1000, timeoutMs: 1000, ...opts });
    conn.start();
    try {
      for (let b = 0; b < 16; b++) conn.watch(`DB3,DWORD${256 * b}.64`);
      await waitFor(() => conn.connected, 10000, 'the S7 connection');
      await sleep(50);
      const r0 = conn.counters.reads;
      const end = Date.now() + ms;
      let v = 1;
      while (Date.now() < end) {
        await conn.write([{ addr: 'DB2,DWORD8', value: v++ }]);
        await sleep(5);
      }
      return { reads: conn.counters.reads - r0, counters: { ...conn.counters } };
    } finally {
      await conn.close();
    }
  }

  it('chases a write with back-to-back reads; a long read rests so reads take at most readDuty of the time', async () => {
    const free = await readsWhileWriting({ readDuty: 1 });
    const paced = await readsWhileWriting({ readDuty: 0.1 });
    assert.ok(free.counters.chaseReads > 0, 'reads chase the writes');
    assert.equal(free.counters.rests, 0, 'readDuty 1: no rests');
    assert.ok(paced.counters.rests > 0, 'readDuty 0.1: rests after reads');
    assert.ok(paced.reads * 2 < free.reads, `paced reads ${paced.reads} should be well under free reads ${free.reads}`);
    assert.equal(paced.counters.writeErrors + free.counters.writeErrors, 0, 'every write still went through');
  });
});
