'use strict';
/**
 * Twin transport over the Modbus path (contract 5), as the study's Unity client did it
 * (section 3.2.2, EasyModbus): one Modbus TCP connection to the cloud Modbus server; every
 * input of the twin packed into holding register 0 and written with WriteSingleRegister (FC6);
 * the PLC's states (HR1) and counters (HR2..4) polled with ReadHoldingRegisters (FC3) every
 * `pollMs` (80 ms in the study profile; 10 ms tuned).
 *
 * One request at a time on the connection, writes first: a write that is due is never queued
 * behind more than the request in flight, and while one is in flight further input changes are
 * coalesced into the next write (the register holds the whole image, so nothing is lost).
 * Reconnects with back-off (nodes/lib/core/backoff.js); after a reconnect the whole image is written
 * again and the next poll is reported as a 'snap'.
 *
 * Probes (load generator): probe(slot, v) writes HR1000+2i (UDInt, high word first, FC16); the
 * poll then also reads HR4000+2i of every pending slot and reports it through onProbe once the
 * value came back.
 *
 *   npm run twin -- --protocol modbus --url modbus://127.0.0.1:5021 --poll-ms 80
 */
const { TransportError, createErrorCounter } = require('./common');
const ModbusRTU = require('modbus-serial');
const codec = require('../../nodes/lib/modbus/codec');
const tags = require('../../nodes/lib/core/tags');
const { createBackoff } = require('../../nodes/lib/core/backoff');

const DEFAULTS = {
  url: 'modbus://127.0.0.1:5021',
  pollMs: 80, // the study's polling interval (S7T_MODBUS_TWIN_POLL_MS overrides)
  unitId: 1,
  timeoutMs: 2000, // one request
  connectTimeoutMs: 10000, // connect() gives up after 10 s of failed attempts
  maxErrorCodes: 50,
};
const CMD = codec.COMMAND_REGISTER;
const STATE = codec.STATE_BLOCK;


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
 * @param {object} [opts]
 * @param {string} [opts.url] modbus://host:port of the cloud Modbus server
 * @param {number|string} [opts.pollMs] poll interval of HR1..4 in ms
 * @param {object} [opts.backoff] see nodes/lib/core/backoff.js
 * @param {(line: string) => void} [opts.log]
 */
