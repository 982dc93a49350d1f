'use strict';
/**
 * The virtual S7-1500: a process image laid out by an I/O table (the demo plant's DB1 I/O, or any
 * table's data blocks and M area; DB2/DB3 probe slots, MK markers), the box-sorting program on a
 * scan cycle for the demo plant (any other table runs as an I/O image with its echo rules), and
 * four interfaces over the same image: S7comm (snap7 server), OPC UA (node-opcua), Modbus TCP and
 * an MQTT client. Each interface can be switched off.
 *
 *   const { createPlc } = require('./plc');
 *   const plc = await createPlc({ scanMs: 10, s7: {host, port}, opcua: false, modbus: {port: 0}, mqtt: false });
 *   plc.ports            // {s7, opcua, modbus} (null when off)
 *   plc.setInputs({se: 1}); plc.values(); plc.counters; await plc.stop();
 *
 * Run as a program: `npm run plc -- --help`. The parts: one scan (scan.js) on a fixed-rate cycle
 * (cycle.js), the interfaces started and stopped together (services.js).
 */
const { EventEmitter } = require('node:events');
const { tableOf } = require('../nodes/lib/core/io-table');
const { createImage } = require('./image');
const { PlcError } = require('./errors');
const { createInputLog } = require('./input-log');
const { createScan } = require('./scan');
const { startCycle } = require('./cycle');
const { startServices, stopServices } = require('./services');
const { createSampler } = require('./signal');

const DEFAULTS = {
  scanMs: 10, // scan cycle, ms (an S7-1500 OB1 with a 10 ms minimum cycle time)
  scanCountEvery: 10, // refresh ScanCount (DB1.DINT12) every N scans: each is an S7 write (plc/s7.js)
  host: '127.0.0.1',
  ports: { s7: 10102, opcua: 4840, modbus: 5020 }, // unprivileged stand-ins for 102, 4840, 502
};

/**
 * `fn` counted: one `ok` per call that returns, one `bad` per call that throws (and rethrows).
 * @template {Function} F
 * @param {object} counters
 * @param {string} ok
 * @param {string} bad
 * @param {F} fn
 * @returns {F}
 */
function counted(counters, ok, bad, fn) {
  return (...args) => {
    try {
      fn(...args);
      counters[ok] += 1;
    } catch (err) {
      counters[bad] += 1;
      throw err;
    }
  };
}

/**
 * Normalise one interface option: false/undefined → off, true → defaults, object → merged.
 * @returns {object|null}
 */
function iface(opt, defaults) {
  if (opt === false || opt === undefined || opt === null) return null;
  return { ...defaults, ...(opt === true ? {} : opt) };
}

/**
 * Each interface's options from createPlc's (see there), null when off.
 * @returns {{s7: object|null, opcua: object|null, modbus: object|null, mqtt: Array<object|null>}}
 */
function configOf(opts) {
  const host = opts.host ?? DEFAULTS.host;
  return {
    s7: iface(opts.s7 ?? true, { host, port: DEFAULTS.ports.s7 }),
    opcua: iface(opts.opcua ?? true, { host, port: DEFAULTS.ports.opcua }),
    modbus: iface(opts.modbus ?? true, { host, port: DEFAULTS.ports.modbus }),
    mqtt: [iface(opts.mqtt ?? false, {}), ...(opts.mqttMore || [])],
  };
}

/**
 * Create and start a virtual PLC.
 * @param {object} [opts]
 * @param {object} [opts.table] the plant's I/O table (a table or a definition; default: the demo
 *   plant's, which runs the box-sorting program; any other runs as an I/O image with its echo rules)
 * @param {number} [opts.scanMs=10] scan cycle in ms
 * @param {{host?:string, port?:number}|false} [opts.s7] S7 server (port 0 = a free port); default on
 * @param {{host?:string, port?:number, pkiDir?:string}|false} [opts.opcua] OPC UA server; default on
 * @param {{host?:string, port?:number}|false} [opts.modbus] Modbus TCP server; default on
 * @param {{url:string, plant?:string, username?:string, password?:string, qos?:0|1}|false} [opts.mqtt]
 *   MQTT client; default off (it needs a broker)
 * @param {object[]} [opts.mqttMore] more MQTT clients like opts.mqtt, each to its own broker (an
 *   S7-1500 runs one LMQTT instance per connection): the benchmark's stock broker beside ours
 * @param {string} [opts.inputLog] file: a JSON line for every scan whose inputs changed (plc/input-log.js)
 * @param {{rateHz: number, db?: number, blockSamples?: number, blocks?: number, ringMs?: number}} [opts.signal]
 *   a high-frequency vibration signal sampled into a ring buffer in a data block (plc/signal.js;
 *   default DB100, blocks of one scan's samples, a ring of at least 500 ms); default off
 * @returns {Promise<object>} the running PLC, an EventEmitter: 'scan' {changed, probes, scans} after
 *   each scan, 'reject' {source, code, message} for refused MQTT input, 'error' for a failed scan, 'stop'
 */
