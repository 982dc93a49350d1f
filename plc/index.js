'use strict';
/**
 * The virtual S7-1500: a process image (DB1 I/O, DB2/DB3 probe slots, MK markers), the
 * box-sorting program on a scan cycle, and four interfaces over the same image: S7comm (snap7
 * server), OPC UA (node-opcua), Modbus TCP and an MQTT client. Each interface can be switched off.
 *
 *   const { createPlc } = require('./plc');
 *   const plc = await createPlc({ scanMs: 10, s7: {host, port}, opcua: false, modbus: {port: 0}, mqtt: false });
 *   plc.ports            // {s7, opcua, modbus} (null when off)
 *   plc.setInputs({se: 1}); plc.values(); plc.counters; await plc.stop();
 *
 * Run as a program: `npm run plc -- --help`.
 */
const { EventEmitter } = require('node:events');
const { performance } = require('node:perf_hooks');
const tags = require('../nodes/lib/core/tags');
const program = require('./program');
const { createImage } = require('./image');
const { freePort } = require('./net');
const { PlcError } = require('./errors');
const { createInputLog } = require('./input-log');
const { now: clockNow } = require('../nodes/lib/core/clock');

const DEFAULTS = {
  scanMs: 10, // scan cycle, ms (an S7-1500 OB1 with a 10 ms minimum cycle time)
  scanCountEvery: 10, // refresh ScanCount (DB1.DINT12) every N scans: each is an S7 write (plc/s7.js)
  host: '127.0.0.1',
  ports: { s7: 10102, opcua: 4840, modbus: 5020 }, // unprivileged stand-ins for 102, 4840, 502
};

/**
 * Normalise one interface option: false/undefined → off, true → defaults, object → merged.
 * @returns {object|null}
 */
function iface(opt, defaults) {
  if (opt === false || opt === undefined || opt === null) return null;
  return { ...defaults, ...(opt === true ? {} : opt) };
}

/**
 * Create and start a virtual PLC.
 * @param {object} [opts]
 * @param {number} [opts.scanMs=10] scan cycle in ms
 * @param {{host?:string, port?:number}|false} [opts.s7] S7 server (port 0 = a free port); default on
 * @param {{host?:string, port?:number, pkiDir?:string}|false} [opts.opcua] OPC UA server; default on
 * @param {{host?:string, port?:number}|false} [opts.modbus] Modbus TCP server; default on
 * @param {{url:string, plant?:string, username?:string, password?:string, qos?:0|1}|false} [opts.mqtt]
 *   MQTT client; default off (it needs a broker)
 * @param {object[]} [opts.mqttMore] more MQTT clients like opts.mqtt, each to its own broker (an
 *   S7-1500 runs one LMQTT instance per connection): the benchmark's stock broker beside ours
 * @param {string} [opts.inputLog] file: a JSON line for every scan whose inputs changed (plc/input-log.js)
 * @returns {Promise<object>} the running PLC, an EventEmitter: 'scan' {changed, probes, scans} after
 *   each scan, 'reject' {source, code, message} for refused MQTT input, 'error' for a failed scan, 'stop'
 */
