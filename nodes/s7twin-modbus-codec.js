'use strict';
/**
 * s7twin-modbus-codec: turns a block of holding registers read by a Modbus Read node into
 * (1) an envelope-like message of the tags that changed, for the flow-timer, and (2) the block
 * masked to the table's bits, only when it changed, for a Modbus Write node. Optionally watches
 * the Modbus client that the block is written to: its state is this node's status, and towards
 * a cloud server the whole block is passed on again after it (re)connects (a server that
 * restarted empty is brought up to date). Towards a PLC ("Fresh changes only", on by default for
 * commands) nothing is ever passed on again, and the first read after start and after the
 * source client (the one the block is read through) reconnects is a baseline, not a command
 * (a value left from before a reconnect was not commanded now, and writing it late could move
 * the plant). The register map is the plant's I/O table's (the I/O table node given, else the
 * table S7T_IO_TABLE names, else the demo plant's): nodes/lib/modbus/codec.js; the node's settings
 * and outputs nodes/lib/modbus/codec-node.js.
 */
const { processTable } = require('./lib/core/io-table');
const { tableFor } = require('./lib/core/table/config');
const { codecSettings, createCodecRelay, relayRead, codecOutputs } = require('./lib/modbus/codec-node');
const registry = require('./lib/runtime/registry');
const { dedupStatus } = require('./lib/runtime/status');

const STATUS = {
  connecting: { fill: 'yellow', shape: 'ring', text: 'connecting' },
  connected: { fill: 'green', shape: 'dot', text: 'connected' },
  disconnected: { fill: 'red', shape: 'ring', text: 'disconnected' },
  error: (text) => ({ fill: 'red', shape: 'dot', text }),
};
// Events of node-red-contrib-modbus's modbus-client config node (its own nodes use the same).
const DOWN_EVENTS = ['mbclosed', 'mbbroken', 'mbreconnecting', 'mberror'];

module.exports = function register(RED) {
  function S7TwinModbusCodecNode(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    let cfg;
    let relay;
    try {
      cfg = codecSettings(config, tableFor((id) => RED.nodes.getNode(id), config.table, processTable));
      relay = createCodecRelay(cfg);
    } catch (err) {
      node.status(STATUS.error(err.code || 'config error'));
      node.error(`${err.code || 'E_CONFIG'}: ${err.message}`);
      node.on('input', (msg, send, done) => done(err));
      node.on('close', (removed, done) => { node.status({}); done(); });
      return;
    }
    const { baseline, perMessage } = cfg;
    let seq = 0;
    const status = dedupStatus(node);
    node.relay = relay;
    // failedWrites: the Write node wired back reported a failure (passed on again, or with
    // baseline dropped: a write sent again later would be a late one); failedReads: reads that
    // failed; sourceConnects: the source client (re)connected, so the next read is a baseline.
    node.counters = { failedWrites: 0, failedReads: 0, sourceConnects: 0 };
    registry.add(node, () => ({ ...relay.counters, baseline, ...(perMessage ? { blocks: relay.size, baselines: relay.baselines } : {}), ...node.counters }));

    const listeners = [];
    const watch = (client, ev, fn) => { client.on(ev, fn); listeners.push([client, ev, fn]); };
    const target = config.target ? RED.nodes.getNode(config.target) : null;
    if (target && typeof target.on === 'function') {
      status(STATUS.connecting);
      watch(target, 'mbconnected', () => {
        // A cloud server may have restarted empty or missed writes: bring it up to date. A PLC
        // gets nothing again: what it missed while down is stale now.
        if (!baseline) relay.reset();
        status(STATUS.connected);
      });
      watch(target, 'mbactive', () => status(STATUS.connected));
      for (const ev of DOWN_EVENTS) watch(target, ev, () => status(STATUS.disconnected));
    }
    // The source: what the block is read through. After it was down, its server may be a
    // restarted one (registers 0) or hold values written meanwhile: neither is a fresh command.
    const source = config.source ? RED.nodes.getNode(config.source) : null;
    if (source && typeof source.on === 'function' && baseline) {
      watch(source, 'mbconnected', () => { node.counters.sourceConnects += 1; relay.rebase(); });
      for (const ev of DOWN_EVENTS) watch(source, ev, () => relay.rebase());
    }

    node.on('input', (msg, send, done) => {
      // The Modbus Write this node feeds, wired back: its messages carry this node's topic. A
      // write that failed while the client stayed connected ("Queue full", an exception reply;
      // "empty message on fail" is on) must not be lost: forget what was passed on, so the next
      // read passes the whole block on again. A write that went through needs nothing.
      if (!perMessage && msg.topic === cfg.ownTopic) {
        if (msg.error) {
          node.counters.failedWrites += 1;
          if (!baseline) relay.reset(); // towards a PLC it is dropped (counted): later it would be late
        }
        done();
        return;
      }
      // A failed read from a Modbus Getter with "empty message on fail" (the flows use it so the
      // poll loop hears about failures at once): nothing was read, so there is nothing to relay.
      if (msg.error && (msg.payload === '' || msg.payload === undefined)) {
        node.counters.failedReads += 1;
        done();
        return;
      }
      let out;
      try {
        out = relayRead(relay, cfg, msg);
      } catch (err) {
        if (!target) status(STATUS.error(err.code));
        done(err);
        return;
      }
      const [env, write] = codecOutputs(cfg, out, msg, seq + 1);
      if (env) seq += 1;
      if (env || write) send([env, write]);
      done();
    });

    node.on('close', (removed, done) => {
      for (const [client, ev, fn] of listeners) client.removeListener(ev, fn);
      registry.remove(node);
      node.status({});
      done();
    });
  }
  RED.nodes.registerType('s7twin-modbus-codec', S7TwinModbusCodecNode);
  registry.install(RED.httpAdmin, RED.auth.needsPermission('s7twin.read'));
};
