'use strict';
/**
 * s7twin-envelope: encodes msg.payload values into an envelope, or decodes and validates envelope
 * text, for flows that use stock websocket nodes instead of the s7twin link.
 */
const envelope = require('./lib/core/envelope');
const registry = require('./lib/runtime/registry');

module.exports = function register(RED) {
  function EnvelopeNode(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    node.mode = config.mode === 'decode' ? 'decode' : 'encode';
    node.kind = envelope.KINDS.has(config.kind) ? config.kind : 'cmd';
    node.counters = { encoded: 0, decoded: 0, invalid: 0, duplicates: 0, gaps: 0 };
    const src = (config.src || `nr-${node.id}`).replace(/[^A-Za-z0-9_.:-]/g, '').slice(0, 64);
    const sender = envelope.createSender(src);
    const tracker = envelope.createTracker();
    const dedupe = config.dedupe !== false && config.dedupe !== 'false';
    registry.add(node, () => node.counters);

    node.on('input', (msg, send, done) => {
      try {
        if (node.mode === 'encode') {
          const v = msg.payload;
          if (v === null || typeof v !== 'object' || Array.isArray(v)) {
            throw new envelope.EnvelopeError('E_SCHEMA', 'msg.payload must be an object of values keyed by tag short name');
          }
          const k = envelope.KINDS.has(msg.kind) ? msg.kind : node.kind;
          const env = sender.make(k, { d: v, cid: msg.cid });
          envelope.validate(env);
          msg.payload = config.output === 'object' ? env : envelope.stringify(env);
          node.counters.encoded += 1;
          send(msg);
        } else {
          const env = envelope.parse(msg.payload);
          const g = tracker.stats.gaps;
          if (dedupe && tracker.check(env) === 'duplicate') { node.counters.duplicates += 1; done(); return; }
          node.counters.gaps += tracker.stats.gaps - g;
          msg.payload = env;
          msg.topic = env.k;
          node.counters.decoded += 1;
          send(msg);
        }
        done();
      } catch (err) {
        node.counters.invalid += 1;
        done(err);
      }
    });
    node.on('close', (removed, done) => { registry.remove(node); done(); });
  }
  RED.nodes.registerType('s7twin-envelope', EnvelopeNode);
};
