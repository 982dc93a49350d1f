'use strict';
/**
 * A pass-through stream for one MQTT TCP connection that reads only the fixed header of every
 * packet (MQTT 3.1.1 §2.2: one type byte, then the "remaining length" in 1..4 bytes of 7 bits)
 * and stops the connection as soon as a packet announces more than `maxBytes`, before its body
 * has arrived. aedes' parser (mqtt-packet) has no size limit and buffers a whole packet, so
 * without this a client, even one that never authenticates, could make the broker hold a
 * 256 MB CONNECT in memory.
 */
const { Duplex } = require('node:stream');

/**
 * A scanner over a byte stream of MQTT packets.
 * @param {number} maxBytes largest remaining length allowed
 * @returns {(chunk: Buffer) => boolean} false once a packet is too large or malformed
 */
function createScanner(maxBytes) {
  let stage = 0; // 0 type byte, 1 length bytes, 2 body
  let len = 0;
  let mult = 1;
  let lenBytes = 0;
  let remaining = 0;
  let failed = false;
  return (chunk) => {
    if (failed) return false;
    let i = 0;
    while (i < chunk.length) {
      if (stage === 0) {
        stage = 1; len = 0; mult = 1; lenBytes = 0;
        i += 1;
      } else if (stage === 1) {
        const b = chunk[i++];
        len += (b & 0x7f) * mult;
        mult *= 128;
        lenBytes += 1;
        if (b & 0x80) {
          if (lenBytes === 4) { failed = true; return false; } // MQTT-2.2.3: at most 4 bytes
        } else {
          if (len > maxBytes) { failed = true; return false; }
          remaining = len;
          stage = remaining ? 2 : 0;
        }
      } else {
        const n = Math.min(remaining, chunk.length - i);
        i += n;
        remaining -= n;
        if (remaining === 0) stage = 0;
      }
    }
    return true;
  };
}

/**
 * Wrap a socket so that reads are checked by the scanner; writes go straight through.
 * @param {import('net').Socket} socket
 * @param {number} maxBytes
 * @param {() => void} [onOversize] called once when the connection is dropped for a large packet
 * @returns {Duplex}
 */
function createFrameGuard(socket, maxBytes, onOversize) {
  const scan = createScanner(maxBytes);
  const guard = new Duplex({
    read() { socket.resume(); },
    write(chunk, enc, cb) {
      if (socket.destroyed) { cb(); return; }
      socket.write(chunk, enc, cb);
    },
    final(cb) { socket.end(); cb(); },
    destroy(e, cb) { socket.destroy(); cb(e); },
  });
  socket.on('data', (chunk) => {
    if (!scan(chunk)) {
      socket.pause();
      if (onOversize) onOversize();
      socket.destroy();
      return;
    }
    if (!guard.push(chunk)) socket.pause();
  });
  socket.on('end', () => guard.push(null));
  socket.on('close', () => { if (!guard.destroyed) guard.destroy(); });
  socket.on('error', () => {}); // the close that follows ends the guard
  return guard;
}

module.exports = { createScanner, createFrameGuard };
