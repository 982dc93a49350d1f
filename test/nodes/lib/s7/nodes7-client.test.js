'use strict';
/** nodes/lib/s7/nodes7-client.js: a nodes7 connection torn down completely, and its narrow interface. */
const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const NodeS7 = require('nodes7');
const { createNodes7Client, teardown } = require('../../../../nodes/lib/s7/nodes7-client');

test('teardown clears every timer nodes7 keeps and silences its callbacks', () => {
  const inst = new NodeS7({ silent: true });
  let fired = 0;
  for (const t of ['reconnectTimer', 'rereadTimer', 'connectTimeout', 'PDUTimeout', 'resetTimeout', 'dropConnectionTimer']) {
    inst[t] = setTimeout(() => { fired += 1; }, 10);
  }
  let called = 0;
  inst.readDoneCallback = () => { called += 1; };
  teardown(inst);
  assert.equal(inst.reconnectTimer, undefined);
  inst.readDoneCallback(true, {});
  assert.equal(called, 0);
  teardown(null); // nothing to do
  return new Promise((r) => setTimeout(r, 30)).then(() => assert.equal(fired, 0));
});

test('connecting where nothing listens reports the error', async () => {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const port = srv.address().port;
  await new Promise((r) => srv.close(r)); // a free port nobody listens on
  const client = createNodes7Client({ host: '127.0.0.1', port, rack: 0, slot: 1, timeoutMs: 1000, parallelJobs: 1 });
  const err = await new Promise((resolve) => client.connect(resolve, () => {}));
  client.destroy();
  assert.ok(err, 'an error');
  assert.match(String(err.code || err.message || err), /ECONNREFUSED|timeout/i);
});

test('a write\'s gate is asked right before its bytes go to the socket: closed, nothing is sent and nodes7 takes the next write', async (t) => {
  const { startBareS7 } = require('../../../../system/bare-s7');
  const srv = await startBareS7();
  t.after(() => srv.stop());
  const client = createNodes7Client({ host: '127.0.0.1', port: srv.port, rack: 0, slot: 1, timeoutMs: 2000, parallelJobs: 1 });
  t.after(() => client.destroy());
  const err = await new Promise((resolve) => client.connect(resolve, () => {}));
  assert.equal(err, undefined);
  let asked = 0;
  const late = client.write([{ addr: 'DB1,X0.2', value: true }], () => assert.fail('a refused write is never answered'), () => { asked += 1; return false; });
  assert.equal(late, 'late');
  assert.equal(asked, 1);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(srv.values().se, 0, 'nothing reached the PLC');
  const done = new Promise((resolve) => {
    assert.equal(client.write([{ addr: 'DB1,X0.3', value: true }], (bad, info) => resolve([bad, info]), () => true), 'sent');
  });
  const [bad, info] = await done;
  assert.equal(bad, false);
  assert.equal(info.timedOut, false);
  assert.equal(srv.values().se, 0);
  assert.equal(srv.io()[0] & 0x08, 0x08, 'the next write went out');
});

/**
 * The virtual PLC (S7 only), a plain nodes7 connection to check what it holds, and a client of
 * this file connected to it; all stopped after the test.
 */
async function plcWithClients(t) {
  const { startPlc, s7Connect } = require('../../../helpers/plc');
  const plc = await startPlc({ opcua: false, modbus: false });
  t.after(() => plc.stop());
  const s7 = await s7Connect(plc.ports.s7);
  t.after(() => s7.close());
  const client = createNodes7Client({ host: '127.0.0.1', port: plc.ports.s7, rack: 0, slot: 1, timeoutMs: 2000, parallelJobs: 1 });
  t.after(() => client.destroy());
  assert.equal(await new Promise((resolve) => client.connect(resolve, () => {})), undefined);
  return { plc, s7, client };
}

