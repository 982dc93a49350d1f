'use strict';
/**
 * s7twin-link-out: sends msg.payload (an envelope) on a link endpoint — to every peer, to the peer
 * msg._client names if it is a peer of THIS endpoint, or (answers) to the peer that asked.
 */
const envelope = require('./lib/envelope');
const { statusSetter } = require('./lib/status');
const registry = require('./lib/registry');

module.exports = function register(RED) {
  function LinkOutNode(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    const setStatus = statusSetter(node);
    node.mode = config.mode === 'client' ? 'client' : 'server';
    node.cfg = RED.nodes.getNode(node.mode === 'client' ? config.client : config.server);
    node.counters = { framesIn: 0, sent: 0, notDelivered: 0, invalid: 0 };
    if (!node.cfg) {
      setStatus('error', 'no link configured');
      node.error(`s7twin-link-out needs a ${node.mode === 'client' ? 's7twin-link-client' : 's7twin-link-server'} config node`);
    } else {
      registry.add(node, () => node.counters);
      node.linkStatus = (s) => setStatus(s.kind, s.text);
      node.cfg.register(node);
    }

    node.on('input', (msg, send, done) => {
      if (!node.cfg) { done(new Error('no link configured')); return; }
      let env = msg.payload;
      try {
        if (typeof env === 'string' || Buffer.isBuffer(env)) env = envelope.parse(env);
        else envelope.validate(env);
      } catch (err) {
        node.counters.invalid += 1;
        done(err);
        return;
      }
      node.counters.framesIn += 1;
      // Unlike core websocket out, a msg relayed from ANOTHER endpoint (its _client unknown here)
      // is not dropped: it goes to every peer of this one.
      const n = node.cfg.sendEnvelope(env, msg._client);
      if (n > 0) {
        node.counters.sent += 1;
      } else {
        node.counters.notDelivered += 1;
        // A command or probe with nowhere to go (no edge connected) is refused to its sender.
        if ((env.k === 'cmd' || env.k === 'probe') && node.cfg.refuseUndelivered) {
          node.cfg.refuseUndelivered(env, 'E_EDGE_DOWN', `no peer on ${node.cfg.path} is connected: the ${env.k} was not delivered`);
        }
      }
      done();
    });

    node.on('close', (removed, done) => {
      registry.remove(node);
      if (node.cfg) node.cfg.deregister(node);
      setStatus('clear');
      done();
    });
  }
  RED.nodes.registerType('s7twin-link-out', LinkOutNode);
};
