'use strict';
/**
 * Twin transport over the Modbus path (the twin transport interface of docs/twin.md), as the study's Unity client did it
 * (section 3.2.2, EasyModbus): one Modbus TCP connection to the cloud Modbus server; every
 * input of the twin packed into holding register 0 and written with WriteSingleRegister (FC6);
 * the PLC's states (HR1) and counters (HR2..4) polled with ReadHoldingRegisters (FC3) every
 * `pollMs` (80 ms in the study profile; 10 ms tuned).
 *
 * One request at a time on the connection, writes first: a write that is due is never queued
 * behind more than the request in flight, and while one is in flight further input changes are
 * coalesced into the next write (the register holds the whole image, so nothing is lost).
 * Reconnects with back-off (./reconnect.js); after a reconnect the whole image is written
 * again and the next poll is reported as a 'snap'.
 *
 * Probes (load generator): probe(slot, v) writes HR1000+2i (UDInt, high word first, FC16); the
 * poll then also reads HR4000+2i of every pending slot and reports it through onProbe once the
 * value came back.
 *
 *   npm run twin -- --protocol modbus --url modbus://127.0.0.1:5021 --poll-ms 80
 *
 * The parts: ./modbus/requests.js (the requests on the connection, the poll and the probes),
 * ./reconnect.js, ./wire.js (bytes on the TCP socket).
 */
const ModbusRTU = require('modbus-serial');
const { tableOf, TagError } = require('../../nodes/lib/core/io-table');
const { createBackoff } = require('../../nodes/lib/core/backoff');
const { TransportError, createErrorCounter, createConnectWaiter, connectTimeoutMessage } = require('./common');
const { createReconnect } = require('./reconnect');
const { createWireCounter } = require('./wire');
const { createRequests } = require('./modbus/requests');
const { codecOf } = require('../../nodes/lib/modbus/codec');

const DEFAULTS = {
  url: 'modbus://127.0.0.1:5021',
  pollMs: 80, // the study's polling interval (S7T_MODBUS_TWIN_POLL_MS overrides)
  unitId: 1,
  timeoutMs: 2000, // one request
  connectTimeoutMs: 10000, // connect() gives up after 10 s of failed attempts
  maxErrorCodes: 50,
};

/** host and port from `modbus://host:port` (or opts.host/opts.port). */
function endpoint(o) {
  if (o.host && o.port) return { host: String(o.host), port: Number(o.port) };
  let u;
  try {
    u = new URL(String(o.url));
  } catch {
    throw new TransportError('E_TRANSPORT_CONFIG', `the modbus transport needs a url modbus://host:port, got ${JSON.stringify(o.url)}`);
  }
  if (u.protocol !== 'modbus:' && u.protocol !== 'tcp:') {
    throw new TransportError('E_TRANSPORT_CONFIG', `the modbus transport needs a url modbus://host:port, got ${o.url}`);
  }
  return { host: u.hostname || '127.0.0.1', port: Number(u.port) || 502 };
}

/**
 * Check values before they go into the image: only tags of the commands block (the demo plant's
 * HR0), each value valid for its tag (the plant's I/O table).
 * @throws {TagError} for an unknown tag or a bad value
 */
function checkInputs(values, table) {
  const cmd = codecOf(table).COMMAND_BLOCK;
  for (const [k, v] of Object.entries(values)) {
    const tag = table.get(k);
    const inBlock = tag && tag.modbus && cmd && tag.modbus.reg >= cmd.address && tag.modbus.reg < cmd.address + cmd.count;
    if (!inBlock) throw new TagError('E_UNKNOWN_TAG', `"${k}" is not a command in HR${cmd ? cmd.address : '-'}`);
    table.normalise(tag, v);
  }
}

/**
 * @param {object} [opts]
 * @param {string} [opts.url] modbus://host:port of the cloud Modbus server
 * @param {number|string} [opts.pollMs] poll interval of HR1..4 in ms
 * @param {object} [opts.backoff] see nodes/lib/core/backoff.js
 * @param {(line: string) => void} [opts.log]
 * @param {object} [opts.table] the plant's I/O table (a table or a definition; default: the demo plant's)
 */
