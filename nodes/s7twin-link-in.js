'use strict';
/**
 * s7twin-link-in: outputs every valid, non-duplicate envelope received on a link endpoint
 * (server config: cloud side) or on the edge's link (client config).
 */
const { statusSetter } = require('./lib/status');
const registry = require('./lib/registry');

module.exports = function register(RED) {
  function LinkInNode(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    const setStatus = statusSetter(node);
    node.mode = config.mode === 'client' ? 'client' : 'server';
    node.cfg = RED.nodes.getNode(node.mode === 'client' ? config.client : config.server);
    node.snapshotOnConnect = config.snapshotOnConnect !== false;
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
    node.linkEnvelope = (env, clientId) => {
      const msg = { topic: env.k, payload: env };
      if (clientId !== undefined) msg._client = clientId;
      node.counters.framesOut += 1;
      node.send(msg);
    };
    node.invalid = (err, clientId, extra) => {
      node.counters.invalid += 1;
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
