'use strict';
/**
 * Every server binds exactly where it is told (node-opcua's `hostname` option alone left the
 * cloud's OPC UA server listening on every interface with S7T_OPCUA_HOST=127.0.0.1). Checked in the kernel's table of listening
 * sockets, for the cloud's OPC UA, MQTT and Modbus servers and every interface of the virtual PLC.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { listeningAddresses } = require('../helpers/listening');
const { freePort } = require('../helpers/nodered');
const { pkiDir } = require('../helpers/opcua');
const { createOpcuaServer } = require('../../nodes/lib/opcua/server');
const { createMqttServer } = require('../../nodes/lib/mqtt/server');
const { createModbusServer } = require('../../nodes/lib/modbus/server');
const { createPlc } = require('../../plc');

test('the cloud OPC UA server listens on its host only, and advertises its public host name', async (t) => {
  const port = await freePort();
  const srv = createOpcuaServer({ host: '127.0.0.1', port, pkiDir: pkiDir('bind-server') });
  await srv.start();
  t.after(() => srv.stop());
  assert.deepEqual(listeningAddresses(port), ['127.0.0.1']);
  assert.equal(srv.endpointUrl, `opc.tcp://127.0.0.1:${port}`);

  const port2 = await freePort();
  const wide = createOpcuaServer({ host: '0.0.0.0', port: port2, publicHost: 'cloud', pkiDir: pkiDir('bind-server') });
  assert.equal(wide.endpointUrl, `opc.tcp://cloud:${port2}`, 'bound everywhere, it names the host clients dial');
});

test('the MQTT broker and the Modbus server listen on their host only', async (t) => {
  const mqtt = await createMqttServer({ host: '127.0.0.1', port: 0, wsPort: 0, users: 'a:b:twin' });
  t.after(() => mqtt.close());
  assert.deepEqual(listeningAddresses(mqtt.ports.tcp), ['127.0.0.1']);
  assert.deepEqual(listeningAddresses(mqtt.ports.ws), ['127.0.0.1']);
  const mb = createModbusServer({ host: '127.0.0.1', port: 0 });
  const p = await mb.start();
  t.after(() => mb.close());
  assert.deepEqual(listeningAddresses(p), ['127.0.0.1']);
});

test('the virtual PLC listens on its host only, S7, OPC UA and Modbus', async (t) => {
  const plc = await createPlc({ host: '127.0.0.1', s7: { port: 0 }, opcua: { port: await freePort(), pkiDir: pkiDir('bind-plc') }, modbus: { port: 0 } });
  t.after(() => plc.stop());
  for (const k of ['s7', 'opcua', 'modbus']) assert.deepEqual(listeningAddresses(plc.ports[k]), ['127.0.0.1'], k);
});
