'use strict';
/**
 * Config node: an endpoint of the link on the cloud side: a WebSocket endpoint on Node-RED's own
 * HTTP server, or for the edge's link another transport (lib/link/transports/: AMQP, Kafka, MQTT
 * or ZeroMQ, taking the edge's sessions on a broker or a bound port).
 * The endpoint logic lives in lib/link/endpoint.js, what the node decides before it serves in
 * lib/link/server-setup.js, the endpoints of this instance in lib/link/server-set.js; this file
 * wires them to Node-RED: credentials, the users (link-in/link-out nodes), status and the stats
 * registry.
 */
const { createEndpoint, DEFAULTS } = require('./lib/link/endpoint');
const { TOKEN_ENV, fullPath, planEndpoint, listenerOptions, endpointOptions, endpointStatus, createRefusalLog } = require('./lib/link/server-setup');
const { listen, TRANSPORTS } = require('./lib/link/transports');
const { createEndpointSet } = require('./lib/link/server-set');
const registry = require('./lib/runtime/registry');
const { runtimeAudit, readCommands } = require('./lib/history/audit-store');
const { installAuditRoute } = require('./lib/history/audit-http');
const { historyOptions, historyStore, ownEdgeFrames, flushBeforeClose, backfillFiler, installHistoryRoute } = require('./lib/history/state-history');

/**
 * The edge endpoint's sessions over a message bus: its listener on the broker (the bound port),
 * started now and kept connected; the users hear when the broker comes and goes.
 * @returns {object|null} the listener (lib/link/transports/index.js listen), null if it cannot be
 *   made (a bad URL, a missing client: said in the node's status and log)
 */
function startListener(node, config, ep, transport, onStatus) {
  const label = TRANSPORTS[transport].label;
  let listener;
  try {
    const where = listenerOptions(transport, config, node.credentials, process.env);
    listener = listen(transport, {
      ...where,
      admitRequest: ep.admitRequest,
      maxPayload: DEFAULTS.hardMaxPayload, // past it the session is cut (1009); the endpoint answers a frame over its own limit
      onStatus(up, err) {
        if (up) node.log(`edge link over ${label}: connected to ${where.url}`);
        else node.warn(`edge link over ${label}: ${where.url} lost (${err ? err.message : 'closed'}); the edges reconnect once it is back`);
        onStatus();
      },
    });
    listener.start().catch((err) => node.warn(`edge link over ${label}: ${where.url} not reachable yet (${err.code || ''} ${err.message}); retrying`));
  } catch (err) {
    node.error(`${err.code || 'E_LINK_TRANSPORT'}: ${err.message}`);
    node.status({ fill: 'red', shape: 'dot', text: err.code || 'transport' });
    return null;
  }
  return listener;
}

