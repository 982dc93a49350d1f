'use strict';
/**
 * lib/s7/connection.js against the REAL virtual PLC: after a write it chases the PLC's reaction
 * with back-to-back reads until it sees the PLC has scanned, and a long read is followed by a
 * rest (readDuty) whatever asks for the next one, but never longer than maxRestMs. (Its own
 * file: node-snap7 allows one S7Server per process.) Then the same connection over a stand-in
 * client (test/helpers/fake-s7-client.js): how writes are refused or answered when the
 * connection goes, without a PLC and without timing.
 */
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const { createPlc } = require('../../../../plc');
const { createS7Connection } = require('../../../../nodes/lib/s7/connection');
const { createNodes7Client } = require('../../../../nodes/lib/s7/nodes7-client');
const { median } = require('simple-statistics');
const { waitFor } = require('../../../helpers/nodes');
const { createFakeS7Client } = require('../../../helpers/fake-s7-client');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

describe('s7-connection read pacing against the virtual PLC', () => {
  let plc;
  before(async () => { plc = await createPlc({ scanMs: 10, s7: { host: '127.0.0.1', port: 0 }, opcua: false, modbus: false, mqtt: false }); });
  after(async () => { await plc.stop(); });

  /**
   * Reads made in `ms` while a probe write goes out every 5 ms (each opens a chase window), with
   * the whole probe response DB (4 KB: several PDUs) watched, as with hundreds of twins. Each
   * read's start and end on the real nodes7 client, and the PDUs it took, are recorded.
   */
  async function readsWhileWriting(opts, ms = 600) {
    const spans = [];
    const createClient = (o) => {
      const client = createNodes7Client(o);
      const read = client.read.bind(client);
      client.read = (cb) => {
        const span = { start: performance.now() };
        read((bad, values, pdus) => { Object.assign(span, { end: performance.now(), pdus }); spans.push(span); cb(bad, values, pdus); });
      };
      return client;
    };
    const conn = createS7Connection({ host: '127.0.0.1', port: plc.ports.s7, cycleMs: 1000, chaseMs: 1000, timeoutMs: 1000, createClient, ...opts });
    conn.start();
    try {
      const blocks = Array.from({ length: 16 }, (_, b) => `DB3,DWORD${256 * b}.64`);
      conn.follow(() => blocks);
      await waitFor(() => conn.connected && conn.counters.reads > 0, 10000, 'the S7 connection and its first read');
      const r0 = spans.length;
      const end = Date.now() + ms;
      let v = 1;
      while (Date.now() < end) {
        await conn.write([{ addr: 'DB2,DWORD8', value: v++ }]);
        await sleep(5); // the load: a probe write every 5 ms for `ms`
      }
      return { spans: spans.slice(r0), counters: { ...conn.counters } };
    } finally {
      await conn.close();
    }
  }

  /**
   * Consecutive reads where the second started before the first's rest was over: a read of
   * several PDUs that took t ms is followed by min(maxRestMs, t * (1 / readDuty - 1)) of no read.
   * Times are the client's, inside the session's own, so a rest the session kept shows in full.
   */
  function restsBroken(spans, readDuty, maxRestMs) {
    const out = [];
    for (let i = 1; i < spans.length; i++) {
      const a = spans[i - 1];
      if (a.pdus < 2) continue;
      const rest = Math.min(maxRestMs, (a.end - a.start) * (1 / readDuty - 1));
      if (spans[i].start - a.end < rest - 0.01) out.push({ took: a.end - a.start, rest, idle: spans[i].start - a.end });
    }
    return out;
  }

  it('chases a write with reads; a read of several PDUs rests so reads take at most readDuty of the time', async (t) => {
    // readDuty 0.01 and maxRestMs 20: a rest is 99 times its read (a read of 4 KB on loopback takes
    // a fraction of a millisecond), far longer than the 2 ms between chase reads, so reads without
    // their rests would break the rule whatever the machine's speed.
    const free = await readsWhileWriting({ readDuty: 1 });
    const paced = await readsWhileWriting({ readDuty: 0.01, maxRestMs: 20 });
    assert.ok(free.counters.chaseReads > 0, 'reads chase the writes');
    assert.equal(free.counters.rests, 0, 'readDuty 1: no rests');
    assert.ok(paced.counters.rests > 0, 'readDuty 0.01: rests after reads');
    assert.ok(paced.spans.filter((r) => r.pdus > 1).length > 5, `reads of several PDUs: ${paced.spans.map((r) => r.pdus)}`);
    assert.ok(restsBroken(free.spans, 0.01, 20).length > 0, 'without rests, reads come sooner than the rule allows');
    assert.deepEqual(restsBroken(paced.spans, 0.01, 20), [], 'every read of several PDUs was followed by its rest');
    assert.equal(paced.counters.writeErrors + free.counters.writeErrors, 0, 'every write still went through');
    const took = (r) => median(r.spans.filter((s) => s.pdus > 1).map((s) => s.end - s.start)).toFixed(2);
    t.diagnostic(`600 ms of writes: ${free.spans.length} reads free, ${paced.spans.length} paced; `
      + `a read of several PDUs took ${took(free)} ms (free) and ${took(paced)} ms (paced) at the median`);
  });

  /**
   * What the reads did in the 600 ms after each of `values` was written to probe slot 5 (chaseMs
   * 300; no cyclic reads, cycleMs 1 s: every read there is a chase read, or the one read that
   * follows a chase's early end chaseMs later): when each read came and when one first showed the
   * value answered, in ms after the write, and how many chases ended early.
   */
  async function chaseAfterWrites(opts, values) {
    const conn = createS7Connection({ host: '127.0.0.1', port: plc.ports.s7, cycleMs: 1000, chaseMs: 300, timeoutMs: 1000, ...opts });
    let cur = null;
    conn.on('data', (buf, extra) => {
      if (!cur) return;
      cur.lastMs = performance.now() - cur.t0;
      cur.times.push(cur.lastMs);
      if (extra['DB3,DWORD0.64'] && extra['DB3,DWORD0.64'][5] === cur.value) cur.answeredMs ??= cur.lastMs;
    });
    conn.start();
    try {
      conn.follow(() => ['DB3,DWORD0.64']); // probe slots 0-63: the PLC copies slot 5's request to its response every scan
      await waitFor(() => conn.connected, 10000, 'the S7 connection');
      await sleep(1200); // the first reads (and their cycle) are over
      const out = [];
      for (const value of values) {
        const ends0 = conn.counters.chaseEnds;
        cur = { value, t0: performance.now(), lastMs: null, answeredMs: null, times: [] };
        await conn.write([{ addr: 'DB2,DWORD20', value }]);
        await sleep(600); // the window observed (chaseMs 300, the follow-up read, a margin; the cycle is 1 s): what the reads did in it
        out.push({ ...cur, ended: conn.counters.chaseEnds - ends0 });
      }
      return out;
    } finally {
      await conn.close();
    }
  }

  it('a chase ends at the first read that shows the PLC scanned since the write', async () => {
    // The I/O block holds ScanCount (DB1.DBD12, refreshed every 10 scans) and the probe slot its
    // answer, so a chase ends at the PLC's first scan after the write that shows either, whether
    // or not the write changed anything. One read follows chaseMs (300) after the early end.
    const v = 777000 + Math.floor(Math.random() * 1000);
    const [changed, same] = await chaseAfterWrites({}, [v, v]);
    // Chased on, the reads would go on every 2 ms until 300 ms after the write. A scan is 10 ms,
    // a ScanCount refresh 100 ms.
    const lateReads = (r, after) => r.times.filter((t) => t > after).length;
    assert.equal(changed.ended, 1, 'the chase ended early');
    assert.ok(lateReads(changed, 150) <= 1, `reads after 150 ms: ${changed.times.map((t) => t.toFixed(1))}`);
    // The scan that ends a chase may be one that was already under way when the write landed
    // (its results land a moment later): then the chase ends before the answer, and the answer is
    // the follow-up read's, chaseMs later. When a chase read did show the answer, the reads
    // stopped soon after it, but for that one follow-up; the answer may already be in the chase's
    // first read (then the chase ends at the scan after it).
    assert.ok(changed.answeredMs !== null, 'the answer was read within the window');
    assert.ok(lateReads(changed, changed.answeredMs + 150) <= 1, `reads after the answer: ${changed.times.map((t) => t.toFixed(1))}`);
    assert.equal(same.ended, 1, 'the same value again: ScanCount still shows the scan');
    assert.ok(lateReads(same, 150) <= 1, `reads after 150 ms: ${same.times.map((t) => t.toFixed(1))}`);
  });

  it('without a scan counter in the block, a write that changes nothing is chased for chaseMs', async () => {
    // ioSize 4: the plant's bits only (idle plant, nothing moves); the second write repeats the
    // first value, so no read after it differs from the first.
    const v = 778000 + Math.floor(Math.random() * 1000);
    const [, same] = await chaseAfterWrites({ ioSize: 4 }, [v, v]);
    assert.equal(same.ended, 0, 'nothing changed: no early end');
    assert.ok(same.lastMs >= 250, `chased on for chaseMs: the last read came ${same.lastMs.toFixed(1)} ms after the write`);
  });

  /**
   * Queue a write to each of `slots` at once (probe slot i gets 500000 + i), as a burst of twins
   * does, and a command (StopButton off) in the middle; the write jobs it took once all landed.
   */
  async function burst(slots, independent) {
    const conn = createS7Connection({ host: '127.0.0.1', port: plc.ports.s7, cycleMs: 1000, chaseMs: 0, timeoutMs: 2000 });
    conn.start();
    try {
      await waitFor(() => conn.connected, 10000, 'the S7 connection');
      const jobs0 = conn.counters.writeJobs;
      const writes = slots.map((s, i) => {
        const w = conn.write([{ addr: `DB2,DWORD${4 * s}`, value: 500000 + s }], { independent });
        return i === 100 ? Promise.all([w, conn.write([{ addr: 'DB1,X0.1', value: false }])]) : w;
      });
      await Promise.all(writes);
      const jobs = conn.counters.writeJobs - jobs0;
      // The PLC copies every request to its response slot on its next scans.
      await waitFor(() => slots.every((s) => plc.probeResponse(s) === 500000 + s), 10000, 'every probe response');
      assert.equal(conn.counters.writeErrors, 0);
      return jobs;
    } finally {
      await conn.close();
    }
  }

  it('a burst of probe writes goes out as few jobs, neighbouring slots as one item', async () => {
    const slots = Array.from({ length: 300 }, (_, i) => 1 + i).sort(() => Math.random() - 0.5);
    const plain = await burst(slots, false);
    const merged = await burst(slots.map((s) => s + 300), true);
    // 301 writes in jobs of at most 20 items; merged, a job holds as many neighbouring slots as
    // one PDU takes (232 in one item at 960 bytes).
    assert.ok(plain >= 16, `plain writes took ${plain} jobs`);
    assert.ok(merged <= 8, `merged probe writes took ${merged} jobs`);
  });

  it('a read held up on the way is not followed by a rest longer than maxRestMs', async () => {
    // A TCP relay between the connection and the PLC that can hold one answer back for 60 ms, as
    // a GC pause or a busy core holds a read up. The read then "took" 60 ms; a rest of twice that
    // (readDuty 1/3) would leave every probe waiting 120 ms more for the next read.
    let holdNext = false;
    const relay = net.createServer((client) => {
      const plcSide = net.connect(plc.ports.s7, '127.0.0.1');
      let chain = Promise.resolve();
      client.on('data', (b) => plcSide.write(b));
      plcSide.on('data', (b) => {
        const hold = holdNext;
        holdNext = false;
        chain = chain.then(() => (hold ? sleep(60) : null)).then(() => { if (!client.destroyed) client.write(b); });
      });
      const end = () => { client.destroy(); plcSide.destroy(); };
      client.on('error', end); plcSide.on('error', end); client.on('close', end); plcSide.on('close', end);
    });
    await new Promise((r) => relay.listen(0, '127.0.0.1', r));
    const conn = createS7Connection({ host: '127.0.0.1', port: relay.address().port, cycleMs: 1, chaseMs: 0, timeoutMs: 1000, readDuty: 1 / 3 });
    const at = [];
    conn.on('data', () => at.push(performance.now()));
    conn.start();
    try {
      const blocks = Array.from({ length: 16 }, (_, b) => `DB3,DWORD${256 * b}.64`);
      conn.follow(() => blocks); // 4 KB: several PDUs
      await waitFor(() => conn.connected && at.length > 20, 10000, 'reads through the relay');
      holdNext = true;
      const n0 = at.length;
      await waitFor(() => at.length > n0 + 5, 10000, 'reads after the held one');
      const gaps = at.slice(n0 - 1).map((t, i, a) => (i ? t - a[i - 1] : 0));
      const held = gaps.findIndex((g) => g >= 55); // the read that waited 60 ms in the relay
      assert.ok(held > 0 && held < gaps.length - 1, `one read was held up: ${gaps.map((g) => g.toFixed(1)).join(' ')} ms`);
      assert.ok(gaps[held + 1] < 50,
        `the next read came ${gaps[held + 1].toFixed(1)} ms after the held one (rest capped at 5 ms; uncapped it would be 120 ms)`);
      assert.ok(conn.counters.rests > 0);
    } finally {
      await conn.close();
      await new Promise((r) => relay.close(r));
    }
  });
});

