'use strict';
/**
 * The virtual S7-1500 (plc/), started the ways the launcher needs it:
 *   - startPlc(opts): in a process of its own (system/plc-child.js), so its scan does not share
 *     an event loop with the load generator or a test; ports 0 are free ports, reported back.
 *   - createPlcProcess(opts): the same, stopped and started again on the same ports, as a real
 *     PLC that drops off the network comes back (the fault suite, the end-to-end tests).
 *   - startPlcInProcess(opts): in this process, every interface on loopback and a free port
 *     (tests of the PLC itself, tools that poke at it).
 *   - PLC_COMMAND: `npm run plc` (plc/cli.js), which `npm start` supervises with its environment.
 */
const path = require('node:path');
const { spawnNode } = require('./proc');

/** The command line `npm start` runs the virtual PLC with (configured by S7T_PLC_* variables). */
const PLC_COMMAND = [path.join(__dirname, '..', 'plc', 'cli.js')];

/**
 * Start the virtual PLC in its own process.
 * @param {object} plcOpts createPlc options (ports 0 = free)
 * @param {object} [o]
 * @param {number} [o.timeoutMs] start-up limit
 * @returns {Promise<{name:string, pid:number, ports:object, child:object, logs:()=>string, stop:()=>Promise<void>}>}
 */
async function startPlc(plcOpts, o = {}) {
  const p = await spawnNode({
    name: 'virtual PLC',
    args: [path.join(__dirname, 'plc-child.js'), JSON.stringify(plcOpts)],
    ready: /S7T_PLC_READY (\{.*\})/,
    fatal: /S7T_PLC_FAILED/,
    timeoutMs: o.timeoutMs,
  });
  return { ...p, ports: JSON.parse(p.match[1]).ports };
}

/**
 * A virtual PLC process that can be stopped and started again: the first start takes free ports
 * where asked (port 0), every later one the same ports.
 * @param {object} plcOpts createPlc options
 * @returns {{start:()=>Promise<object>, stop:()=>Promise<void>, readonly proc:object|null,
 *   readonly pid:number|undefined, readonly ports:object|undefined, logs:()=>string}}
 */
function createPlcProcess(plcOpts) {
  const opts = { ...plcOpts };
  let proc = null;
  return {
    /** Start it (again): resolves with the running process. */
    async start() {
      if (proc && proc.child.exitCode === null && proc.child.signalCode === null) return proc;
      proc = await startPlc(opts);
      for (const k of ['s7', 'opcua', 'modbus']) if (opts[k]) opts[k] = { ...opts[k], port: proc.ports[k] };
      return proc;
    },
    /** Stop it (a killed one is reaped); start() brings it back on the same ports. */
    async stop() { if (proc) await proc.stop(); },
    get proc() { return proc; },
    get pid() { return proc ? proc.pid : undefined; },
    get ports() { return proc ? proc.ports : undefined; },
    logs: () => (proc ? proc.logs() : ''),
  };
}

/**
 * Options for a PLC on loopback: S7, OPC UA and Modbus on free ports unless switched off (false)
 * or given (a partial object), MQTT only when given, a 10 ms scan.
 * @param {object} [opts] createPlc options
 * @returns {object}
 */
function loopbackPlcOptions(opts = {}) {
  const eph = (o) => (o === false ? false : { host: '127.0.0.1', ...(o === true || o === undefined ? {} : o), port: 0 });
  return { scanMs: 10, ...opts, s7: eph(opts.s7), opcua: eph(opts.opcua), modbus: eph(opts.modbus), mqtt: opts.mqtt || false };
}

/**
 * Start a virtual PLC in this process (loopbackPlcOptions). OPC UA costs about a second of
 * start-up: pass `opcua: false` when it is not needed.
 * @param {object} [opts]
 * @returns {Promise<object>} the running PLC (call `await plc.stop()`)
 */
function startPlcInProcess(opts = {}) {
  const { createPlc } = require('../plc');
  return createPlc(loopbackPlcOptions(opts));
}

module.exports = { startPlc, createPlcProcess, startPlcInProcess, loopbackPlcOptions, PLC_COMMAND };
