'use strict';
/**
 * How envelopes (lib/core/envelope.js) are written on a connection: a codec chosen per connection
 * when it opens, by the WebSocket subprotocol (`Sec-WebSocket-Protocol`) the two ends agree on.
 *
 * - `s7twin.v1+json`: the readable JSON envelope in text frames, for tools and people; a client
 *   that asks for no subprotocol gets it too.
 * - `s7twin.v1+msgpack`: the compact one (./compact.js) in binary frames: MessagePack, tags by
 *   their numeric id from the I/O table, sender ids and timestamps said once per connection.
 *
 * A codec is an object per connection: `encode(env)` gives the frame (text or bytes), `decode(data,
 * isBinary, maxBytes)` a valid envelope or a coded error. Text frames are JSON on either codec (a
 * person may type one on a compact connection); binary frames are envelopes only on the compact
 * one. Any transport that carries frames can take a codec this way.
 *
 * Browser-safe (the page gets MessagePack from its browser build).
 */
const envelope = require('../envelope');
const compact = require('./compact');
const { tableOf } = require('../io-table');

const JSON_PROTOCOL = 's7twin.v1+json';
const COMPACT_PROTOCOL = 's7twin.v1+msgpack';
/** The subprotocols this bridge speaks, the compact one first. */
const PROTOCOLS = [COMPACT_PROTOCOL, JSON_PROTOCOL];
/**
 * The compact encoding's time unit (µs) on each kind of connection: the edge link's clock exchange
 * (lib/core/clock.js) wants microseconds; a twin's connection only reports times (ts, the dl its
 * answers echo), and 100 µs saves two bytes a time field.
 */
const TIME_UNIT_US = { link: 1, twin: 100 };
/** What an encoding option ('compact' or 'json') offers in the opening handshake, preferred first. */
const OFFERS = { compact: [COMPACT_PROTOCOL, JSON_PROTOCOL], json: [JSON_PROTOCOL] };

/**
 * The subprotocols a client offers for an encoding option.
 * @param {string} [encoding] 'compact' (default) or 'json'
 * @returns {string[]}
 * @throws {EnvelopeError} E_ENCODING for anything else
 */
function offerFor(encoding = 'compact') {
  const offer = OFFERS[encoding];
  if (!offer) throw new envelope.EnvelopeError('E_ENCODING', `unknown encoding "${encoding}" (compact or json)`);
  return offer;
}

/**
 * The server's choice among the subprotocols a client offered: the first it speaks, in the
 * client's order. Nothing offered: JSON (undefined: no header in the answer). Only others: null.
 * @param {Iterable<string>|string|undefined} offered a Set, an array, or the header's text
 * @returns {string|undefined|null}
 */
function pickProtocol(offered) {
  const list = typeof offered === 'string' ? offered.split(',').map((x) => x.trim()).filter(Boolean) : [...(offered || [])];
  if (!list.length) return undefined;
  return list.find((p) => PROTOCOLS.includes(p)) || null;
}

const text = (data) => (typeof data === 'string' ? data : new TextDecoder().decode(data));
const sizeOf = (data) => (typeof data === 'string' ? data.length : data.byteLength);

/**
 * The codec of one connection.
 * @param {string} [protocol] the agreed subprotocol ('' or undefined: JSON)
 * @param {{table?: object, timeUnitUs?: number}} [o] table: the I/O table the compact encoding's tag
 *   ids come from (lib/core/io-table.js; default the demo plant's), or a function giving the plant's
 *   table as it is now; timeUnitUs: TIME_UNIT_US.link (the
 *   default) or .twin
 * @returns {{name: string, binary: boolean, encode(env: object): string|Uint8Array,
 *   decode(data: string|Uint8Array, isBinary: boolean, maxBytes?: number): object}}
 */
function createCodec(protocol, o = {}) {
  const name = protocol || JSON_PROTOCOL;
  if (!PROTOCOLS.includes(name)) throw new envelope.EnvelopeError('E_ENCODING', `unknown subprotocol "${name}"`);
  const binary = name === COMPACT_PROTOCOL;
  let enc = null;
  let dec = null;
  if (binary) {
    const table = typeof o.table === 'function' ? o.table : tableOf(o.table);
    dec = compact.createDecoder(table, o.timeUnitUs || TIME_UNIT_US.link);
    // Tags go by number only once the other end has said its numbering is this one's.
    enc = compact.createEncoder(table, o.timeUnitUs || TIME_UNIT_US.link, () => dec.peerKey);
  }
  return {
    name,
    binary,
    encode: binary ? (env) => (compact.carries(env) ? enc.encode(env) : JSON.stringify(env)) : (env) => JSON.stringify(env),
    decode(data, isBinary, maxBytes = envelope.MAX_FRAME_BYTES) {
      const size = sizeOf(data);
      if (size > maxBytes) throw new envelope.EnvelopeError('E_TOO_LARGE', `frame of ${size} bytes exceeds the ${maxBytes}-byte limit`);
      if (!isBinary) return envelope.parse(text(data), { maxBytes });
      if (!binary) throw new envelope.EnvelopeError('E_SCHEMA', `binary frames are not envelopes on ${name} (the compact encoding is ${COMPACT_PROTOCOL})`);
      return envelope.validate(dec.decode(data));
    },
  };
}

module.exports = { JSON_PROTOCOL, COMPACT_PROTOCOL, PROTOCOLS, TIME_UNIT_US, offerFor, pickProtocol, createCodec };
