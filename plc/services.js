'use strict';
/**
 * Start and stop the virtual PLC's interfaces over its process image: S7 (snap7 server), Modbus
 * TCP, OPC UA and any number of MQTT clients. Each is loaded only when it is on, so a PLC without
 * OPC UA never loads node-opcua.
 */
const { freePort } = require('./net');

/**
 * Start every interface that is on, in order S7, Modbus, OPC UA, MQTT. If one fails, those
 * already started are stopped and the error is thrown.
 * @param {object} image plc/image.js
 * @param {{s7: object|null, modbus: object|null, opcua: object|null, mqtt: object[]}} cfg each
 *   interface's options or null when off; mqtt: one entry per client (null entries skipped)
 * @param {object} ctx what every interface gets: counters, setInputs, setProbe, scanMs, onReject
 * @param {Object<string, object>} services filled in as they start (the scan reads it)
 * @returns {Promise<{s7: number|null, opcua: number|null, modbus: number|null}>} the ports
 */
async function startServices(image, cfg, ctx, services) {
  const { counters, setInputs, setProbe } = ctx;
  const ports = { s7: null, opcua: null, modbus: null };
  try {
    if (cfg.s7) {
      const port = cfg.s7.port || await freePort(cfg.s7.host);
      services.s7 = require('./s7').startS7(image, { ...cfg.s7, port, counters });
      ports.s7 = port;
    }
    if (cfg.modbus) {
      services.modbus = await require('./modbus').startModbus(image, { ...cfg.modbus, counters, setInputs, setProbe });
      ports.modbus = services.modbus.port;
    }
    if (cfg.opcua) {
      const port = cfg.opcua.port || await freePort(cfg.opcua.host);
      services.opcua = await require('./opcua').startOpcua(image, { ...cfg.opcua, port, counters, setInputs, setProbe, scanMs: ctx.scanMs });
      ports.opcua = port;
    }
    for (const [i, m] of cfg.mqtt.entries()) {
      if (!m) continue;
      services[i ? `mqtt${i}` : 'mqtt'] = require('./mqtt').startMqtt(image, { ...m, counters, setInputs, setProbe, onReject: ctx.onReject });
    }
  } catch (err) {
    await Promise.allSettled(Object.values(services).map((s) => s.stop()));
    throw err;
  }
  return ports;
}

/**
 * Stop every interface, the last started first, and forget them.
 * @param {Object<string, object>} services
 * @param {Array<Promise|null>} [also] more to wait for (the input log's close)
 * @throws the first failure, after all have been stopped
 */
async function stopServices(services, also = []) {
  const names = Object.keys(services).reverse();
  const results = await Promise.allSettled([...names.map((n) => services[n].stop()), ...also]);
  for (const n of names) delete services[n];
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

module.exports = { startServices, stopServices };
