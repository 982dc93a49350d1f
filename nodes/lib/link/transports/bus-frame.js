'use strict';
/**
 * One message of the link on a message bus (AMQP, Kafka, MQTT, ZeroMQ): what a link session
 * (lib/link/transports/bus-session.js) puts on its carrier, the same bytes on every broker.
 *
 *   byte 0       type: hello, welcome, refused, frame, bye, ping, pong
 *   bytes 1..16  the session id: 16 random bytes the edge draws for each dial
 *   bytes 17..   the body: a link frame as the session's codec wrote it (frame), or JSON (the rest)
 *
 * Seventeen bytes of header and no broker-specific property, so a session reads the same on each
 * carrier, and a carrier needs to know nothing of it but where to send.
 *
 * Pure functions.
 */
const crypto = require('node:crypto');
const { codedError } = require('../../core/errors');

/** Error with a stable `code`: E_LINK_MESSAGE (not a link message). */
const BusFrameError = codedError('BusFrameError');

const TYPES = ['hello', 'welcome', 'refused', 'frame', 'bye', 'ping', 'pong'];
const CODE = Object.fromEntries(TYPES.map((t, i) => [t, i + 1]));
const SID_BYTES = 16;
const HEADER_BYTES = 1 + SID_BYTES;

/** A fresh session id (hex, 32 characters). */
const newSessionId = () => crypto.randomBytes(SID_BYTES).toString('hex');

/**
 * One bus message.
 * @param {string} type one of TYPES
 * @param {string} sid a session id (newSessionId)
 * @param {Buffer|string|object} [body] a frame (Buffer or text), or an object (sent as JSON)
 * @returns {Buffer}
 */
function encode(type, sid, body) {
  const code = CODE[type];
  if (!code) throw new BusFrameError('E_LINK_MESSAGE', `unknown link message type "${type}"`);
  let b;
  if (body === undefined || body === null) b = Buffer.alloc(0);
  else if (Buffer.isBuffer(body)) b = body;
  else if (typeof body === 'string') b = Buffer.from(body, 'utf8');
  else b = Buffer.from(JSON.stringify(body), 'utf8');
  const head = Buffer.allocUnsafe(HEADER_BYTES);
  head[0] = code;
  head.write(sid, 1, SID_BYTES, 'hex');
  return Buffer.concat([head, b], HEADER_BYTES + b.length);
}

/**
 * Read one bus message.
 * @param {Buffer} buf
 * @returns {{type: string, sid: string, body: Buffer}}
 * @throws {BusFrameError} E_LINK_MESSAGE
 */
function decode(buf) {
  if (!Buffer.isBuffer(buf) || buf.length < HEADER_BYTES || !TYPES[buf[0] - 1]) {
    throw new BusFrameError('E_LINK_MESSAGE', 'not a link message (too short, or an unknown type)');
  }
  return { type: TYPES[buf[0] - 1], sid: buf.toString('hex', 1, HEADER_BYTES), body: buf.subarray(HEADER_BYTES) };
}

/**
 * The JSON body of a control message (hello, welcome, refused, bye), or {} if it has none.
 * @param {Buffer} body
 * @returns {object}
 * @throws {BusFrameError} E_LINK_MESSAGE (not a JSON object)
 */
function controlBody(body) {
  if (!body.length) return {};
  let v;
  try { v = JSON.parse(body.toString('utf8')); } catch { v = null; }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new BusFrameError('E_LINK_MESSAGE', 'a link control message whose body is not a JSON object');
  return v;
}

module.exports = { TYPES, HEADER_BYTES, BusFrameError, newSessionId, encode, decode, controlBody };
