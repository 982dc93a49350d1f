'use strict';
/**
 * Twin transport over the OPC UA path (the twin transport interface of docs/twin.md): a node-opcua client session on the cloud OPC
 * UA server (`s7twin-opcua-server`), logged in as the twin account.
 *   - send(values): one Write request with every input that changed in one twin tick. Inputs that
 *     are conditions of a timed pair (dmg for sd) are put first, so the server applies them first.
 *   - PLC outputs: read every `pollMs` (mode 'poll', the study's 50 ms Session.Read coroutine) or
 *     from a subscription (mode 'subscribe': samplingIntervalMs / publishingIntervalMs), monitored
 *     only once an onValues callback exists (a probe-only load twin costs the server no items).
 *   - After a reconnect (session recreated) the whole input image is written again and the
 *     outputs are read once as a snapshot, so twin and PLC agree on the plant as it is now.
 *   - stats(): frames and bytes on the wire (counted on the client's TCP socket).
 *   - probe(slot, value): one Write of the cloud server's probe request `ns=1;s="Probe"."Req"[slot]`
 *     (UInt32). onProbe(cb(slot, value)) reports changes of the probe response `."Res"[slot]` of
 *     every slot this transport has probed, from the subscription (mode 'subscribe', items added
 *     when a slot is first probed, sampling interval 0: exception-based on the server) or from
 *     the poll's Read (mode 'poll', in the same Read as the outputs). The first probe of a slot
 *     reads its response once first, so a value left from an earlier run is not reported as an
 *     answer: only a change is. Probes of one slot are written in order (one Write chain).
 *
 * The parts: ./opcua/writes.js (inputs and probe requests, in order), ./opcua/outputs.js (polls,
 * notifications, snapshots), ./opcua/probes.js (probe slots and their answers); the session
 * itself is nodes/lib/opcua/session.js.
 */
const ot = require('../../nodes/lib/opcua/tags');
const { tableOf } = require('../../nodes/lib/core/io-table');
const { createSession } = require('../../nodes/lib/opcua/session');
const { TransportError, createErrorCounter, createConnectWaiter } = require('./common');
const { createWrites } = require('./opcua/writes');
const { createOutputs } = require('./opcua/outputs');
const { createProbes } = require('./opcua/probes');

const DEFAULTS = {
  mode: 'poll', // 'poll' (study) or 'subscribe' (tuned)
  pollMs: 50, // study: "a coroutine executed at fixed intervals (50 ms)"
  publishingIntervalMs: 10, // subscribe mode
  samplingIntervalMs: 10, // subscribe mode
  user: 'twin',
  password: 'twin',
  plant: 'plant1',
  connectTimeoutMs: 15000, // connect() gives up after this
  maxProbeSlot: null, // default: the table's last probe slot (the cloud server has at most the PLC's; S7T_OPCUA_PROBE_SLOTS there)
  maxErrorCodes: 50, // distinct error codes remembered
};

/**
 * The options checked.
 * @param {object} opts as createTransport's
 * @returns {{o: object, url: string, pollMs: number, plant: string}}
 */
