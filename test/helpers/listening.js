'use strict';
/**
 * Where does a TCP port listen? Read from the kernel's own tables (/proc/net/tcp and tcp6), so a
 * test sees the address a server really bound, whatever the server says it did, and needs no
 * second network interface to prove it is not reachable elsewhere.
 */
const fs = require('node:fs');

/** `0100007F` → `127.0.0.1`; a 32-hex-digit IPv6 address → its compressed text. */
function decode(hex) {
  if (hex.length === 8) return [3, 2, 1, 0].map((i) => parseInt(hex.slice(2 * i, 2 * i + 2), 16)).join('.');
  const words = [];
  for (let w = 0; w < 4; w += 1) {
    const le = hex.slice(8 * w, 8 * w + 8);
    const be = [3, 2, 1, 0].map((i) => le.slice(2 * i, 2 * i + 2)).join('');
    words.push(be.slice(0, 4), be.slice(4));
  }
  const text = words.map((x) => parseInt(x, 16).toString(16)).join(':');
  if (/^0:0:0:0:0:ffff:/.test(text)) { const [a, b] = words.slice(6).map((x) => parseInt(x, 16)); return `::ffff:${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`; }
  if (text === '0:0:0:0:0:0:0:0') return '::';
  if (text === '0:0:0:0:0:0:0:1') return '::1';
  return text;
}

/**
 * The local addresses that listen on a TCP port (LISTEN state), e.g. ['127.0.0.1'] or ['0.0.0.0'].
 * @param {number} port
 * @returns {string[]}
 */
function listeningAddresses(port) {
  const out = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text;
    try { text = fs.readFileSync(file, 'utf8'); } catch { continue; }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 4 || f[3] !== '0A') continue; // 0A = LISTEN
      const [addr, p] = f[1].split(':');
      if (parseInt(p, 16) === port) out.push(decode(addr));
    }
  }
  return [...new Set(out)].sort();
}

module.exports = { listeningAddresses };
