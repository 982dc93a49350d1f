'use strict';
/**
 * s7twin-link-in: outputs every valid, non-duplicate envelope received on a link endpoint
 * (server config: cloud side) or on the edge's link (client config), with `msg.plant`: the plant
 * of the peer it came from (or the fleet instance it came through), or the link client's plant.
 */
const { statusSetter } = require('./lib/runtime/status');
const registry = require('./lib/runtime/registry');

const LOG_BURST = 20; // invalid frames reported per window; more are counted only
const LOG_WINDOW_MS = 10000;

module.exports = function register(RED) {
  function LinkInNode(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    const setStatus = statusSetter(node);
    node.mode = config.mode === 'client' ? 'client' : 'server';
    node.cfg = RED.nodes.getNode(node.mode === 'client' ? config.client : config.server);
    node.snapshotOnConnect = config.snapshotOnConnect !== false && config.snapshotOnConnect !== 'false';
    node.counters = { framesOut: 0, invalid: 0, snapshotRequests: 0 };
    if (!node.cfg) {
      setStatus('error', 'no link configured');
      node.error(`s7twin-link-in needs a ${node.mode === 'client' ? 's7twin-link-client' : 's7twin-link-server'} config node`);
      return;
    }
    registry.add(node, () => node.counters);

    // Not `receive`: every Node-RED node has that (it injects an input message), so a config node
    // calling `receive` on its users fed every envelope into link-out as well, stamped `_msgid` on
    // the shared envelope and put it on the wire.
    node.linkEnvelope = (env, clientId, plant) => {
      const msg = { topic: env.k, payload: env };
      if (clientId !== undefined) msg._client = clientId;
      // The plant the frame is for: link out routes by it on the other side.
      const p = plant !== undefined ? plant : node.cfg.plant;
      if (p !== undefined) msg.plant = p;
      // At the edge: a request's deadline (the cloud's clock) as a time on this edge's clock, from
      // the link's clock-offset estimate (lib/core/clock.js). 0 (long past) while there is no estimate.
      if (node.mode === 'client' && env.dl !== undefined && node.cfg.localDeadline) {
        msg.deadline = node.cfg.localDeadline(env.dl) ?? 0;
      }
      node.counters.framesOut += 1;
      node.send(msg);
    };
    // A peer sending a stream of bad frames must not turn into a stream of log lines (every
    // node.error also goes to Catch nodes and every open editor): at most LOG_BURST per
    // LOG_WINDOW_MS are reported, the rest only counted.
    let logWindowAt = 0;
    let logged = 0;
    node.invalid = (err, clientId, extra) => {
      node.counters.invalid += 1;
      const t = Date.now();
      if (t - logWindowAt > LOG_WINDOW_MS) { logWindowAt = t; logged = 0; }
      if (logged >= LOG_BURST) { node.counters.invalidNotLogged = (node.counters.invalidNotLogged || 0) + 1; return; }
      logged += 1;
      const msg = { topic: 'invalid', payload: extra && extra.raw, error: { code: err.code, message: err.message } };
      if (clientId !== undefined) msg._client = clientId;
      // The sender was already answered with an err envelope; this lets a Catch node see it too.
      node.error(`${err.code || 'E_SCHEMA'}: ${err.message}`, msg);
    };
    node.linkConnected = () => {
      // The edge asks its s7 node for a full snapshot after every (re)connect of the link.
      if (node.mode !== 'client' || !node.snapshotOnConnect) return;
      node.counters.snapshotRequests += 1;
      node.send({ topic: 'snapshot', payload: { k: 'snap-request', reason: 'link connected' } });
    };
    node.linkStatus = (s) => setStatus(s.kind, s.text);
    node.cfg.register(node);

    node.on('close', (removed, done) => {
      registry.remove(node);
      node.cfg.deregister(node);
      setStatus('clear');
      done();
    });
  }
  RED.nodes.registerType('s7twin-link-in', LinkInNode);
};