module.exports = function register(RED) {
  const endpoints = createEndpointSet(RED.server);
  // The command log every endpoint records into (twins' commands, the flow's own), and who may
  // read it (docs/history.md).
  const audit = () => runtimeAudit(RED.settings, (t) => RED.log.warn(t));
  installAuditRoute(RED.httpAdmin, {
    store: audit, grants: endpoints.grants, adminAuth: Boolean(RED.settings.adminAuth), needsPermission: RED.auth.needsPermission,
  });
  // The plant history every edge endpoint records into, and who may read it; with commands=1 the
  // window's commands from the command log too (the browser twin's replay marks them).
  const history = () => historyStore(historyOptions(RED.settings), (t) => RED.log.warn(t));
  installHistoryRoute(RED.httpAdmin, {
    store: history, grants: endpoints.grants, adminAuth: Boolean(RED.settings.adminAuth), needsPermission: RED.auth.needsPermission,
    commands: (q) => readCommands(audit(), q),
  });

  function LinkServerNode(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    node.kind = 'server';
    node.role = config.role === 'edge' ? 'edge' : 'twin';
    node.path = fullPath(RED.settings.httpNodeRoot, config.path || `/s7twin/${node.role}`);
    node.users = new Set();
    const plan = planEndpoint({
      role: node.role,
      path: node.path,
      plant: config.plant,
      credentials: node.credentials,
      env: process.env,
      otherTokens: endpoints.otherTokens(node.role),
      pathTaken: endpoints.has(node.path),
      transport: config.transport,
    });
    // Every grant this instance knows: the REST node (s7twin-rest) takes those of its plant.
    node.grants = plan.grants;
    node.tokens = plan.tokens;
    if (node.tokens && !node.tokens.length) {
      node.warn(`no token configured (credentials, ${TOKEN_ENV[node.role]} or S7T_TOKENS): every connection to ${node.path} will be refused`);
    }
    if (plan.unusable) {
      node.error(`${plan.unusable.why}: refusing to serve ${node.path}`);
      node.status({ fill: 'red', shape: 'dot', text: plan.unusable.text });
      node.sendEnvelope = () => 0;
      node.register = () => {};
      node.deregister = () => {};
      node.statusInfo = () => ({ kind: 'error', text: plan.unusable.text });
      return;
    }
    const { backplane, transport } = plan;
    // The plant history: every state and snap of the edge, and the backfill of its journal.
    let states = null;
    if (node.role === 'edge') {
      try { states = history(); } catch (err) { node.warn(`${err.code || 'E_HISTORY_STORE'}: no plant history: ${err.message}`); }
    }
    const ep = createEndpoint({
      ...endpointOptions(config, {
        role: node.role, path: node.path, id: node.id, grants: plan.grants, backplane: backplane && backplane.backplane, transport,
      }),
      // Twin endpoint: every twin's command; edge endpoint: the flow's own (s7twin-link-out).
      audit: audit().recorder,
      fileBackfill: states ? backfillFiler(states) : undefined,
    });
    node.endpoint = ep;
    endpoints.add(node);
    const each = (fn) => { for (const u of node.users) { try { fn(u); } catch (err) { u.error(err); } } };
    const peers = () => each((u) => u.linkStatus && u.linkStatus(node.statusInfo()));
    const listener = transport === 'ws' ? null : startListener(node, config, ep, transport, peers);
    registry.add(node, () => ({
      ...ep.counters,
      ...(ep.fleet ? { fleet: { member: ep.fleet.id, backplane: backplane ? 'redis' : 'local', ...ep.fleet.counters } } : {}),
      ...(listener ? { transport: { id: transport, up: listener.up, ...listener.counters } } : {}),
    }));
    if (backplane) {
      const bp = backplane.backplane;
      node.log(`fleet member ${ep.fleet.id} on Redis ${bp.url}`);
      bp.on('down', () => node.warn(`fleet backplane (Redis ${bp.url}) lost: plants held elsewhere are unreachable until it is back`));
      bp.on('up', () => node.log(`fleet backplane (Redis ${bp.url}) connected`));
    }

    // Only the frames of this endpoint's own edges: in a fleet each state is filed once.
    if (states) ep.on('envelope', ownEdgeFrames(states));
    ep.on('envelope', (env, id, plantOf) => each((u) => u.linkEnvelope && u.linkEnvelope(env, id, plantOf)));
    ep.on('invalid', (err, id, extra) => each((u) => u.invalid && u.invalid(err, id, extra)));
    ep.on('connect', peers);
    ep.on('ready', peers);
    ep.on('disconnect', peers);
    ep.on('refused', createRefusalLog({ log: (t) => node.log(t), warn: (t) => node.warn(t) }));

    /** Status for the users: connected while at least one peer is. */
    node.statusInfo = () => endpointStatus(node.role, ep, listener);
    node.register = (u) => { node.users.add(u); if (u.linkStatus) u.linkStatus(node.statusInfo()); };
    node.deregister = (u) => { node.users.delete(u); };
    /**
     * Send to clientId if it is a peer of THIS endpoint, else route/fan out by plant (see lib);
     * `by`: the link-out node that sends it (a flow's command is logged with it as the sender).
     */
    node.sendEnvelope = (env, clientId, plantOf, by) => ep.send(env, clientId, plantOf, by);
    /** The plant a msg without msg.plant goes to; null when this endpoint serves several. */
    node.onlyPlant = ep.onlyPlant;
    /** Refuse a command or probe that reached no peer here, to its twin (lib/link/server-set.js). */
    node.refuseUndelivered = (env, code, text, plantOf) => endpoints.refuseUndelivered(node, env, code, text, plantOf);

    node.on('close', (removed, done) => {
      registry.remove(node);
      endpoints.remove(node);
      ep.close()
        .then(() => (listener ? listener.close() : undefined))
        // What the edge sent last goes into the history before the runtime stops (a restart loses none).
        .then(() => (states ? flushBeforeClose(states) : undefined))
        .then(() => (backplane ? backplane.release() : undefined))
        .then(() => done(), () => done());
    });
  }

  RED.nodes.registerType('s7twin-link-server', LinkServerNode, {
    credentials: { token: { type: 'password' }, viewerToken: { type: 'password' }, brokerUser: { type: 'text' }, brokerPassword: { type: 'password' } },
  });
  registry.install(RED.httpAdmin, RED.auth.needsPermission('s7twin.read'));
};
