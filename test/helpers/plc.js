'use strict';
/**
 * Test helpers around the virtual PLC, for any area's tests:
 *   const { startPlc, waitFor, s7Connect } = require('./plc');
 *   const plc = await startPlc({ opcua: false });   // every port ephemeral; stop it in after()
 *   await waitFor(() => plc.values().c1 === 1, 5000);
 */
const path = require('node:path');
const { createPlc } = require('../../plc');
const wait = require('./wait');

/**
 * Start a virtual PLC with every listener on 127.0.0.1 and an ephemeral port.
 * Interfaces default to on (S7, OPC UA, Modbus; MQTT only when `mqtt` is given). OPC UA costs about
 * a second of start-up: pass `opcua: false` when the test does not need it.
 * @param {object} [opts] createPlc options; `s7`, `opcua`, `modbus` may be false or partial objects
 * @returns {Promise<object>} the running PLC (call `await plc.stop()`)
 */
async function startPlc(opts = {}) {
  const eph = (o) => (o === false ? false : { host: '127.0.0.1', ...(o === true || o === undefined ? {} : o), port: 0 });
  return createPlc({
    scanMs: 10,
    ...opts,
    s7: eph(opts.s7),
    opcua: eph(opts.opcua),
    modbus: eph(opts.modbus),
    mqtt: opts.mqtt || false,
  });
}

/** waitFor (./wait.js) at the PLC's pace: 10 s by default, polled every 5 ms (a state may last one scan). */
const waitFor = (fn, timeoutMs = 10000, what = fn.toString()) => wait.waitFor(fn, timeoutMs, what, 5);

/**
 * A promise-style nodes7 connection for tests (rack 0, slot 1).
 * `read(['DB1,X2.0', ...])` → {addr: value}; `write({'DB1,X0.0': true})`; `close()`.
 * A read with a bad quality rejects with code E_S7_READ (values carry the "BAD ..." strings).
 * @param {number} port
 * @param {string} [host='127.0.0.1']
 */
async function s7Connect(port, host = '127.0.0.1') {
  const NodeS7 = require('nodes7');
  const conn = new NodeS7({ silent: true });
  await new Promise((resolve, reject) => {
    conn.initiateConnection({ host, port, rack: 0, slot: 1, timeout: 5000 }, (err) => (err ? reject(err) : resolve()));
  });
  conn.setTranslationCB((t) => t);
  let queue = Promise.resolve(); // nodes7 runs one read or write job at a time
  const serial = (job) => { const p = queue.then(job); queue = p.catch(() => {}); return p; };
  return {
    conn,
    read(addrs) {
      return serial(() => new Promise((resolve, reject) => {
        conn.removeItems();
        conn.addItems(addrs);
        conn.readAllItems((bad, values) => {
          if (bad) {
            const e = new Error(`S7 read failed: ${JSON.stringify(values)}`);
            e.code = 'E_S7_READ';
            e.values = values;
            reject(e);
          } else resolve(values);
        });
      }));
    },
    write(map) {
      return serial(() => new Promise((resolve, reject) => {
        const keys = Object.keys(map);
        conn.writeItems(keys, keys.map((k) => map[k]), (bad) => {
          if (bad) { const e = new Error(`S7 write failed: ${keys.join(',')}`); e.code = 'E_S7_WRITE'; reject(e); } else resolve();
        });
      }));
    },
    close() { return new Promise((resolve) => conn.dropConnection(() => resolve())); },
  };
}

/** A folder for OPC UA client certificates, so tests never write into the home directory. */
const OPCUA_CLIENT_PKI = path.join(require('node:os').tmpdir(), 's7twin-test-opcua-client-pki');

module.exports = { startPlc, waitFor, s7Connect, OPCUA_CLIENT_PKI };
