'use strict';
/**
 * s7twin-link-out: sends msg.payload (an envelope) on a link endpoint — to every peer of
 * msg.plant, to the peer msg._client names if it is a peer of THIS endpoint, or (answers) to the
 * peer that asked. On the edge endpoint a request goes to msg.plant's edge, on this cloud instance
 * or, in a fleet, on whichever instance holds it (lib/fleet/member.js); a command the flow made
 * itself (not a twin's it passes on) goes into the command log with this node as its sender.
 */
const envelope = require('./lib/core/envelope');
const { statusSetter } = require('./lib/runtime/status');
const registry = require('./lib/runtime/registry');

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
      // Which plant: msg.plant (link in sets it), or the endpoint's only plant. An endpoint that
      // serves several plants cannot guess: the frame goes nowhere, and a request is refused.
      const plant = typeof msg.plant === 'string' && msg.plant ? msg.plant : node.cfg.onlyPlant;
      const toPeer = msg._client !== undefined && node.cfg.endpoint && node.cfg.endpoint.hasClient(msg._client);
      const noPlant = node.mode === 'server' && !plant && !toPeer;
      // Unlike core websocket out, a msg relayed from ANOTHER endpoint (its _client unknown here)
      // is not dropped: it goes to every peer of this one (of its plant).
      // This node as the sender: a command of the flow's own goes into the command log by it.
      const n = noPlant ? 0 : node.cfg.sendEnvelope(env, msg._client, plant, { id: node.id, name: node.name });
      if (n > 0) {
        node.counters.sent += 1;
        done();
        return;
      }
      node.counters.notDelivered += 1;
      // A command or probe with nowhere to go (no edge connected) is refused to its sender.
      if ((env.k === 'cmd' || env.k === 'probe') && node.cfg.refuseUndelivered) {
        node.cfg.refuseUndelivered(env, 'E_EDGE_DOWN', noPlant
          ? `the message names no plant (msg.plant) and ${node.cfg.path} serves several: the ${env.k} was not delivered`
          : `no peer on ${node.cfg.path} is connected for plant ${plant}: the ${env.k} was not delivered`, plant);
      }
      if (noPlant) {
        node.counters.noPlant = (node.counters.noPlant || 0) + 1;
        done(new Error(`msg.plant is missing: ${node.cfg.path} serves several plants, so the ${env.k} went nowhere`));
        return;
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
