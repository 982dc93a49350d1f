'use strict';
/**
 * The round-trip samples of a flow-timer: one window over every sample and one per variable, at
 * most `maxVariables` of those; the least recently timed variable makes room for a new one
 * (counted as evicted; its samples stay in the overall window). Never touches RED; runs in the
 * browser too.
 */
const { createWindow, round } = require('../core/stats');

/** One variable's line of the statistics table. */
function variableLine(w) {
  const b = w.brief();
  return { n: b.total, mean: round(b.mean, 3), median: round(b.median, 3), p95: round(b.p95, 3), p99: round(b.p99, 3) };
}

/**
 * @param {{windowSize: number, variableWindow: number, maxVariables: number, counters: {evicted: number}}} o
 * @returns {{add(variable: string, ms: number): void, lines(): object, linesAsync(sliceMs: number): Promise<object>,
 *   summary(): object, brief(): object}}
 */
function createSamples(o) {
  const window = createWindow(o.windowSize);
  const perVariable = new Map(); // variable -> window, least recently timed first

  return {
    /** One round trip of `variable`. */
    add(variable, ms) {
      window.push(ms);
      let w = perVariable.get(variable);
      if (w) {
        perVariable.delete(variable); // re-inserted below: the Map stays in least-recent order
      } else {
        w = createWindow(o.variableWindow);
        if (perVariable.size >= o.maxVariables) {
          perVariable.delete(perVariable.keys().next().value);
          o.counters.evicted += 1;
        }
      }
      perVariable.set(variable, w);
      w.push(ms);
    },
    /** Every variable's line, at once. */
    lines() {
      const variables = {};
      for (const [v, w] of perVariable) variables[v] = variableLine(w);
      return variables;
    },
    /**
     * The same as lines(), without holding the event loop: computed in slices of at most
     * `sliceMs`, with other work let through in between. With a thousand probe slots timed, the
     * lines take tens of milliseconds; in one piece that is a stall of every round trip the
     * process carries.
     */
    async linesAsync(sliceMs) {
      const variables = {};
      let sliceStart = performance.now();
      for (const [v, w] of [...perVariable]) {
        variables[v] = variableLine(w);
        if (performance.now() - sliceStart >= sliceMs) {
          await new Promise((resolve) => setImmediate(resolve));
          sliceStart = performance.now();
        }
      }
      return variables;
    },
    /** The overall window's statistics (lib/core/stats.js summary). */
    summary: () => window.summary(),
    /** The overall window's n, mean and p99 (cheap: for a status line). */
    brief: () => window.brief(),
  };
}

module.exports = { createSamples, variableLine };