async function createPlc(opts = {}) {
  const scanMs = opts.scanMs ?? DEFAULTS.scanMs;
  if (!(Number.isFinite(scanMs) && scanMs >= 1)) throw new PlcError('E_CONFIG', `scanMs must be >= 1 ms, got ${scanMs}`);
  const scanCountEvery = opts.scanCountEvery ?? DEFAULTS.scanCountEvery;
  const host = opts.host ?? DEFAULTS.host;
  const cfg = {
    s7: iface(opts.s7 ?? true, { host, port: DEFAULTS.ports.s7 }),
    opcua: iface(opts.opcua ?? true, { host, port: DEFAULTS.ports.opcua }),
    modbus: iface(opts.modbus ?? true, { host, port: DEFAULTS.ports.modbus }),
    mqtt: iface(opts.mqtt ?? false, {}),
  };

  const plc = new EventEmitter();
  const image = createImage({ probeSlots: opts.probeSlots });
  const counters = {
    scans: 0, overruns: 0, lastScanMs: 0, maxScanMs: 0, inputWrites: 0, inputRejected: 0, probeWrites: 0, probeRejected: 0,
  };
  let state = program.initialState();
  const first = program.outputsOf(state);
  image.writeOutputs(first);
  let lastValues = image.values();
  const services = {}; // running interfaces by name
  const inputLog = opts.inputLog ? createInputLog(opts.inputLog) : null;
  let timer = null;
  let stopped = false;

  /** Queue input writes from any interface: validated now, applied at the next scan. */
  function setInputs(values) {
    try {
      image.queueInputs(values);
      counters.inputWrites += 1;
    } catch (err) {
      counters.inputRejected += 1;
      throw err;
    }
  }

  /** Queue a probe request (slot, UDInt value) from any interface. */
  function setProbe(slot, value) {
    try {
      image.queueProbe(slot, value);
      counters.probeWrites += 1;
    } catch (err) {
      counters.probeRejected += 1;
      throw err;
    }
  }

  function runScan() {
    const t0 = performance.now();
    const startedAt = clockNow();
    if (services.s7) services.s7.pull();
    const applied = image.applyPending();
    const res = program.scan(state, image.readInputs());
    state = res.state;
    if (state.scans % scanCountEvery !== 0) delete res.outputs.scn; // keep the last refreshed value
    image.writeOutputs(res.outputs);
    image.writeMarkers(program.markersOf(state));
    const probes = image.copyProbes();
    if (services.s7) services.s7.push(applied);
    counters.scans += 1;
    const values = image.values();
    const changed = tags.diff(lastValues, values);
    lastValues = values;
    if (inputLog) inputLog.scan(values, counters.scans, startedAt);
    const ev = { changed, probes, applied, scans: counters.scans };
    for (const s of Object.values(services)) if (s.afterScan) s.afterScan(ev);
    if (plc.listenerCount('scan')) plc.emit('scan', ev);
    return performance.now() - t0;
  }

  // Fixed-rate cycle: each scan is due scanMs after the previous one was due, so timer jitter
  // does not accumulate. A scan that ends past its next due time is an overrun: the cycle is
  // re-anchored instead of firing a burst of catch-up scans (a CPU does not run OB1 twice).
  let due = performance.now();
  function tick() {
    timer = null;
    if (stopped) return;
    try {
      const ms = runScan();
      counters.lastScanMs = ms;
      if (ms > counters.maxScanMs) counters.maxScanMs = ms;
    } catch (err) {
      counters.scanErrors = (counters.scanErrors || 0) + 1;
      if (plc.listenerCount('error')) plc.emit('error', err);
    }
    const now = performance.now();
    due += scanMs;
    if (now > due) { counters.overruns += 1; due = now; }
    timer = setTimeout(tick, due - now);
  }

  async function stop() {
    if (stopped) return;
    stopped = true;
    if (timer) clearTimeout(timer);
    timer = null;
    plc.emit('stop');
    const names = Object.keys(services).reverse();
    const results = await Promise.allSettled([...names.map((n) => services[n].stop()), inputLog && inputLog.close()]);
    for (const n of names) delete services[n];
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

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
      services.opcua = await require('./opcua').startOpcua(image, { ...cfg.opcua, port, counters, setInputs, setProbe, scanMs });
      ports.opcua = port;
    }
    const mqttClients = [cfg.mqtt, ...(opts.mqttMore || [])];
    for (const [i, m] of mqttClients.entries()) {
      if (!m) continue;
      services[i ? `mqtt${i}` : 'mqtt'] = require('./mqtt').startMqtt(image, {
        ...m, counters, setInputs, setProbe, onReject: (info) => plc.emit('reject', info),
      });
    }
  } catch (err) {
    stopped = true;
    await Promise.allSettled(Object.values(services).map((s) => s.stop()));
    throw err;
  }

  due = performance.now();
  timer = setTimeout(tick, 0);

  Object.assign(plc, {
    ports,
    scanMs,
    counters,
    setInputs,
    setProbe,
    /** @returns {Object<string, number>} every tag by short name, as of the last scan */
    values: () => ({ ...lastValues }),
    /** @returns {Object<string, number>} the markers by name */
    markers: () => image.readMarkers(),
    /** @returns {number} the UDInt in probe response slot i */
    probeResponse: (slot) => image.probeResponse(slot),
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