function configure(opts) {
  const o = { ...DEFAULTS, ...opts };
  const url = o.url || o.endpointUrl;
  if (!url || !/^opc\.tcp:\/\//.test(url)) throw new TransportError('E_TRANSPORT_CONFIG', 'the opcua transport needs a url (opc.tcp://host:port)');
  if (o.mode !== 'poll' && o.mode !== 'subscribe') {
    throw new TransportError('E_TRANSPORT_CONFIG', `mode must be poll or subscribe, got ${JSON.stringify(o.mode)}`);
  }
  const pollMs = Number(o.pollMs);
  if (!(pollMs >= 1)) throw new TransportError('E_TRANSPORT_CONFIG', `pollMs must be >= 1, got ${o.pollMs}`);
  o.table = tableOf(o.table);
  o.maxProbeSlot = o.maxProbeSlot ?? o.table.PROBE_SLOTS - 1;
  return { o, url, pollMs, plant: ot.checkPlant(o.plant) };
}

/**
 * @param {object} opts
 * @param {string} opts.url opc.tcp://host:port of the cloud OPC UA server (or opts.endpointUrl)
 * @param {'poll'|'subscribe'} [opts.mode]
 * @param {number} [opts.pollMs]
 * @param {number} [opts.publishingIntervalMs]
 * @param {number} [opts.samplingIntervalMs]
 * @param {string} [opts.user] twin account (default twin)
 * @param {string} [opts.password]
 * @param {string} [opts.plant]
 * @param {object} [opts.table] the plant's I/O table (a table or a definition; default: the demo plant's)
 * @param {string} [opts.securityMode] None | Sign | SignAndEncrypt
 * @param {string} [opts.securityPolicy] None | Basic256Sha256
 * @param {string} [opts.pkiDir] client certificate folder
 * @param {(line: string) => void} [opts.log]
 */
function createTransport(opts = {}) {
  const { o, url, pollMs, plant } = configure(opts);
  const side = createSession({
    name: 'twin',
    endpointUrl: url,
    credentials: { user: String(o.user), password: String(o.password) },
    securityMode: o.securityMode,
    securityPolicy: o.securityPolicy,
    pkiDir: o.pkiDir,
    publishingIntervalMs: Number(o.publishingIntervalMs),
    samplingIntervalMs: Number(o.samplingIntervalMs),
    // States are monitored only for a transport that has an onValues callback (see connect):
    // a load-test twin that only probes would otherwise cost the server 11 sampled items each.
    monitor: [],
  });
  const valueCbs = [];
  const image = {}; // every input value sent so far (written whole after a reconnect)
  const stats = { sent: 0, received: 0, errors: 0, errorCodes: {}, polls: 0, pollErrors: 0, coalesced: 0, resyncs: 0, probes: 0, probeAnswers: 0 };
  const countError = createErrorCounter(stats, { max: o.maxErrorCodes, log: o.log, label: 'opcua transport' });
  const writes = createWrites({ side, plant, stats, countError, table: o.table });
  const probes = createProbes({ side, mode: o.mode, maxProbeSlot: o.maxProbeSlot, stats, countError, writes });
  const outputs = createOutputs({ side, plant, stats, countError, probes, valueCbs, table: o.table });
  const firstSession = createConnectWaiter((code, msg) => new TransportError(code, msg));
  let pollTimer = null;
  let closed = false;
  let sessions = 0;

  side.on('values', outputs.notified);
  side.on('session', () => {
    sessions += 1;
    if (sessions === 1) return; // the first session: connect() takes the snapshot
    stats.resyncs += 1;
    if (Object.keys(image).length) writes.inputs({ ...image });
    outputs.snapshot();
  });

  return {
    /** Open the session; resolves once connected with a first snapshot delivered. */
    async connect() {
      if (closed) throw new TransportError('E_CLOSED', 'transport closed');
      if (o.mode === 'subscribe' && valueCbs.length) await side.addMonitor(outputs.stateIds); // part of the first subscription
      const session = firstSession.wait(o.connectTimeoutMs, () => `no session on ${url} within ${o.connectTimeoutMs} ms`);
      side.connect().then(() => firstSession.resolve(), (err) => firstSession.reject(err));
      try {
        await session;
      } catch (err) {
        await side.close();
        throw err.code === 'E_SESSION' ? new TransportError('E_UNAUTHORIZED', err.message) : err;
      }
      await outputs.snapshot();
      if (o.mode === 'poll') pollTimer = setInterval(outputs.poll, pollMs);
    },
    /** Write every input that changed in one tick, in one Write request. */
    send(values) {
      if (!values || !Object.keys(values).length) return;
      Object.assign(image, values);
      if (side.connected) writes.inputs(values); else stats.coalesced += 1; // written whole on reconnect
    },
    onValues(cb) {
      valueCbs.push(cb);
      // Registered after connect(): start monitoring the states now.
      if (o.mode === 'subscribe' && side.connected) side.addMonitor(outputs.stateIds).catch((err) => countError(err.code || 'E_SUBSCRIBE', err.message));
    },
    probe: probes.probe,
    onProbe: probes.onProbe,
    /** Close for good: poll timer, session and connection. */
    async close() {
      closed = true;
      if (pollTimer) clearInterval(pollTimer);
      pollTimer = null;
      await writes.settled();
      await side.close();
    },
    stats() {
      const s = side.stats();
      return {
        ...stats, errorCodes: { ...stats.errorCodes }, connected: side.connected, mode: o.mode,
        bytesOut: s.bytesOut, bytesIn: s.bytesIn, writes: s.writes, reads: s.reads, notifications: s.notifications,
        reconnects: s.reconnects, connectionsLost: s.connectionsLost,
      };
    },
  };
}

module.exports = { DEFAULTS, TransportError, createTransport };
