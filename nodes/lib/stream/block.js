'use strict';
/**
 * A block of a signal's samples as a `samples` envelope's `b` field, and back (the field is
 * described and checked in lib/core/envelope.js):
 *
 *   {"v":1,"k":"samples","src":"edge-1","seq":9,"ts":1764316800123.4,
 *    "b":{"sig":"vib","i":12000,"t":1764316800101.25,"hz":1000,"n":10,"x":"<base64 of 40 bytes>"}}
 *
 * The samples go as DINTs (Int32) big-endian, the bytes an S7 PLC holds them in, in base64: a
 * third more than the samples' own bytes, where JSON numbers take two to three times as many, and
 * one string to copy rather than a number to parse per sample. Edge and cloud only (Node's Buffer).
 */
const os = require('node:os');
const envelope = require('../core/envelope');

const LITTLE = os.endianness() === 'LE';

/**
 * The `b` field of a samples frame.
 * @param {{sig: string, i: number, t: number, hz: number, values: Int32Array|number[]}} s
 * @returns {{sig: string, i: number, t: number, hz: number, n: number, x: string}}
 */
function blockField(s) {
  const ints = s.values instanceof Int32Array ? s.values : Int32Array.from(s.values);
  // A copy of the samples' bytes in the PLC's order (swap32 works in place, on whole words).
  const bytes = Buffer.from(ints.buffer, ints.byteOffset, ints.byteLength);
  const be = Buffer.allocUnsafe(bytes.length);
  bytes.copy(be);
  if (LITTLE) be.swap32();
  return { sig: s.sig, i: s.i, t: s.t, hz: s.hz, n: ints.length, x: be.toString('base64') };
}

/**
 * A whole samples envelope from a sender (lib/core/envelope.js createSender).
 * @param {object} sender
 * @param {{sig: string, i: number, t: number, hz: number, values: Int32Array|number[]}} s
 * @returns {object}
 */
const samplesEnvelope = (sender, s) => sender.make('samples', { b: blockField(s) });

/**
 * The samples of a valid samples envelope.
 * @param {object} env a `samples` envelope (validated: lib/core/envelope.js)
 * @returns {{sig: string, i: number, t: number, hz: number, n: number, values: Int32Array}}
 * @throws {EnvelopeError} E_SCHEMA when x does not decode to n samples
 */
function readSamples(env) {
  const b = env.b;
  const raw = Buffer.from(b.x, 'base64');
  if (raw.length !== 4 * b.n) {
    throw new envelope.EnvelopeError('E_SCHEMA', `a "samples" frame's x decodes to ${raw.length} bytes, not ${4 * b.n}`, { src: env.src, seq: env.seq });
  }
  // An aligned copy, swapped to this host's order.
  const values = new Int32Array(b.n);
  const out = Buffer.from(values.buffer);
  raw.copy(out);
  if (LITTLE) out.swap32();
  return { sig: b.sig, i: b.i, t: b.t, hz: b.hz, n: b.n, values };
}

/**
 * The time on the PLC's clock (ms) of sample j of a block (0-based within it).
 * @param {{t: number, hz: number}} b
 * @param {number} j
 */
const sampleTime = (b, j) => b.t + (j * 1000) / b.hz;

module.exports = { blockField, samplesEnvelope, readSamples, sampleTime };