function createTransport(opts = {}) {
  const envPoll = process.env.S7T_MODBUS_TWIN_POLL_MS;
  const o = { ...DEFAULTS, ...(envPoll ? { pollMs: envPoll } : {}), ...opts };
  o.pollMs = Number(o.pollMs);
  o.timeoutMs = Number(o.timeoutMs);
  if (!(o.pollMs >= 1)) throw new TransportError('E_TRANSPORT_CONFIG', `pollMs must be >= 1, got ${opts.pollMs}`);
  const { host, port } = endpoint(o);
  const table = tableOf(o.table);
  const valueCbs = [];
  const probeCbs = [];
  const image = {}; // every input value sent so far: HR0 is always the whole image
  const stats = {
    connected: false, connects: 0, reconnects: 0, writes: 0, coalesced: 0, polls: 0, received: 0, errors: 0,
    exceptions: 0, errorCodes: {}, probesSent: 0, probesAnswered: 0, bytesOut: 0, bytesIn: 0, pollMs: o.pollMs,
  };
  const countError = createErrorCounter(stats, { max: o.maxErrorCodes, log: o.log, label: 'modbus transport' });
  const rc = createReconnect({ stats, backoff: createBackoff(o.backoff || {}), open });
  const firstConnect = createConnectWaiter((code, msg) => new TransportError(code, msg));
  const wire = createWireCounter();
  const requests = createRequests({ image, stats, countError, valueCbs, probeCbs, onBroken: drop, table });
  let client = null; // connecting or connected
  let pollTimer = null;

  function open() {
    if (rc.closed) return;
    const c = new ModbusRTU();
    client = c;
    c.on('error', () => {}); // reported through the failing request or the close below
    c.connectTCP(host, { port }).then(() => {
      if (rc.closed || client !== c) { c.close(() => {}); return; }
      c.setID(o.unitId);
      c.setTimeout(o.timeoutMs);
      const sock = c._port && c._port._client; // modbus-serial's TcpPort socket
      if (sock) {
        wire.use(sock);
        sock.once('close', () => { if (client === c) drop(); });
      }
      // Back after a drop, or first time: the server's HR0 must hold the plant as it is now.
      const again = rc.up();
      firstConnect.resolve();
      requests.attach(c, again || Object.keys(image).length > 0);
    }, (err) => {
      if (client !== c) return;
      client = null;
      stats.lastError = err.message;
      rc.schedule();
    });
  }

  /** Forget the current connection and reconnect after a back-off. */
  function drop() {
    const c = client;
    if (!c) return;
    client = null;
    requests.detach();
    wire.retire();
    rc.down();
    try { c.close(() => {}); } catch { /* already closed */ }
    rc.schedule();
  }

  return {
    /** Open the connection and start polling; rejects with E_CONNECT_TIMEOUT. */
    connect() {
      if (rc.closed) return Promise.reject(new TransportError('E_CLOSED', 'transport closed'));
      if (stats.connected) return Promise.resolve();
      if (!pollTimer) pollTimer = setInterval(() => requests.pollDue(), o.pollMs);
      const p = firstConnect.wait(o.connectTimeoutMs, () => connectTimeoutMessage(`no Modbus connection to ${host}:${port}`, o.connectTimeoutMs, stats));
      if (!client && !rc.pending) open();
      return p;
    },
    /**
     * Send the inputs that changed in one tick: HR0 is rewritten with the whole image.
     * @param {Object<string, number>} values
     * @throws {TagError} for an unknown tag or a bad value (nothing is written)
     */
    send(values) {
      if (!values || Object.keys(values).length === 0) return;
      checkInputs(values, table);
      Object.assign(image, values);
      requests.command();
    },
    onValues(cb) { valueCbs.push(cb); },
    /** Probe slot `slot` with the UDInt `value` (load generator). */
    probe: requests.probe,
    onProbe(cb) { probeCbs.push(cb); },
    /** Close for good: no reconnect, every timer cleared. */
    close() {
      rc.close();
      if (pollTimer) { clearInterval(pollTimer); pollTimer = null; }
      firstConnect.reject(new TransportError('E_CLOSED', 'transport closed'));
      const c = client;
      client = null;
      requests.detach();
      wire.retire();
      stats.connected = false;
      if (!c) return Promise.resolve();
      return new Promise((resolve) => {
        const t = setTimeout(resolve, 1000);
        try { c.close(() => { clearTimeout(t); resolve(); }); } catch { clearTimeout(t); resolve(); }
      });
    },
    stats() {
      const b = wire.bytes();
      return { ...stats, errorCodes: { ...stats.errorCodes }, bytesOut: b.out, bytesIn: b.in, pendingProbes: requests.pendingProbes };
    },
  };
}

module.exports = { DEFAULTS, TransportError, createTransport };