test('item lists that change with every read come back right from the real PLC: DWORD ranges re-aimed, '
  + 'the I/O range reused, a list too large for one PDU the stock way', async (t) => {
  const { s7, client } = await plcWithClients(t);
  // Requests in DB2 slots 0..299; the PLC's program copies them to the response slots in DB3.
  const want = Array.from({ length: 300 }, (_, i) => (0x1000 * i + 7) >>> 0);
  for (let i = 0; i < 300; i += 100) await s7.write({ [`DB2,DWORD${4 * i}.100`]: want.slice(i, i + 100) });
  const last = 'DB3,DWORD1196';
  for (let k = 0; k < 200 && (await s7.read([last]))[last] !== want[299]; k++) await new Promise((r) => setTimeout(r, 10));
  const read = (addrs) => {
    client.setItems(addrs);
    return new Promise((resolve) => client.read((bad, values, pdus) => resolve({ bad, values, pdus })));
  };
  let seed = 7;
  const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  const pdus = [];
  for (let k = 0; k < 60; k++) {
    const ranges = Array.from({ length: 1 + rnd(24) }, () => { const start = rnd(290); return { start, n: 1 + rnd(Math.min(40, 300 - start)) }; });
    const addrs = ['DB1,BYTE0.16', ...new Set(ranges.map((r) => `DB3,DWORD${4 * r.start}${r.n > 1 || rnd(2) ? `.${r.n}` : ''}`))];
    const { bad, values, pdus: p } = await read(addrs);
    assert.equal(bad, false, `read ${k}: ${JSON.stringify(values).slice(0, 400)} ${addrs}`);
    pdus.push(p);
    assert.equal(values['DB1,BYTE0.16'].length, 16);
    for (const a of addrs.slice(1)) {
      const [, off, n] = /DWORD(\d+)(?:\.(\d+))?/.exec(a);
      const start = Number(off) / 4;
      const expect = want.slice(start, start + Number(n || 1));
      assert.deepEqual([].concat(values[a]), expect, `${a} in read ${k}`);
    }
  }
  assert.ok(pdus.every((p) => p >= 1) && pdus.some((p) => p > 1), `lists of more than one PDU's bytes or 20 items take several requests: ${pdus}`);
  // One item larger than a PDU: nodes7's own packetizer splits it; then the quick way again.
  const big = await read(['DB1,BYTE0.16', 'DB3,DWORD0.300']);
  assert.equal(big.bad, false);
  assert.deepEqual(big.values['DB3,DWORD0.300'], want);
  assert.ok(big.pdus >= 2);
  const again = await read(['DB1,BYTE0.16', 'DB3,DWORD40.2']);
  assert.deepEqual(again.values['DB3,DWORD40.2'], want.slice(10, 12));
  assert.equal(again.pdus, 1);
});

test('writes of pooled items reach the real PLC as nodes7 would write them: ranges re-aimed, bits and words kept, a refused item BAD, '
  + 'the next write judged on its own answer', async (t) => {
  const { s7, client } = await plcWithClients(t);
  const write = (items) => new Promise((resolve) => {
    assert.equal(client.write(items, (bad) => resolve(bad), () => true), 'sent');
  });
  let seed = 11;
  const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  const want = new Array(1024).fill(0);
  for (let k = 0; k < 40; k++) {
    // Up to 8 request-slot ranges a job, apart from each other, each 1-4 slots.
    const items = [];
    let slot = rnd(40);
    for (let j = 0; j < 1 + rnd(8) && slot < 1000; j++) {
      const n = 1 + rnd(4);
      const values = Array.from({ length: n }, () => rnd(0xffffffff));
      const one = n === 1 && rnd(2); // `DB2,DWORD8` and `DB2,DWORD8.1` both name one slot
      items.push(one ? { addr: `DB2,DWORD${4 * slot}`, value: values[0] } : { addr: `DB2,DWORD${4 * slot}.${n}`, value: n === 1 ? values[0] : values });
      values.forEach((v, i) => { want[slot + i] = v; });
      slot += n + 1 + rnd(100);
    }
    assert.equal(await write(items), false, `write ${k}`);
  }
  const got = await s7.read(['DB2,DWORD0.200', 'DB2,DWORD800.200']);
  assert.deepEqual(got['DB2,DWORD0.200'], want.slice(0, 200));
  assert.deepEqual(got['DB2,DWORD800.200'], want.slice(200, 400));
  const rest = await s7.read(['DB2,DWORD1600.224', 'DB2,DWORD2496.200']);
  assert.deepEqual([...rest['DB2,DWORD1600.224'], ...rest['DB2,DWORD2496.200']], want.slice(400, 824));
  // A bit and a word of the I/O block, twice each (the kept items), then the same address twice in one job (nodes7's own way).
  for (const on of [true, false, true]) assert.equal(await write([{ addr: 'DB1,X0.3', value: on }, { addr: 'DB2,DWORD4000', value: on ? 1 : 2 }]), false);
  assert.equal((await s7.read(['DB1,X0.3']))['DB1,X0.3'], true);
  assert.equal(await write([{ addr: 'DB2,DWORD4', value: 5 }, { addr: 'DB2,DWORD4', value: 6 }]), false);
  assert.equal((await s7.read(['DB2,DWORD4']))['DB2,DWORD4'], 6);
  // A data block the PLC does not have: BAD; the pooled items of the next write are judged on their own answer.
  assert.equal(await write([{ addr: 'DB99,DWORD0', value: 1 }, { addr: 'DB2,DWORD8', value: 7 }]), true, 'DB99 refused');
  assert.equal(await write([{ addr: 'DB2,DWORD8', value: 8 }]), false);
  assert.equal((await s7.read(['DB2,DWORD8']))['DB2,DWORD8'], 8);
});
