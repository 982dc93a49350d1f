'use strict';
/**
 * The echo endpoint's one rule (bench/k6/echo-server.js), pure so it is unit-tested: a `probe`
 * envelope is answered by a `probe-res` with the same slots and values; anything else, or
 * anything malformed, gets no answer (null).
 * @param {Buffer|string} data one WebSocket message
 * @param {() => number} nextSeq the endpoint's sequence numbers
 * @returns {string|null} the answer frame, or null
 */
function probeAnswer(data, nextSeq) {
  let env;
  try { env = JSON.parse(String(data)); } catch { return null; }
  if (!env || env.k !== 'probe' || !env.d || typeof env.d !== 'object' || Array.isArray(env.d)) return null;
  return JSON.stringify({ v: 1, k: 'probe-res', src: 'echo', seq: nextSeq(), ts: Date.now(), d: env.d });
}

module.exports = { probeAnswer };
