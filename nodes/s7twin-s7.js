'use strict';
/**
 * s7twin-s7 (edge): writes `cmd` envelopes to the PLC in one write each (all values checked
 * first: all or nothing), answers ack/err, writes `probe` slots and answers `probe-res`, and
 * streams PLC changes as `state` envelopes (one per read cycle with changes) and `snap`s.
 *
 * Every request (cmd, probe) gets exactly one answer. A request with a deadline
 * (`msg.deadline`, this edge's clock, set by s7twin-link-in from the cloud's `dl`) is never
 * written after it: it is answered E_EXPIRED when it arrives late, or when its turn in the write
 * queue comes too late (lib/s7/write-queue.js checks again right before the write request).
 * A command with an idempotency key (`key`) is written at most once: the node keeps every key it
 * saw in the last 10 minutes, with its outcome, in a file that survives a restart:
 * `<S7T_KEY_DIR or the user directory's s7twin-keys>/<sender id>.jsonl`.
 * The logic is nodes/lib/s7/bridge.js; this file wires it to Node-RED.
 */
const path = require('node:path');
const { createS7Bridge, newCounters } = require('./lib/s7/bridge');
const { createKeyStore } = require('./lib/s7/key-store');
const { statusSetter } = require('./lib/runtime/status');
const registry = require('./lib/runtime/registry');

module.exports = function register(RED) {
  /**
   * The node's idempotency key store, in a file of its own (its sender id), or in memory only
   * with a warning when no folder is known or the file cannot be used.
   */
  function openKeyStore(node, src) {
    const dir = process.env.S7T_KEY_DIR || (RED.settings.userDir ? path.join(RED.settings.userDir, 's7twin-keys') : '');
    if (!dir) {
      node.warn('no user directory and no S7T_KEY_DIR: idempotency keys are kept in memory only (a restart forgets them)');
      return undefined;
    }
    try {
      return createKeyStore({ file: path.join(dir, `${src}.jsonl`) });
    } catch (err) {
      node.error(`${err.code}: ${err.message}; idempotency keys are kept in memory only (a restart forgets them)`);
      return undefined;
    }
  }

  function S7Node(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    const setStatus = statusSetter(node);
    node.plc = RED.nodes.getNode(config.plc);
    const why = !node.plc ? 'no PLC configured' : (!node.plc.conn && `no I/O table: ${node.plc.tableError.message}`);
    if (why) {
      node.counters = newCounters();
      setStatus('error', node.plc ? 'I/O table refused' : why);
      node.error(node.plc ? `s7twin-s7: ${why}` : 's7twin-s7 needs an s7twin-plc config node');
      node.on('input', (msg, send, done) => done(new Error(why)));
      return;
    }
    const src = (config.src || `edge-${node.id}`).replace(/[^A-Za-z0-9_.:-]/g, '').slice(0, 64);
    const keyStore = openKeyStore(node, src);
    const bridge = createS7Bridge({
      conn: node.plc.conn,
      table: node.plc.table,
      src,
      keyStore,
      probeTimeoutMs: Number(config.probeTimeoutMs) > 0 ? Number(config.probeTimeoutMs) : undefined,
      send: (msg) => node.send(msg),
      setStatus,
    });
    node.counters = bridge.counters;
    registry.add(node, bridge.stats);
    node.plc.register(node);

    node.on('input', (msg, send, done) => bridge.input(msg, done));

    node.on('close', (removed, done) => {
      registry.remove(node);
      bridge.close();
      setStatus('clear');
      Promise.resolve(node.plc.deregister(node)).then(() => done(), () => done());
    });
  }
  RED.nodes.registerType('s7twin-s7', S7Node);
};
