'use strict';
/**
 * Config node: the edge's one link to the cloud's edge endpoint (lib/link/dialer.js), shared by
 * the link-in and link-out nodes that use it: a WebSocket to the cloud (the default), or a
 * session on a message bus (AMQP, Kafka, MQTT) or a ZeroMQ connection (lib/link/transports/).
 * Its journal (lib/link/journal.js, in the user directory) keeps the states of an outage until
 * the cloud has filed them.
 */
const { createDialer } = require('./lib/link/dialer');
const { transportId, TRANSPORTS } = require('./lib/link/transports');
const { DEFAULT_PLANT } = require('./lib/core/plants');
const { positiveOr, prop } = require('./lib/core/props');
const registry = require('./lib/runtime/registry');
const { caFile } = require('./lib/access/tls');
const { plantTableFor } = require('./lib/core/table/config');
const { journalOptions, createJournal } = require('./lib/link/journal');

/**
 * The link's journal (store and forward), or null when it is off or cannot be opened (said in the
 * log: the link then works as without one).
 */
function openJournal(node, config, settings) {
  try {
    const where = journalOptions(config, settings, node.plant);
    if (!where) return null;
    let failing = false;
    const journal = createJournal({
      ...where,
      onError: (err) => {
        if (!failing) node.warn(`E_JOURNAL: journal ${where.dir}: ${err.message} (the link goes on; states of an outage may be lost)`);
        failing = true;
      },
    });
    if (journal.pending) node.log(`journal ${where.dir}: ${journal.pending} states to forward to the cloud`);
    return journal;
  } catch (err) {
    node.warn(`${err.code || 'E_JOURNAL'}: ${err.message}: no store and forward (states of an outage are lost)`);
    return null;
  }
}

module.exports = function register(RED) {
  function LinkClientNode(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    node.kind = 'client';
    node.users = new Set();
    const token = (node.credentials && node.credentials.token) || process.env.S7T_EDGE_TOKEN || '';
    let transport = 'ws';
    try { transport = transportId(prop(config.transport)); } catch (err) { node.error(`${err.code}: ${err.message}`); }
    node.transport = transport;
    // WebSocket: the cloud's edge endpoint; a message bus: the broker's URL (the ZeroMQ cloud's
    // address), from the node, else S7T_LINK_URL, else the development default.
    node.url = transport === 'ws'
      ? config.url || 'ws://127.0.0.1:1880/s7twin/edge'
      : prop(config.brokerUrl) || process.env.S7T_LINK_URL || TRANSPORTS[transport].url;
    const creds = node.credentials || {};
    // The plant this edge serves (one edge per plant): the node's, else S7T_PLANT, else plant1.
    node.plant = String(config.plant || '').trim() || process.env.S7T_PLANT || DEFAULT_PLANT;
    // TLS: a wss:// cloud whose certificate a private CA signed is verified with
    // S7T_CA_FILE. An unreadable file is an error here, and the link then verifies against the
    // system CAs only (it fails rather than trusting anything less).
    let ca;
    try { ca = caFile(); } catch (err) { node.error(`${err.code}: ${err.message}`); }
    try {
      // The plant's table goes to the cloud first on every connection: the I/O table node given,
      // else the one naming the plant, else S7T_IO_TABLE's, else the demo plant's.
      const table = plantTableFor((id) => RED.nodes.getNode(id), config.table, node.plant);
      node.journal = openJournal(node, config, RED.settings);
      node.dialer = createDialer({
        table,
        journal: node.journal || undefined,
        ...(ca ? { ca } : {}),
        transport,
        url: node.url,
        plant: node.plant,
        token,
        username: creds.brokerUser || process.env.S7T_LINK_USER || undefined,
        password: creds.brokerPassword || process.env.S7T_LINK_PASSWORD || undefined,
        src: `edge-link-${node.id}`.replace(/[^A-Za-z0-9_.:-]/g, '').slice(0, 64),
        pingMs: positiveOr(config.pingS, 10) * 1000,
        maxPayload: positiveOr(config.maxPayloadKiB, 64) * 1024,
        // The frames' encoding: compact (MessagePack, tag ids) unless S7T_LINK_ENCODING=json.
        encoding: process.env.S7T_LINK_ENCODING || 'compact',
        backoff: { initialMs: positiveOr(config.backoffInitialMs, 200), maxMs: positiveOr(config.backoffMaxMs, 5000) },
      });
    } catch (err) {
      if (node.journal) node.journal.close();
      node.error(`${err.code || 'E_URL'}: ${err.message} (URL: ${node.url}, plant: ${node.plant})`);
      node.status({ fill: 'red', shape: 'dot', text: err.message });
      node.register = () => {};
      node.deregister = () => {};
      node.sendEnvelope = () => 0;
      node.localDeadline = () => null;
      node.statusInfo = () => ({ kind: 'error', text: err.message });
      return;
    }
    const d = node.dialer;
    registry.add(node, () => d.counters);
    const journal = node.journal;
    if (journal) {
      // /s7twin/health is open: its warning names no folder (the log does).
      registry.addCheck(`s7twin-journal:${node.id}`, () => (journal.counters.failing > 0
        ? `the edge's journal cannot be written (${journal.counters.failing} failed tries; the Node-RED log says why and where)` : null));
    }
    const each = (fn) => { for (const u of node.users) { try { fn(u); } catch (err) { u.error(err); } } };

    node.statusInfo = () => {
      if (d.state === 'connected') return { kind: 'connected', text: 'connected' };
      if (d.state === 'connecting') return { kind: 'connecting', text: 'connecting' };
      return { kind: 'disconnected', text: 'disconnected' };
    };
    d.on('status', () => each((u) => u.linkStatus && u.linkStatus(node.statusInfo())));
    d.on('connect', () => each((u) => u.linkConnected && u.linkConnected()));
    d.on('envelope', (env) => each((u) => u.linkEnvelope && u.linkEnvelope(env)));
    d.on('invalid', (err) => each((u) => u.invalid && u.invalid(err)));
    let lastFailure = '';
    d.on('failure', (err) => {
      // Log a failure once, not on every retry of the same cause.
      const key = `${err.code}:${err.message}`;
      if (key !== lastFailure) node.warn(`link to ${d.url}: ${err.code ? `${err.code} ` : ''}${err.message}`);
      lastFailure = key;
    });
    d.on('connect', () => { lastFailure = ''; });

    node.register = (u) => { node.users.add(u); if (u.linkStatus) u.linkStatus(node.statusInfo()); };
    node.deregister = (u) => { node.users.delete(u); };
    node.sendEnvelope = (env) => (d.send(env) === 'dropped' ? 0 : 1);
    /** A request's deadline (cloud clock) on this edge's clock, conservatively; null = unknown. */
    node.localDeadline = (dl) => d.localDeadline(dl);
    d.start();

    node.on('close', (removed, done) => {
      registry.remove(node);
      registry.removeCheck(`s7twin-journal:${node.id}`);
      // The journal after the link: states the cloud has not confirmed go into it as the link closes.
      const closeJournal = () => { if (node.journal) node.journal.close(); done(); };
      d.close().then(closeJournal, closeJournal);
    });
  }

  RED.nodes.registerType('s7twin-link-client', LinkClientNode, {
    credentials: { token: { type: 'password' }, brokerUser: { type: 'text' }, brokerPassword: { type: 'password' } },
  });
  registry.install(RED.httpAdmin, RED.auth.needsPermission('s7twin.read'));
};
