'use strict';
/**
 * Config node: a WebSocket endpoint of the link on Node-RED's own HTTP server (the cloud side).
 * The endpoint logic lives in lib/link/endpoint.js; this file wires it to Node-RED: the shared
 * 'upgrade' listener, credentials, the users (link-in/link-out nodes) and the stats registry.
 */
const { createEndpoint } = require('./lib/link/endpoint');
const { parseTokens, parseGrants, mergeGrants } = require('./lib/access/auth');
const { DEFAULT_PLANT } = require('./lib/core/plants');
const { positiveOr, numberOr } = require('./lib/core/props');
const { acquireBackplane } = require('./lib/fleet/backplane');
const registry = require('./lib/runtime/registry');

module.exports = function register(RED) {
  /** path -> config node; one 'upgrade' listener on RED.server serves them all (as core does). */
  const endpoints = new Map();
  let listening = false;
  /**
   * Twin endpoint node -> plants its twins connected for. Every edge endpoint of this instance
   * takes those plants' states from the fleet (lib/fleet/member.js watch): their edges may be on other
   * instances.
   */
  const twinPlants = new Map();
  const edgeNodes = () => [...endpoints.values()].filter((n) => n.role === 'edge' && n.endpoint);
  const wantedPlants = () => new Set([...twinPlants.values()].flatMap((set) => [...set]));

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
    const unusable = (text, why) => {
      node.error(`${why}: refusing to serve ${node.path}`);
      node.status({ fill: 'red', shape: 'dot', text });
      node.sendEnvelope = () => 0;
      node.register = () => {};
      node.deregister = () => {};
      node.statusInfo = () => ({ kind: 'error', text });
    };
    // The plain token lists (credentials, S7T_TWIN_TOKEN, S7T_VIEWER_TOKEN, S7T_EDGE_TOKEN) are
    // for one plant: S7T_PLANT (plant1 when unset). Scoped tokens (credentials or S7T_TOKENS,
    // token:role:plant[|plant...]) name theirs. Every token this instance knows, of every role, is
    // merged: one token, one role.
    const plant = String(config.plant || '').trim() || process.env.S7T_PLANT || DEFAULT_PLANT;
    const tokens = parseTokens(creds.token || process.env[envName]);
    const viewerTokens = node.role === 'twin' ? parseTokens(creds.viewerToken || process.env.S7T_VIEWER_TOKEN) : [];
    let grants;
    try {
      const other = node.role === 'edge'
        ? [{ tokens: parseTokens(process.env.S7T_TWIN_TOKEN), role: 'twin', plant }, { tokens: parseTokens(process.env.S7T_VIEWER_TOKEN), role: 'viewer', plant }]
        : [{ tokens: parseTokens(process.env.S7T_EDGE_TOKEN), role: 'edge', plant }];
      grants = mergeGrants([
        { tokens, role: node.role === 'edge' ? 'edge' : 'twin', plant },
        { tokens: viewerTokens, role: 'viewer', plant },
        ...other,
      ], parseGrants(creds.tokens || process.env.S7T_TOKENS));
    } catch (err) {
      unusable(err.code === 'E_TOKENS' && /both as/.test(err.message) ? 'edge token shared with twins' : 'bad token list', `${err.code || 'E_TOKENS'}: ${err.message} (set distinct S7T_EDGE_TOKEN and S7T_TWIN_TOKEN / S7T_VIEWER_TOKEN, and check S7T_TOKENS)`);
      return;
    }
    const accepts = node.role === 'edge' ? ['edge'] : ['twin', 'viewer'];
    // Every grant this instance knows: the REST node (s7twin-rest) takes those of its plant.
    node.grants = grants;
    // The edge speaks for the plant: a token a twin (or a viewer) may hold must never open the
    // edge endpoint. Checked against every other endpoint's tokens too (their credentials).
    node.tokens = grants.filter((g) => accepts.includes(g.role)).map((g) => g.token);
    if (!node.tokens.length) node.warn(`no token configured (credentials, ${envName} or S7T_TOKENS): every connection to ${node.path} will be refused`);
    const others = [...endpoints.values()].filter((n) => n.role !== node.role).flatMap((n) => n.tokens || []);
    if (node.tokens.some((t) => others.includes(t))) {
      unusable('edge token shared with twins', 'the edge token is also a twin or viewer token (set distinct S7T_EDGE_TOKEN and S7T_TWIN_TOKEN / S7T_VIEWER_TOKEN)');
      return;
    }
    if (endpoints.has(node.path)) {
      unusable('path in use', `another s7twin-link-server already serves ${node.path}`);
      return;
    }
    // The edge endpoint's fleet backplane: Redis when S7T_REDIS_URL is set (several cloud
    // instances), else in-process (this instance alone).
    let backplane = null;
    if (node.role === 'edge' && process.env.S7T_REDIS_URL) {
      try {
        backplane = acquireBackplane(process.env.S7T_REDIS_URL);
      } catch (err) {
        unusable('bad S7T_REDIS_URL', `${err.code || 'E_BACKPLANE_CONFIG'}: ${err.message}`);
        return;
      }
    }
    node.endpoint = createEndpoint({
      path: node.path,
      role: node.role,
      grants,
      backplane: backplane ? backplane.backplane : undefined,
      src: `cloud-${node.role}-${node.id}`.replace(/[^A-Za-z0-9_.:-]/g, '').slice(0, 64),
      pingMs: positiveOr(config.pingS, 10) * 1000,
      linkTimeoutMs: positiveOr(config.linkTimeoutS, 3) * 1000,
      maxPayload: positiveOr(config.maxPayloadKiB, 64) * 1024,
      highWaterBytes: positiveOr(config.highWaterKiB, 256) * 1024,
      maxClients: positiveOr(config.maxClients, 1000),
      lifetimeMs: positiveOr(config.lifetimeMs, 1000),
      maxLifetimeMs: positiveOr(config.maxLifetimeMs, 10000),
      ratePerS: numberOr(config.ratePerS, 200),
      burst: 2 * numberOr(config.ratePerS, 200),
    });
    const ep = node.endpoint;
    endpoints.set(node.path, node);
    if (!listening) {
      RED.server.on('upgrade', onUpgrade);
      listening = true;
    }
    registry.add(node, () => (ep.fleet ? { ...ep.counters, fleet: { member: ep.fleet.id, backplane: backplane ? 'redis' : 'local', ...ep.fleet.counters } } : ep.counters));
    if (backplane) {
      const bp = backplane.backplane;
      node.log(`fleet member ${ep.fleet.id} on Redis ${bp.url}`);
      bp.on('down', () => node.warn(`fleet backplane (Redis ${bp.url}) lost: plants held elsewhere are unreachable until it is back`));
      bp.on('up', () => node.log(`fleet backplane (Redis ${bp.url}) connected`));
    }

    const each = (fn) => { for (const u of node.users) { try { fn(u); } catch (err) { u.error(err); } } };
    ep.on('envelope', (env, id, plantOf) => each((u) => u.linkEnvelope && u.linkEnvelope(env, id, plantOf)));
    if (node.role === 'twin') {
      twinPlants.set(node, new Set());
      ep.on('plant', (p) => {
        twinPlants.get(node).add(p);
        for (const n of edgeNodes()) n.endpoint.watch(p);
      });
    } else {
      for (const p of wantedPlants()) ep.watch(p);
    }
    ep.on('invalid', (err, id, extra) => each((u) => u.invalid && u.invalid(err, id, extra)));
    const peers = () => each((u) => u.linkStatus && u.linkStatus(node.statusInfo()));
    ep.on('connect', peers);
    ep.on('ready', peers);
    ep.on('disconnect', peers);
    let takenWarnedAt = 0;
    let takenRefusals = 0;
    ep.on('refused', (reason, req) => {
      if (reason === 'token') node.log(`refused ${req.socket.remoteAddress}: bad or missing token (HTTP 401)`);
      if (reason === 'edge-taken') {
        // A second edge retries twice a second (lib/link/dialer.js takenRetryMs): one warning
        // per 30 s, with the count of refusals since the last.
        takenRefusals += 1;
        if (Date.now() - takenWarnedAt >= 30000) {
          node.warn(`refused a second edge from ${req.socket.remoteAddress} while the current edge is alive (HTTP 409; ${takenRefusals} refusal(s) since the last warning)`);
          takenWarnedAt = Date.now();
          takenRefusals = 0;
        }
      }
    });

    /** Status for the users: connected while at least one peer is. */
    node.statusInfo = () => {
      const n = ep.counters.connections;
      if (node.role === 'edge' && n > 0 && !ep.edgeReady()) return { kind: 'connecting', text: 'edge connecting' };
      return n > 0 ? { kind: 'connected', text: `${n} ${node.role}${n === 1 ? '' : 's'}` } : { kind: 'disconnected', text: `no ${node.role}` };
    };
    node.register = (u) => { node.users.add(u); if (u.linkStatus) u.linkStatus(node.statusInfo()); };
    node.deregister = (u) => { node.users.delete(u); };
    /** Send to clientId if it is a peer of THIS endpoint, else route/fan out by plant (see lib). */
    node.sendEnvelope = (env, clientId, plantOf) => ep.send(env, clientId, plantOf);
    /** The plant a msg without msg.plant goes to; null when this endpoint serves several. */
    node.onlyPlant = ep.onlyPlant;
    /**
     * Answer a command or probe that reached no peer here (no edge connected) with an err
     * envelope to the twin that sent it, through whichever twin endpoint it is connected to:
     * a command is either written or explicitly refused, never dropped silently.
     * @returns {number} twins the answer went to (0 if the sender is gone too)
     */
    node.refuseUndelivered = (env, code, text, plantOf) => {
      const answer = ep.errorFor(env, code, text);
      let n = 0;
      for (const other of endpoints.values()) {
        if (other !== node && other.role === 'twin' && other.endpoint) n += other.endpoint.send(answer, undefined, plantOf);
      }
      return n;
    };

    node.on('close', (removed, done) => {
      registry.remove(node);
      endpoints.delete(node.path);
      twinPlants.delete(node);
      if (endpoints.size === 0 && listening) {
        RED.server.removeListener('upgrade', onUpgrade);
        listening = false;
      }
      ep.close().then(() => (backplane ? backplane.release() : undefined)).then(() => done(), () => done());
    });
  }

  RED.nodes.registerType('s7twin-link-server', LinkServerNode, {
    credentials: { token: { type: 'password' }, viewerToken: { type: 'password' } },
  });
  registry.install(RED.httpAdmin, RED.auth.needsPermission('s7twin.read'));
};
