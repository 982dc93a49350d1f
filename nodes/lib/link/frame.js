'use strict';
/**
 * Reading one frame of the link, the same at both ends (the cloud's endpoints,
 * lib/link/intake.js, and the edge's dialer, lib/link/downlink.js): its size against the limit,
 * then text, then a valid envelope; then its sender's sequence number against the last one seen
 * (a duplicate is dropped, a gap counted); and the codec those frames are written in.
 */
const { createCodec } = require('../core/codec');

/** The readable JSON envelope (lib/core/codec): a WebSocket that agreed on no subprotocol speaks it. */
const JSON_FRAMES = createCodec();

/**
 * Read one frame as an envelope, with the connection's codec (lib/core/codec).
 * @param {Buffer} data
 * @param {boolean} isBinary
 * @param {number} maxBytes the frame size limit
 * @param {object} [codec] the connection's (default JSON)
 * @returns {object} a valid envelope
 * @throws {EnvelopeError} E_TOO_LARGE (past maxBytes), E_SCHEMA (binary on JSON, not an envelope),
 *   E_JSON, E_DECODE (a binary frame that is not a compact envelope), …
 */
function readFrame(data, isBinary, maxBytes, codec = JSON_FRAMES) {
  return codec.decode(data, isBinary, maxBytes);
}

/**
 * A frame's sequence number against its sender's last (lib/core/envelope.js createTracker).
 * @param {object} tracker
 * @param {string} src the sender's key
 * @param {number} seq
 * @param {{duplicates: number, gaps: number}} counters counts a duplicate, or the gaps it opened
 * @returns {'accept'|'duplicate'}
 */
function trackFrame(tracker, src, seq, counters) {
  const gapsBefore = tracker.stats.gaps;
  if (tracker.check({ src, seq }) === 'duplicate') {
    counters.duplicates += 1;
    return 'duplicate';
  }
  counters.gaps += tracker.stats.gaps - gapsBefore;
  return 'accept';
}

/**
 * The codec of the link's frames over a message bus: an envelope as JSON text (lib/core/codec's,
 * under the name a bus session's hello offers). A transport takes a codec and agrees on it with
 * the other side when a session opens (lib/link/transports/bus-session.js), so that another
 * encoding can ride every transport by name. `binary`: whether its frames are bytes rather than
 * text (a transport reports each frame so). A WebSocket agrees on its codec by subprotocol instead.
 */
const JSON_CODEC = Object.freeze({
  name: 'json',
  binary: false,
  encode: (env) => JSON_FRAMES.encode(env),
  decode: (data, isBinary, maxBytes) => JSON_FRAMES.decode(data, isBinary, maxBytes),
});

module.exports = { readFrame, trackFrame, JSON_CODEC };
