'use strict';
/**
 * What the s7twin-modbus-codec node reads from its settings and sends for each block it relays:
 * pure logic over lib/modbus/codec.js, no RED, so the node only wires it.
 */
const codec = require('./codec');

/**
 * The node's settings.
 * @param {object} config the node's properties
 * @param {object} [table] the plant's I/O table (default: the demo plant's): a block that starts in
 *   its commands (the inputs' registers) is a `cmd` block unless the node says otherwise
 * @returns {{address: number, count: number|undefined, kind: 'cmd'|'state', src: string,
 *   refreshMs: number, perMessage: boolean, baseline: boolean, ownTopic: string, table: object}}
 */
function codecSettings(config, table) {
  const address = Number(config.address) || 0;
  const commands = codec.codecOf(table).COMMAND_BLOCK;
  const inCommands = !!commands && address >= commands.address && address < commands.address + commands.count;
  const kind = config.kind === 'cmd' || config.kind === 'state' ? config.kind : (inCommands ? 'cmd' : 'state');
  return {
    table: codec.codecOf(table).table,
    address,
    count: config.count === undefined || config.count === '' ? undefined : Number(config.count),
    kind,
    src: `modbus-hr${address}`,
    // Resend an unchanged block after this long (ms; 0 = never): see the node's help.
    refreshMs: config.refreshMs === undefined || config.refreshMs === '' ? codec.DEFAULT_REFRESH_MS : Number(config.refreshMs),
    // "message": the block's address comes with each read (a Modbus Flex Getter's
    // msg.modbusRequest), one relay per block, and the write goes out for a Modbus Flex Write
    // (the edge's probe relay reads many blocks through one Getter). "fixed": this node's block.
    perMessage: config.block === 'message',
    // Fresh changes only (towards a PLC): "on", "off", or "auto"/unset = on for commands.
    baseline: config.baseline === 'on' || config.baseline === true
      || ((config.baseline === undefined || config.baseline === '' || config.baseline === 'auto') && kind === 'cmd'),
    ownTopic: `hr${address}`,
  };
}

/**
 * The relay the settings ask for.
 * @throws {Error} the codec's configuration errors (a bad address or count)
 */
function createCodecRelay(s) {
  return s.perMessage
    ? codec.createBlockRelays({ refreshMs: s.refreshMs, baseline: s.baseline, table: s.table })
    : codec.createRelay({ address: s.address, count: s.count, refreshMs: s.refreshMs, baseline: s.baseline, table: s.table });
}

/**
 * Relay one read: the block (with its address, per message) through the relay.
 * @returns {{changed: object, words?: number[], address?: number}} the relay's update
 * @throws {Error} the codec's errors for a bad block
 */
function relayRead(relay, s, msg) {
  if (!s.perMessage) return relay.update(msg.payload);
  const req = msg.modbusRequest || {};
  const at = req.address !== undefined ? Number(req.address) : Number(msg.address);
  return relay.update(at, msg.payload);
}

/**
 * The node's two outputs for one relayed read: an envelope-like message of the tags that
 * changed (for the flow-timer), and the block to write, only when it changed.
 * @param {object} s codecSettings
 * @param {{changed: object, words?: number[], address?: number}} out relayRead
 * @param {object} msg the read
 * @param {number} seq the envelope's sequence number, if there is one
 * @returns {[object|null, object|null]}
 */
function codecOutputs(s, out, msg, seq) {
  // Registers outside the table's tags (the probe ranges) decode to nothing: no envelope.
  const env = Object.keys(out.changed).length
    ? { topic: s.kind, payload: { k: s.kind, src: s.perMessage ? `modbus-hr${out.address}` : s.src, seq, ts: Date.now(), d: out.changed } } : null;
  let write = null;
  if (out.words && s.perMessage) {
    // Modbus Flex Write: same registers on the other side, FC16 (FC6 for a single word).
    const n = out.words.length;
    write = {
      topic: msg.topic, address: out.address,
      payload: { fc: n === 1 ? 6 : 16, unitid: '', address: out.address, quantity: n, value: n === 1 ? out.words[0] : out.words },
    };
  } else if (out.words) {
    write = { topic: s.ownTopic, address: s.address, payload: out.words.length === 1 ? out.words[0] : out.words };
  }
  return [env, write];
}

module.exports = { codecSettings, createCodecRelay, relayRead, codecOutputs };
