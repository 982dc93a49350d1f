'use strict';
/**
 * The echo endpoint's one rule (bench/k6/echo-server.js), pure so it is unit-tested: a `probe`
 * envelope is answered by a `probe-res` with the same slots and values and its `ref` (the probe's
 * src and seq, as the cloud's twin endpoint answers); anything else, or anything malformed, gets
 * no answer (null).
 * @param {Buffer|string} data one WebSocket message
 * @param {() => number} nextSeq the endpoint's sequence numbers
 * @returns {string|null} the answer frame, or null
 */
function probeAnswer(data, nextSeq) {
  let env;
  try { env = JSON.parse(String(data)); } catch { return null; }
  if (!env || env.k !== 'probe' || !env.d || typeof env.d !== 'object' || Array.isArray(env.d)) return null;
  const ref = typeof env.src === 'string' ? { src: env.src, seq: env.seq } : undefined;
  return JSON.stringify({ v: 1, k: 'probe-res', src: 'echo', seq: nextSeq(), ts: Date.now(), d: env.d, ref });
}

module.exports = { probeAnswer };
