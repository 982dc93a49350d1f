'use strict';
/**
 * s7twin-modbus-codec: turns a block of holding registers read by a Modbus Read node into
 * (1) an envelope-like message of the tags that changed, for the flow-timer, and (2) the block
 * masked to the table's bits, only when it changed, for a Modbus Write node. Optionally watches
 * the Modbus client that the block is written to: after it (re)connects the whole block is
 * passed on again (a write dropped while it was down is not lost), and its state is this node's
 * status. The table logic is nodes/lib/modbus-codec.js (tags.packRegister/unpackRegister).
 */
const codec = require('./lib/modbus-codec');

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
    const address = Number(config.address) || 0;
    const count = config.count === undefined || config.count === '' ? undefined : Number(config.count);
    const kind = config.kind === 'cmd' || config.kind === 'state' ? config.kind
      : (address === codec.COMMAND_REGISTER ? 'cmd' : 'state');
    const src = `modbus-hr${address}`;
    // Resend an unchanged block after this long (ms; 0 = never): see the node's help.
    const refreshMs = config.refreshMs === undefined || config.refreshMs === '' ? codec.DEFAULT_REFRESH_MS : Number(config.refreshMs);
    // "message": the block's address comes with each read (a Modbus Flex Getter's
    // msg.modbusRequest), one relay per block, and the write goes out for a Modbus Flex Write
    // (the edge's probe relay reads many blocks through one Getter). "fixed": this node's block.
    const perMessage = config.block === 'message';
    const relay = perMessage ? codec.createBlockRelays({ refreshMs }) : codec.createRelay({ address, count, refreshMs });
    let seq = 0;
    let lastStatus = '';
    const status = (s) => {
      const key = JSON.stringify(s);
      if (key !== lastStatus) { lastStatus = key; node.status(s); }
    };
    node.relay = relay;

    const target = config.target ? RED.nodes.getNode(config.target) : null;
    const listeners = [];
    if (target && typeof target.on === 'function') {
      const on = (ev, fn) => { target.on(ev, fn); listeners.push([ev, fn]); };
      status(STATUS.connecting);
      on('mbconnected', () => {
        relay.reset(); // the destination may have restarted empty or missed writes
        status(STATUS.connected);
      });
      on('mbactive', () => status(STATUS.connected));
      for (const ev of DOWN_EVENTS) on(ev, () => status(STATUS.disconnected));
    }

    const ownTopic = `hr${address}`;
    node.on('input', (msg, send, done) => {
      // The Modbus Write this node feeds, wired back: its messages carry this node's topic. A
      // write that failed while the client stayed connected ("Queue full", an exception reply;
      // "empty message on fail" is on) must not be lost: forget what was passed on, so the next
      // read passes the whole block on again. A write that went through needs nothing.
      if (!perMessage && msg.topic === ownTopic) {
        if (msg.error) {
          node.failedWrites = (node.failedWrites || 0) + 1;
          relay.reset();
        }
        done();
        return;
      }
      // A failed read from a Modbus Getter with "empty message on fail" (the flows use it so the
      // poll loop hears about failures at once): nothing was read, so there is nothing to relay.
      if (msg.error && (msg.payload === '' || msg.payload === undefined)) {
        node.failedReads = (node.failedReads || 0) + 1;
        done();
        return;
      }
      let out;
      try {
        if (perMessage) {
          const req = msg.modbusRequest || {};
          const at = req.address !== undefined ? Number(req.address) : Number(msg.address);
          out = relay.update(at, msg.payload);
        } else {
          out = relay.update(msg.payload);
        }
      } catch (err) {
        if (!target) status(STATUS.error(err.code));
        done(err);
        return;
      }
      // Registers outside the table's tags (the probe ranges) decode to nothing: no envelope.
      const env = Object.keys(out.changed).length
        ? { topic: kind, payload: { k: kind, src: perMessage ? `modbus-hr${out.address}` : src, seq: ++seq, ts: Date.now(), d: out.changed } } : null;
      let write = null;
      if (out.words && perMessage) {
        // Modbus Flex Write: same registers on the other side, FC16 (FC6 for a single word).
        const n = out.words.length;
        write = { topic: msg.topic, address: out.address, payload: { fc: n === 1 ? 6 : 16, unitid: '', address: out.address, quantity: n, value: n === 1 ? out.words[0] : out.words } };
      } else if (out.words) {
        write = { topic: ownTopic, address, payload: out.words.length === 1 ? out.words[0] : out.words };
      }
      if (env || write) send([env, write]);
      done();
    });

    node.on('close', (removed, done) => {
      for (const [ev, fn] of listeners) target.removeListener(ev, fn);
      node.status({});
      done();
    });
  }
  RED.nodes.registerType('s7twin-modbus-codec', S7TwinModbusCodecNode);
};