function createTransport(opts = {}) {
  const envPoll = process.env.S7T_MODBUS_TWIN_POLL_MS;
  const o = { ...DEFAULTS, ...(envPoll ? { pollMs: envPoll } : {}), ...opts };
  o.pollMs = Number(o.pollMs);
  o.timeoutMs = Number(o.timeoutMs);
  if (!(o.pollMs >= 1)) throw new TransportError('E_TRANSPORT_CONFIG', `pollMs must be >= 1, got ${opts.pollMs}`);
  const { host, port } = endpoint(o);
  const backoff = createBackoff(o.backoff || {});
  const log = o.log || (() => {});
  const valueCbs = [];
  const probeCbs = [];
  const image = {}; // every input value sent so far: HR0 is always the whole image
  const probes = new Map(); // slot -> value awaiting its response
  const probeWrites = []; // [slot, value] not yet written
  const stats = {
    connected: false, connects: 0, reconnects: 0, writes: 0, coalesced: 0, polls: 0, received: 0, errors: 0,
    exceptions: 0, errorCodes: {}, probesSent: 0, probesAnswered: 0, bytesOut: 0, bytesIn: 0, pollMs: o.pollMs,
  };
  let client = null;
  let sock = null; // the current TCP socket (bytes counted from it)
  let bytesBase = { out: 0, in: 0 }; // bytes of earlier connections
  let closed = false;
  let busy = false;
  let dirty = false; // HR0 differs from what the server holds
  let pollDue = false;
  let snapNext = true; // the next poll is reported whole, as a 'snap'
  let last = null; // values of HR1..4 as last reported
  let pollTimer = null;
  let retryTimer = null;
  let firstConnect = null;
  let gen = 0; // connection generation

  const countError = createErrorCounter(stats, { max: o.maxErrorCodes, log, label: 'modbus transport' });

  function bytes() {
    return { out: bytesBase.out + (sock ? sock.bytesWritten : 0), in: bytesBase.in + (sock ? sock.bytesRead : 0) };
  }

  /** Run the next due request: the command write, then probe writes, then the poll. */
  function pump() {
    if (busy || !stats.connected || closed) return;
    let job = null;
    if (dirty) {
      dirty = false;
      const word = tags.packRegister(CMD, image);
      job = client.writeRegister(CMD, word).then(() => { stats.writes += 1; });
    } else if (probeWrites.length) {
      const [slot, value] = probeWrites.shift();
      job = client.writeRegisters(codec.PROBE_REQUEST_BASE + 2 * slot, [value >>> 16, value & 0xffff])
        .then(() => { stats.probesSent += 1; });
    } else if (pollDue) {
      pollDue = false;
      job = poll();
    }
    if (!job) return;
    busy = true;
    const g = gen; // a request of an earlier connection must not free the current one
    job.then(() => {
      if (g !== gen) return;
      busy = false;
      pump();
    }, (err) => {
      if (g !== gen) return;
      busy = false;
      onRequestError(err);
      pump();
    });
  }

  async function poll() {
    const res = await client.readHoldingRegisters(STATE.address, STATE.count);
    stats.polls += 1;
    const values = codec.decode(STATE.address, res.data);
    const kind = snapNext ? 'snap' : 'state';
    const changed = snapNext || !last ? values : tags.diff(last, values);
    snapNext = false;
    last = values;
    if (Object.keys(changed).length) {
      stats.received += 1;
      for (const cb of valueCbs) cb(changed, kind);
    }
    for (const [slot, value] of [...probes]) {
      const r = await client.readHoldingRegisters(codec.PROBE_RESPONSE_BASE + 2 * slot, 2);
      const got = ((r.data[0] << 16) | r.data[1]) >>> 0;
      if (got === value && probes.get(slot) === value) {
        probes.delete(slot);
        stats.probesAnswered += 1;
        for (const cb of probeCbs) cb(slot, got);
      }
    }
  }

  function onRequestError(err) {
    if (err && err.modbusCode !== undefined) {
      // A Modbus exception: the server answered, the connection is fine.
      stats.exceptions += 1;
      countError(`E_MODBUS_EXCEPTION_${err.modbusCode}`, err.message);
      return;
    }
    countError(err && err.errno === 'ETIMEDOUT' ? 'E_TIMEOUT' : 'E_REQUEST', err && err.message);
    drop(); // a timeout or a socket error: start over on a fresh connection
  }

  function open() {
    retryTimer = null;
    if (closed) return;
    const c = new ModbusRTU();
    client = c;
    c.on('error', () => {}); // reported through the failing request or the close below
    c.connectTCP(host, { port }).then(() => {
      if (closed || client !== c) { c.close(() => {}); return; }
      c.setID(o.unitId);
      c.setTimeout(o.timeoutMs);
      sock = c._port && c._port._client; // modbus-serial's TcpPort socket
      if (sock) {
        sock.setNoDelay(true);
        sock.once('close', () => { if (client === c) drop(); });
      }
      stats.connected = true;
      stats.connects += 1;
      if (stats.connects > 1) stats.reconnects += 1;
      backoff.connected();
      // Back after a drop, or first time: the server's HR0 must hold the plant as it is now.
      dirty = stats.connects > 1 || Object.keys(image).length > 0;
      snapNext = true;
      pollDue = true;
      if (firstConnect) { clearTimeout(firstConnect.timer); firstConnect.resolve(); firstConnect = null; }
      pump();
    }, (err) => {
      if (client !== c) return;
      client = null;
      stats.lastError = err.message;
      scheduleRetry();
    });
  }

  /** Forget the current connection and reconnect after a back-off. */
  function drop() {
    const c = client;
    if (!c) return;
    client = null;
    gen += 1;
    if (sock) { const b = bytes(); bytesBase = b; sock = null; }
    const was = stats.connected;
    stats.connected = false;
    busy = false;
    if (was) backoff.disconnected();
    try { c.close(() => {}); } catch { /* already closed */ }
    scheduleRetry();
  }

  function scheduleRetry() {
    if (closed || retryTimer) return;
    retryTimer = setTimeout(open, backoff.next());
  }

  return {
    /** Open the connection and start polling; rejects with E_CONNECT_TIMEOUT. */
    connect() {
      if (closed) return Promise.reject(new TransportError('E_CLOSED', 'transport closed'));
      if (stats.connected) return Promise.resolve();
      if (!pollTimer) {
        pollTimer = setInterval(() => { pollDue = true; pump(); }, o.pollMs);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          firstConnect = null;
          reject(new TransportError('E_CONNECT_TIMEOUT', `no Modbus connection to ${host}:${port} within ${o.connectTimeoutMs} ms${stats.lastError ? ` (${stats.lastError})` : ''}`));
        }, o.connectTimeoutMs);
        firstConnect = { resolve, reject, timer };
        if (!client && !retryTimer) open();
      });
    },
    /**
     * Send the inputs that changed in one tick: HR0 is rewritten with the whole image.
     * @param {Object<string, number>} values
     * @throws {TagError} for an unknown tag or a bad value (nothing is written)
     */
    send(values) {
      if (!values || Object.keys(values).length === 0) return;
      for (const [k, v] of Object.entries(values)) {
        const tag = tags.get(k);
        if (!tag || !tag.modbus || tag.modbus.reg !== CMD) throw new tags.TagError('E_UNKNOWN_TAG', `"${k}" is not an input in HR${CMD}`);
        tags.normalise(tag, v);
      }
      Object.assign(image, values);
      if (dirty) stats.coalesced += 1;
      dirty = true;
      pump();
    },
    onValues(cb) { valueCbs.push(cb); },
    /** Probe slot `slot` with the UDInt `value` (load generator). */
    probe(slot, value) {
      probes.set(slot, value >>> 0);
      probeWrites.push([slot, value >>> 0]);
      pump();
    },
    onProbe(cb) { probeCbs.push(cb); },
    /** Close for good: no reconnect, every timer cleared. */
    close() {
      closed = true;
      if (retryTimer) { clearTimeout(retryTimer); retryTimer = null; }
      if (pollTimer) { clearInterval(pollTimer); pollTimer = null; }
      if (firstConnect) { clearTimeout(firstConnect.timer); firstConnect.reject(new TransportError('E_CLOSED', 'transport closed')); firstConnect = null; }
      const c = client;
      client = null;
      gen += 1;
      if (sock) { bytesBase = bytes(); sock = null; }
      stats.connected = false;
      if (!c) return Promise.resolve();
      return new Promise((resolve) => {
        const t = setTimeout(resolve, 1000);
        try { c.close(() => { clearTimeout(t); resolve(); }); } catch { clearTimeout(t); resolve(); }
      });
    },
    stats() {
      const b = bytes();
      return { ...stats, errorCodes: { ...stats.errorCodes }, bytesOut: b.out, bytesIn: b.in, pendingProbes: probes.size };
    },
  };
}

module.exports = { DEFAULTS, TransportError, createTransport };
