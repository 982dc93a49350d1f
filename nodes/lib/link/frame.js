'use strict';
/**
 * Reading one frame of the link, the same at both ends (the cloud's endpoints,
 * lib/link/intake.js, and the edge's dialer, lib/link/downlink.js): its size against the limit,
 * then text, then a valid envelope; then its sender's sequence number against the last one seen
 * (a duplicate is dropped, a gap counted); and the codec those frames are written in.
 */
const envelope = require('../core/envelope');

/**
 * Read one frame as an envelope.
 * @param {Buffer} data
 * @param {boolean} isBinary
 * @param {number} maxBytes the frame size limit
 * @returns {object} a valid envelope
 * @throws {EnvelopeError} E_TOO_LARGE (past maxBytes), E_SCHEMA (binary, not an envelope), E_JSON, …
 */
function readFrame(data, isBinary, maxBytes) {
  if (data.length > maxBytes) throw new envelope.EnvelopeError('E_TOO_LARGE', `frame of ${data.length} bytes exceeds the ${maxBytes}-byte limit`);
  if (isBinary) throw new envelope.EnvelopeError('E_SCHEMA', 'binary frames are not envelopes');
  return envelope.parse(data.toString('utf8'), { maxBytes });
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
 * The codec of the link's frames today: an envelope as JSON text. A transport takes a codec and
 * agrees on it with the other side when a session opens (a message bus's hello,
 * lib/link/transports/bus-session.js), so that another encoding can ride every transport by name.
 * `binary`: whether its frames are bytes rather than text (a transport reports each frame so).
 */
const JSON_CODEC = Object.freeze({
  name: 'json',
  binary: false,
  encode: (env) => envelope.stringify(env),
  decode: (data, isBinary, maxBytes) => readFrame(data, isBinary, maxBytes),
});

module.exports = { readFrame, trackFrame, JSON_CODEC };