describe('s7-connection over a stand-in client', () => {
  /** A connection whose every attempt is a fake client (the last one in `clients`). */
  function setup(opts = {}) {
    const clients = [];
    const statuses = [];
    const conn = createS7Connection({
      host: 'plc', port: 102, cycleMs: 1e6, chaseMs: 0, backoff: { initialMs: 1, maxMs: 1 }, ...opts,
      createClient: () => { const c = createFakeS7Client(); clients.push(c); return c; },
    });
    conn.on('status', (st, detail) => statuses.push([st, detail]));
    conn.start();
    return { conn, clients, statuses, last: () => clients[clients.length - 1] };
  }
  const outcome = (p) => p.then(() => 'ok', (err) => err.code);

  it('refuses a write at once with E_PLC_DOWN while not connected', async () => {
    const { conn } = setup();
    try {
      assert.equal(await outcome(conn.write([{ addr: 'DB1,X0.2', value: true }])), 'E_PLC_DOWN');
      assert.equal(conn.counters.refused, 1);
    } finally { await conn.close(); }
  });

  it('a lost connection: the write in flight E_OUTCOME_UNKNOWN, the queued ones E_PLC_DOWN, then a fresh client', async () => {
    const { conn, clients, statuses, last } = setup();
    const lost = [];
    conn.on('disconnect', (err) => lost.push(err.code));
    try {
      last().up();
      assert.equal(conn.connected, true);
      last().answerRead();
      const inFlight = outcome(conn.write([{ addr: 'DB1,X0.2', value: true }]));
      const queued = outcome(conn.write([{ addr: 'DB1,X0.3', value: true }]));
      assert.equal(last().writes.length, 1);
      assert.equal(conn.queueDepth, 1);
      last().drop();
      assert.equal(await inFlight, 'E_OUTCOME_UNKNOWN');
      assert.equal(await queued, 'E_PLC_DOWN');
      assert.deepEqual(lost, ['E_PLC_DOWN']);
      assert.equal(conn.connected, false);
      assert.equal(clients[0].destroyed, true);
      assert.deepEqual(statuses.slice(0, 3).map((x) => x[0]), ['connecting', 'connected', 'disconnected']);
      await waitFor(() => clients.length === 2, 5000, 'a fresh attempt');
      last().up();
      assert.equal(conn.counters.reconnects, 1);
      assert.equal(last().reads.length, 1, 'the new connection reads at once');
    } finally { await conn.close(); }
  });

  it('writes queued by a connect listener go out on the new connection', async () => {
    const { conn, last } = setup();
    let w = null;
    conn.once('connect', () => { w = outcome(conn.write([{ addr: 'DB1,X0.2', value: true }])); });
    try {
      last().up();
      assert.equal(last().writes.length, 1);
      last().answerWrite();
      assert.equal(await w, 'ok');
    } finally { await conn.close(); }
  });

  it('an item a follower names joins the read list between reads, never during one', async () => {
    const { conn, last } = setup();
    try {
      last().up();
      assert.deepEqual(last().itemLists, [['DB1,BYTE0.16']]);
      conn.follow(() => ['DB3,DWORD0.64']);
      assert.equal(last().itemLists.length, 1, 'a read is in flight');
      last().answerRead();
      conn.readSoon();
      assert.deepEqual(last().itemLists[1], ['DB1,BYTE0.16', 'DB3,DWORD0.64']);
    } finally { await conn.close(); }
  });

  it('close (a redeploy): the write in flight E_OUTCOME_UNKNOWN (its request left), the client torn down, no more attempts', async () => {
    const { conn, clients, statuses, last } = setup();
    last().up();
    last().answerRead();
    const w = outcome(conn.write([{ addr: 'DB1,X0.2', value: true }]));
    await conn.close();
    assert.equal(await w, 'E_OUTCOME_UNKNOWN');
    assert.equal(last().destroyed, true);
    assert.deepEqual(statuses[statuses.length - 1], ['disconnected', 'closed']);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(clients.length, 1);
    assert.equal(conn.connected, false);
  });
});

