'use strict';
/**
 * Which timers an envelope starts and stops, from the tag dictionary's timed pairs:
 *   - a `cmd` whose values contain a timed pair's trigger (and its `with` conditions, checked
 *     against the values commanded so far, since a condition may have been sent in an earlier
 *     frame) starts one timer per pair, id `<output>:<src>:<seq>` (or `<output>:<cid>`);
 *   - a `state`/`snap` in which an output took its expected value stops every pending timer of
 *     that output (one PLC output change answers every twin that asked for it);
 *   - a `probe` d {slot: value} starts `probe:<slot>:<value>`, its `probe-res` stops it.
 * Never touches RED; runs in the browser too.
 */

const asBit = (v) => (v === true ? 1 : v === false ? 0 : v);

/**
 * @param {object} e
 * @param {Array<{trigger: string, value: number, with: object, output: string}>} e.pairs timed pairs
 * @param {object} e.timers lib/timer/timers.js
 * @param {{started: number, unmatched: number, invalid: number}} e.counters
 * @returns {(env: object, t: number) => {started: string[], results: Array}} translate one envelope
 */
function createEnvelopeTimer(e) {
  const { pairs, timers, counters } = e;
  const commanded = {}; // last commanded value of every input, for `with` conditions

  function command(d, ref, t, started) {
    for (const [k, v] of Object.entries(d)) commanded[k] = asBit(v);
    for (const p of pairs) {
      if (!(p.trigger in d) || asBit(d[p.trigger]) !== p.value) continue;
      if (!Object.entries(p.with).every(([k, v]) => commanded[k] === v)) continue;
      const id = `${p.output}:${ref}`;
      if (timers.start(id, p.output, t)) started.push(id);
    }
  }

  return (env, t) => {
    const started = [];
    const results = [];
    if (!env || typeof env !== 'object' || !env.d || typeof env.d !== 'object') {
      counters.invalid += 1;
      return { started, results };
    }
    const d = env.d;
    const ref = env.cid !== undefined ? String(env.cid) : (env.src !== undefined ? `${env.src}:${env.seq}` : String(counters.started + 1));
    switch (env.k) {
      case 'cmd':
        command(d, ref, t, started);
        break;
      case 'state':
      case 'snap':
        for (const p of pairs) {
          if (p.output in d && asBit(d[p.output]) === p.value) results.push(...timers.stop({ variable: p.output }, t));
        }
        break;
      case 'probe':
        for (const [slot, v] of Object.entries(d)) {
          const id = `probe:${slot}:${v}`;
          if (timers.start(id, `probe:${slot}`, t)) started.push(id);
        }
        break;
      case 'probe-res':
        for (const [slot, v] of Object.entries(d)) {
          const r = timers.finish(`probe:${slot}:${v}`, t);
          if (r) results.push(r); else counters.unmatched += 1;
        }
        break;
      default:
        break; // ack, err: nothing to time
    }
    return { started, results };
  };
}

module.exports = { createEnvelopeTimer, asBit };