async function createPlc(opts = {}) {
  const scanMs = opts.scanMs ?? DEFAULTS.scanMs;
  if (!(Number.isFinite(scanMs) && scanMs >= 1)) throw new PlcError('E_CONFIG', `scanMs must be >= 1 ms, got ${scanMs}`);
  const cfg = configOf(opts);
  const plc = new EventEmitter();
  const table = tableOf(opts.table);
  const image = createImage({ table, probeSlots: opts.probeSlots });
  const counters = {
    scans: 0, overruns: 0, lastScanMs: 0, maxScanMs: 0, inputWrites: 0, inputRejected: 0, probeWrites: 0, probeRejected: 0,
  };
  if (opts.signal) {
    const usedDbs = [...image.areas.values()].filter((a) => a.area === 'DB').map((a) => a.db).concat([image.reqDb, image.resDb]);
    image.ring = createSampler(opts.signal, { scanMs, usedDbs, counters });
  }
  const services = {}; // running interfaces by name
  const inputLog = opts.inputLog ? createInputLog(opts.inputLog, table) : null;
  const scan = createScan({
    image, services, counters, inputLog, scanCountEvery: opts.scanCountEvery ?? DEFAULTS.scanCountEvery,
    onScan: (ev) => { if (plc.listenerCount('scan')) plc.emit('scan', ev); },
  });
  let cycle = null;
  let stopped = false;

  /** Queue input writes from any interface: validated now, applied at the next scan. */
  const setInputs = counted(counters, 'inputWrites', 'inputRejected', (values) => image.queueInputs(values));
  /** Queue a probe request (slot, UDInt value) from any interface. */
  const setProbe = counted(counters, 'probeWrites', 'probeRejected', (slot, value) => image.queueProbe(slot, value));

  async function stop() {
    if (stopped) return;
    stopped = true;
    if (cycle) cycle.stop();
    plc.emit('stop');
    await stopServices(services, [inputLog && inputLog.close()]);
  }

  let ports;
  try {
    ports = await startServices(image, cfg, { counters, setInputs, setProbe, scanMs, onReject: (info) => plc.emit('reject', info) }, services);
  } catch (err) {
    stopped = true;
    throw err;
  }
  cycle = startCycle({
    periodMs: scanMs, run: scan.run, counters,
    onError: (err) => { if (plc.listenerCount('error')) plc.emit('error', err); },
  });

  Object.assign(plc, {
    ports,
    table,
    scanMs,
    counters,
    setInputs,
    setProbe,
    /** @returns {Object<string, number>} every tag by short name, as of the last scan */
    values: () => ({ ...scan.values() }),
    /** @returns {Object<string, number>} the markers by name */
    markers: () => image.readMarkers(),
    /** @returns {number} the UDInt in probe response slot i */
    probeResponse: (slot) => image.probeResponse(slot),
    /** The signal's ring buffer layout (nodes/lib/stream/ring.js), or null when the signal is off. */
    signal: image.ring ? image.ring.layout : null,
    /** @returns {Promise<void>} resolves after n more scans */
    waitScans(n = 1) {
      const target = counters.scans + n;
      return new Promise((resolve) => {
        if (stopped) { resolve(); return; }
        const on = () => {
          if (counters.scans < target && !stopped) return;
          plc.off('scan', on); plc.off('stop', on); resolve();
        };
        plc.on('scan', on);
        plc.once('stop', on);
      });
    },
    stop,
  });
  // A real getter (Object.assign would copy the value once): is the MQTT client connected now?
  Object.defineProperty(plc, 'mqttConnected', { get: () => (services.mqtt ? services.mqtt.connected : false), enumerable: true });
  return plc;
}

module.exports = { createPlc, DEFAULTS };