describe('s7-connection against a virtual PLC process that stalls', () => {
  const { startPlc, loopbackPlcOptions } = require('../../../../system/plc');
  const { s7Connect } = require('../../../../system/s7');
  let plc;
  before(async () => { plc = await startPlc(loopbackPlcOptions({ opcua: false, modbus: false })); });
  after(async () => { if (plc) await plc.stop(); });

  it('a write whose request left the socket and then timed out is E_OUTCOME_UNKNOWN: the PLC applies it when it resumes', async () => {
    // No cyclic read (cycleMs 60 s) and no chase: after the first read nothing is in flight, so the
    // write goes out at once and meets the stalled PLC itself.
    const conn = createS7Connection({
      host: '127.0.0.1', port: plc.ports.s7, cycleMs: 60000, chaseMs: 0, timeoutMs: 400, backoff: { initialMs: 50, maxMs: 200 },
    });
    conn.start();
    let stopped = false;
    try {
      await waitFor(() => conn.connected && conn.counters.reads > 0, 10000, 'the S7 connection');
      await sleep(50);
      process.kill(plc.pid, 'SIGSTOP'); // the PLC stops answering; the socket still takes the request
      stopped = true;
      // The signal lands asynchronously: write only once the process is seen stopped (state T).
      const state = () => require('node:fs').readFileSync(`/proc/${plc.pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
      await waitFor(() => state() === 'T', 5000, 'the PLC process stopped');
      const got = await conn.write([{ addr: 'DB1,X0.2', value: true }]).then(() => 'ok', (err) => err.code);
      assert.equal(got, 'E_OUTCOME_UNKNOWN', 'the request was sent; whether the PLC applies it is unknown (not E_WRITE: nothing written)');
      process.kill(plc.pid, 'SIGCONT');
      stopped = false;
      // What the PLC did with it: read its inputs over a connection of its own.
      const other = await s7Connect(plc.ports.s7);
      try {
        await waitFor(async () => (await other.read(['DB1,X0.2']))['DB1,X0.2'] === true, 10000, 'the PLC to apply the request that "timed out"');
      } finally { await other.close(); }
    } finally {
      if (stopped) process.kill(plc.pid, 'SIGCONT');
      await conn.close();
    }
  });
});
