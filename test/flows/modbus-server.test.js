'use strict';
/**
 * Why the cloud tab uses s7twin-modbus-server: in a real Node-RED 5, a redeploy with a client
 * connected leaves node-red-contrib-modbus's server serving that client from the old node's
 * memory, while ours ends the connection so the client reconnects to the new server. Also the
 * codec node's bad-input path (Catch sees E_MODBUS_WORDS) and the server's input writes.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const ModbusRTU = require('modbus-serial');
const WebSocket = require('ws');
const { startNodeRed, freePort, waitFor } = require('../helpers/nodered');

async function client(port) {
  const c = new ModbusRTU();
  await c.connectTCP('127.0.0.1', { port });
  c.setID(1);
  c.setTimeout(3000);
  let closed = false;
  c._port._client.once('close', () => { closed = true; });
  return { c, closed: () => closed };
}

const deploy = (red, flows) => fetch(`${red.url}/flows`, {
  method: 'POST', headers: { 'content-type': 'application/json', 'Node-RED-Deployment-Type': 'full' }, body: JSON.stringify(flows),
});

test('contrib modbus-server keeps a ghost connection after a redeploy (the reason for our node)', async (t) => {
  const port = await freePort();
  const flows = [{ id: 't', type: 'tab', label: 't' },
    {
      id: 's', type: 'modbus-server', z: 't', name: '', logEnabled: false, hostname: '127.0.0.1', serverPort: String(port), responseDelay: 1, delayUnit: 'ms',
      coilsBufferSize: 10, holdingBufferSize: 10, inputBufferSize: 10, discreteBufferSize: 10, showErrors: false, x: 100, y: 100, wires: [[], [], [], [], []],
    }];
  const red = await startNodeRed({ role: 'cloud', flows });
  t.after(() => red.stop());
  // The contrib server listens a moment after "Started flows" (and again after the redeploy).
  const a = await waitFor(() => client(port), 10000, 'contrib server');
  t.after(() => a.c.close(() => {}));
  await a.c.writeRegister(0, 7);
  const res = await deploy(red, flows); // waits for the old node's close (times out after 15 s)
  assert.equal(res.status, 204);
  assert.equal(a.closed(), false, 'old connection still open');
  assert.deepEqual((await a.c.readHoldingRegisters(0, 1)).data, [7], 'served from the old node');
  const b = await waitFor(() => client(port), 10000, 'contrib server after the redeploy');
  assert.deepEqual((await b.c.readHoldingRegisters(0, 1)).data, [0], 'a new client sees the new node: split brain');
  b.c.close(() => {});
});

test('s7twin-modbus-server ends its clients on redeploy; input writes; codec errors reach Catch', async (t) => {
  const port = await freePort();
  const flows = [{ id: 't', type: 'tab', label: 't' },
    { id: 'l', type: 'websocket-listener', path: '/out', wholemsg: 'false' },
    { id: 's', type: 's7twin-modbus-server', z: 't', name: '', host: '127.0.0.1', port: String(port), registers: '100', x: 100, y: 100, wires: [['fmt']] },
    {
      id: 'in', type: 'inject', z: 't', once: true, onceDelay: 0.2, repeat: '', topic: '', payload: '[5,6]', payloadType: 'json',
      x: 100, y: 200, wires: [['addr']],
    },
    { id: 'addr', type: 'change', z: 't', rules: [{ t: 'set', p: 'address', pt: 'msg', to: '10', tot: 'num' }], x: 250, y: 200, wires: [['s']] },
    { id: 'bad', type: 'inject', z: 't', once: true, onceDelay: 0.2, repeat: '', payload: '[1,2,3]', payloadType: 'json', x: 100, y: 300, wires: [['codec']] },
    { id: 'codec', type: 's7twin-modbus-codec', z: 't', name: '', address: '0', count: '1', kind: 'auto', target: '', x: 250, y: 300, wires: [[], []] },
    { id: 'catch', type: 'catch', z: 't', scope: ['codec', 's'], x: 100, y: 400, wires: [['fmt']] },
    {
      id: 'fmt', type: 'function', z: 't', outputs: 1, x: 300, y: 400, wires: [['ws']],
      func: 'return { payload: JSON.stringify(msg.error ? { error: msg.error.message } : { address: msg.address, payload: msg.payload }) };',
    },
    { id: 'ws', type: 'websocket out', z: 't', server: 'l', client: '', x: 500, y: 400, wires: [] },
  ];
  const red = await startNodeRed({ role: 'cloud', flows });
  t.after(() => red.stop());
  const got = [];
  const ws = new WebSocket(`${red.url.replace('http', 'ws')}/out`);
  ws.on('message', (m) => got.push(JSON.parse(String(m))));
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  t.after(() => ws.terminate());

  const a = await client(port);
  t.after(() => a.c.close(() => {}));
  // The inject (0.2 s after start) wrote HR10..11 from the flow.
  await waitFor(async () => (await a.c.readHoldingRegisters(10, 2)).data.join() === '5,6', 10000, 'flow write');
  await a.c.writeRegisters(20, [1, 2]);
  await waitFor(() => got.some((m) => m.address === 20 && m.payload.join() === '1,2'), 10000, 'client write event');
  // A bad block into the codec: a clear error for Catch, nothing else.
  const res = await fetch(`${red.url}/inject/bad`, { method: 'POST' });
  assert.equal(res.status, 200);
  await waitFor(() => got.some((m) => m.error && /expected 1 registers/.test(m.error)), 10000, 'codec error at Catch');

  assert.equal((await deploy(red, flows)).status, 204);
  await waitFor(() => a.closed(), 10000, 'client connection ended by the redeploy');
  assert.ok(!/Close timed out/.test(red.logs()), 'the old node closed without the runtime timing it out');
  const b = await waitFor(() => client(port), 10000, 'new server');
  assert.deepEqual((await b.c.readHoldingRegisters(20, 2)).data, [0, 0], 'a fresh server, no ghost');
  b.c.close(() => {});
});
