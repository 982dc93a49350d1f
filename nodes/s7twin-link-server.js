'use strict';
/**
 * Config node: a WebSocket endpoint of the link on Node-RED's own HTTP server (the cloud side).
 * The endpoint logic lives in lib/link-endpoint.js; this file wires it to Node-RED: the shared
 * 'upgrade' listener, credentials, the users (link-in/link-out nodes) and the stats registry.
 */
const { createEndpoint } = require('./lib/link-endpoint');
const { parseTokens } = require('./lib/auth');
const registry = require('./lib/registry');

module.exports = function register(RED) {
  /** path -> config node; one 'upgrade' listener on RED.server serves them all (as core does). */
  const endpoints = new Map();
  let listening = false;

  function onUpgrade(req, socket, head) {
    for (const n of endpoints.values()) if (n.endpoint.handleUpgrade(req, socket, head)) return;
    // Not ours: leave the socket to the other listeners (editor comms, core websocket nodes).
  }

  function fullPath(p) {
    let path = String(p || '').trim();
    if (!path.startsWith('/')) path = `/${path}`;
    const root = (RED.settings.httpNodeRoot || '/').replace(/\/$/, '');
    return root && root !== '/' && !path.startsWith(`${root}/`) ? root + path : path;
  }

  function LinkServerNode(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    node.kind = 'server';
    node.role = config.role === 'edge' ? 'edge' : 'twin';
    node.path = fullPath(config.path || `/s7twin/${node.role}`);
    node.users = new Set();
    const envName = node.role === 'edge' ? 'S7T_EDGE_TOKEN' : 'S7T_TWIN_TOKEN';
    const creds = node.credentials || {};
    const tokens = parseTokens(creds.token || process.env[envName]);
    const viewerTokens = node.role === 'twin' ? parseTokens(creds.viewerToken || process.env.S7T_VIEWER_TOKEN) : [];
    if (!tokens.length) node.warn(`no token configured (credentials or ${envName}): every connection to ${node.path} will be refused`);
    // The edge speaks for the plant: a token a twin (or a viewer) may hold must never open the
    // edge endpoint. Checked against the environment's and every other endpoint's tokens.
    node.tokens = node.role === 'edge' ? tokens : tokens.concat(viewerTokens);
    const others = [...endpoints.values()].filter((n) => n.role !== node.role).flatMap((n) => n.tokens || []);
    const envOthers = node.role === 'edge'
      ? parseTokens(process.env.S7T_TWIN_TOKEN).concat(parseTokens(process.env.S7T_VIEWER_TOKEN))
      : parseTokens(process.env.S7T_EDGE_TOKEN);
    if (node.tokens.some((t) => others.includes(t) || envOthers.includes(t))) {
      node.error(`the edge token is also a twin or viewer token: refusing to serve ${node.path} (set distinct S7T_EDGE_TOKEN and S7T_TWIN_TOKEN / S7T_VIEWER_TOKEN)`);
      node.status({ fill: 'red', shape: 'dot', text: 'edge token shared with twins' });
      node.sendEnvelope = () => 0;
      node.register = () => {};
      node.deregister = () => {};
      node.statusInfo = () => ({ kind: 'error', text: 'edge token shared with twins' });
      return;
    }
    if (endpoints.has(node.path)) {
      node.error(`another s7twin-link-server already serves ${node.path}`);
      node.sendEnvelope = () => 0;
      node.register = () => {};
      node.deregister = () => {};
      node.statusInfo = () => ({ kind: 'error', text: 'path in use' });
      return;
    }
    const num = (v, d) => (Number(v) > 0 ? Number(v) : d);
    const numOrOff = (v, d) => (v === undefined || v === '' || !(Number(v) >= 0) ? d : Number(v));
    node.endpoint = createEndpoint({
      path: node.path,
      role: node.role,
      tokens,
      viewerTokens,
      src: `cloud-${node.role}-${node.id}`.replace(/[^A-Za-z0-9_.:-]/g, '').slice(0, 64),
      pingMs: num(config.pingS, 10) * 1000,
      linkTimeoutMs: num(config.linkTimeoutS, 3) * 1000,
      maxPayload: num(config.maxPayloadKiB, 64) * 1024,
      highWaterBytes: num(config.highWaterKiB, 256) * 1024,
      maxClients: num(config.maxClients, 1000),
      lifetimeMs: num(config.lifetimeMs, 1000),
      maxLifetimeMs: num(config.maxLifetimeMs, 10000),
      ratePerS: numOrOff(config.ratePerS, 200),
      burst: 2 * numOrOff(config.ratePerS, 200),
    });
    const ep = node.endpoint;
    endpoints.set(node.path, node);
    if (!listening) {
      RED.server.on('upgrade', onUpgrade);
      listening = true;
    }
    registry.add(node, () => ep.counters);

    const each = (fn) => { for (const u of node.users) { try { fn(u); } catch (err) { u.error(err); } } };
    ep.on('envelope', (env, id) => each((u) => u.linkEnvelope && u.linkEnvelope(env, id)));
    ep.on('invalid', (err, id, extra) => each((u) => u.invalid && u.invalid(err, id, extra)));
    const peers = () => each((u) => u.linkStatus && u.linkStatus(node.statusInfo()));
    ep.on('connect', peers);
    ep.on('ready', peers);
    ep.on('disconnect', peers);
    ep.on('refused', (reason, req) => {
      if (reason === 'token') node.log(`refused ${req.socket.remoteAddress}: bad or missing token (HTTP 401)`);
      if (reason === 'edge-taken') node.warn(`refused a second edge from ${req.socket.remoteAddress} while the current edge is alive (HTTP 409)`);
    });

    /** Status for the users: connected while at least one peer is. */
    node.statusInfo = () => {
      const n = ep.counters.connections;
      if (node.role === 'edge' && n > 0 && !ep.edgeReady()) return { kind: 'connecting', text: 'edge connecting' };
      return n > 0 ? { kind: 'connected', text: `${n} ${node.role}${n === 1 ? '' : 's'}` } : { kind: 'disconnected', text: `no ${node.role}` };
    };
    node.register = (u) => { node.users.add(u); if (u.linkStatus) u.linkStatus(node.statusInfo()); };
    node.deregister = (u) => { node.users.delete(u); };
    /** Send to clientId if it is a peer of THIS endpoint, else route/fan out (see lib). */
    node.sendEnvelope = (env, clientId) => ep.send(env, clientId);
    /**
     * Answer a command or probe that reached no peer here (no edge connected) with an err
     * envelope to the twin that sent it, through whichever twin endpoint it is connected to:
     * a command is either written or explicitly refused, never dropped silently.
     * @returns {number} twins the answer went to (0 if the sender is gone too)
     */
    node.refuseUndelivered = (env, code, text) => {
      const answer = ep.errorFor(env, code, text);
      let n = 0;
      for (const other of endpoints.values()) {
        if (other !== node && other.role === 'twin' && other.endpoint) n += other.endpoint.send(answer);
      }
      return n;
    };

    node.on('close', (removed, done) => {
      registry.remove(node);
      endpoints.delete(node.path);
      if (endpoints.size === 0 && listening) {
        RED.server.removeListener('upgrade', onUpgrade);
        listening = false;
      }
      ep.close().then(() => done(), () => done());
    });
  }

  RED.nodes.registerType('s7twin-link-server', LinkServerNode, {
    credentials: { token: { type: 'password' }, viewerToken: { type: 'password' } },
  });
  registry.install(RED.httpAdmin, RED.auth.needsPermission('s7twin.read'));
};
