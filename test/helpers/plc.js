'use strict';
/**
 * Test helpers around the virtual PLC, for any area's tests:
 *   const { startPlc, waitFor, s7Connect } = require('./plc');
 *   const plc = await startPlc({ opcua: false });   // every port ephemeral; stop it in after()
 *   await waitFor(() => plc.values().c1 === 1, 5000);
 */
const path = require('node:path');
const { startPlcInProcess } = require('../../system/plc');
const { s7Connect } = require('../../system/s7');
const wait = require('../../system/wait');

/**
 * Start a virtual PLC in the test's process with every listener on 127.0.0.1 and an ephemeral
 * port (system/plc.js). Interfaces default to on (S7, OPC UA, Modbus; MQTT only when `mqtt` is
 * given). OPC UA costs about a second of start-up: pass `opcua: false` when the test does not
 * need it.
 * @param {object} [opts] createPlc options; `s7`, `opcua`, `modbus` may be false or partial objects
 * @returns {Promise<object>} the running PLC (call `await plc.stop()`)
 */
const startPlc = (opts = {}) => startPlcInProcess(opts);

/** waitFor (system/wait.js) at the PLC's pace: 10 s by default, polled every 5 ms (a state may last one scan). */
const waitFor = (fn, timeoutMs = 10000, what = fn.toString()) => wait.waitFor(fn, timeoutMs, what, 5);

/** A folder for OPC UA client certificates, so tests never write into the home directory. */
const OPCUA_CLIENT_PKI = path.join(require('node:os').tmpdir(), 's7twin-test-opcua-client-pki');

/**
 * An OPC UA client and session on the PLC's OPC UA port (certificates in OPCUA_CLIENT_PKI).
 * @param {number} port
 * @returns {Promise<{client: object, session: object}>} close with `session.close()` and `client.disconnect()`
 */
async function opcuaSession(port) {
  const { OPCUAClient, OPCUACertificateManager } = require('node-opcua');
  const client = OPCUAClient.create({
    endpointMustExist: false,
    connectionStrategy: { maxRetry: 5, initialDelay: 200, maxDelay: 1000 },
    clientCertificateManager: new OPCUACertificateManager({ rootFolder: OPCUA_CLIENT_PKI, automaticallyAcceptUnknownCertificate: true }),
  });
  await client.connect(`opc.tcp://127.0.0.1:${port}`);
  return { client, session: await client.createSession() };
}

module.exports = { startPlc, waitFor, s7Connect, opcuaSession, OPCUA_CLIENT_PKI };
