'use strict';
/**
 * The latest full state of each plant as an endpoint saw it go out (every state and snap merged),
 * bounded in tags: a twin that connects gets it as its first `snap`, and the REST path starts
 * from it.
 *
 * Plain module; lib/link/endpoint-core.js keeps one per endpoint.
 */

/**
 * @param {object} o
 * @param {number} o.maxTags distinct tags kept per plant; more are ignored
 * @returns {{remember(plant: string, env: object): void, values(plant: string): object, has(plant: string): boolean}}
 */
function createLatestStates(o) {
  const latest = new Map(); // plant -> {values (short -> value), keys}

  return {
    /** Merge a state or snap frame's values into the plant's state. */
    remember(plant, env) {
      let l = latest.get(plant);
      if (!l) { l = { values: {}, keys: 0 }; latest.set(plant, l); }
      for (const [k, v] of Object.entries(env.d || {})) {
        if (!(k in l.values)) {
          if (l.keys >= o.maxTags) continue;
          l.keys += 1;
        }
        l.values[k] = v;
      }
    },
    /** A copy of the plant's state ({} if none). */
    values(plant) {
      const l = latest.get(plant);
      return l ? { ...l.values } : {};
    },
    /** Is any tag of the plant known? */
    has(plant) {
      const l = latest.get(plant);
      return Boolean(l && l.keys > 0);
    },
  };
}

module.exports = { createLatestStates };
