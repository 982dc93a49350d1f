'use strict';
/** nodes/lib/opcua/node-view.js: what the two OPC UA nodes show. */
const test = require('node:test');
const assert = require('node:assert/strict');
const view = require('../../../../nodes/lib/opcua/node-view');

test('a refused configuration: red dot, and why', () => {
  assert.deepEqual(view.refusedStatus({ code: 'E_NO_CREDENTIAL' }, 'started'), { fill: 'red', shape: 'dot', text: 'no password: not started' });
  assert.deepEqual(view.refusedStatus({ code: 'E_PLANT' }, 'connected'), { fill: 'red', shape: 'dot', text: 'E_PLANT' });
  assert.equal(view.refusedStatus(new Error('x'), 'started').text, 'config error');
});

test('the running server: its port and sessions, denied writes only when there are some', () => {
  assert.equal(view.serverStatusText(4841, { sessions: 2, denied: 0 }), ':4841 sessions 2');
  assert.equal(view.serverStatusText(4841, { sessions: 0, denied: 3 }), ':4841 sessions 0 denied 3');
});

test('a change is an envelope-like message the flow-timer takes as it is', () => {
  const ev = { short: 'st', name: 'StartButton', nodeId: 'ns=1;s=plant1.StartButton', value: 1, who: 'twin', role: 'twin', kind: 'cmd', seq: 4, ts: 99 };
  assert.deepEqual(view.changeMessage(ev), {
    topic: 'st', payload: { k: 'cmd', src: 'twin', seq: 4, ts: 99, d: { st: 1 } },
    variable: 'StartButton', nodeId: 'ns=1;s=plant1.StartButton', value: 1, who: 'twin', role: 'twin',
  });
});

test('the bridge: the worst of its sessions; connected says just that', () => {
  assert.deepEqual(Object.keys(view.bridgeSides(true)), ['plc', 'cloud', 'plc-probes', 'cloud-probes']);
  assert.deepEqual(view.bridgeSides(false), { plc: 'connecting', cloud: 'connecting' });
  assert.deepEqual(view.bridgeStatus(view.bridgeSides(true)), {
    fill: 'yellow', shape: 'ring', text: 'plc connecting, cloud connecting, plc-probes connecting, cloud-probes connecting',
  });
  const all = { plc: 'connected', cloud: 'connected', 'plc-probes': 'connected', 'cloud-probes': 'connected' };
  assert.deepEqual(view.bridgeStatus(all), { fill: 'green', shape: 'dot', text: 'connected' });
  assert.deepEqual(view.bridgeStatus({ ...all, 'cloud-probes': 'disconnected' }),
    { fill: 'red', shape: 'ring', text: 'plc connected, cloud connected, cloud-probes disconnected' });
  assert.deepEqual(view.bridgeStatus({ ...all, plc: 'disconnected', cloud: 'error' }), { fill: 'red', shape: 'dot', text: 'plc disconnected, cloud error' });
});
