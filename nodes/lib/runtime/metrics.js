'use strict';
/**
 * The s7twin counters (nodes/lib/runtime/registry.js, the JSON of GET /s7twin/stats) in Prometheus text
 * format, for GET /s7twin/metrics, with prom-client: it writes the exposition format (escaping,
 * HELP/TYPE lines) as Prometheus parses it, and adds the process metrics an operator wants next
 * to ours (CPU, resident memory, heap, event loop lag, open handles) without code of our own.
 *
 * Every numeric counter of every node becomes one sample of the gauge
 * `s7twin_<counter in snake case>{node_id, node_type, node_name}`; nested objects are flattened
 * (`probes.sent` → `s7twin_probes_sent`), booleans are 0/1, strings are left out. Gauges, not
 * counters: some values go down (clients, queueDepth) and a node's counters restart with it on a
 * redeploy; rate() still works on the ones that only grow.
 */
const client = require('prom-client');

const PREFIX = 's7twin_';
const LABELS = ['node_id', 'node_type', 'node_name'];

const processRegistry = new client.Registry();
let defaultsOn = false;

/** `framesIn` → `frames_in`; anything Prometheus does not allow in a name → `_`. */
function snake(key) {
  return String(key).replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[^A-Za-z0-9_]/g, '_').toLowerCase();
}

/** Numeric leaves of a counters object: [['frames_in', 12], ['probes_sent', 3], ...]. */
function leaves(obj, prefix = '', out = [], depth = 0) {
  for (const [k, v] of Object.entries(obj || {})) {
    const name = prefix ? `${prefix}_${snake(k)}` : snake(k);
    if (typeof v === 'number' && Number.isFinite(v)) out.push([name, v]);
    else if (typeof v === 'boolean') out.push([name, v ? 1 : 0]);
    else if (v && typeof v === 'object' && !Array.isArray(v) && depth < 3) leaves(v, name, out, depth + 1);
  }
  return out;
}

/**
 * The exposition text for a list of nodes' counters (registry.list()), plus the process metrics.
 * @param {Array<{id:string, type:string, name:string, counters:object}>} nodes
 * @returns {Promise<string>}
 */
async function render(nodes) {
  if (!defaultsOn) {
    client.collectDefaultMetrics({ register: processRegistry });
    defaultsOn = true;
  }
  const reg = new client.Registry();
  const gauges = new Map();
  for (const n of nodes) {
    for (const [key, value] of leaves(n.counters)) {
      const name = PREFIX + key;
      if (!gauges.has(name)) {
        const help = `s7twin node counter ${key} (GET /s7twin/stats has the same as JSON)`;
        gauges.set(name, new client.Gauge({ name, help, labelNames: LABELS, registers: [reg] }));
      }
      gauges.get(name).set({ node_id: n.id, node_type: n.type, node_name: n.name || '' }, value);
    }
  }
  return client.Registry.merge([processRegistry, reg]).metrics();
}

module.exports = { render, snake, leaves, contentType: client.Registry.PROMETHEUS_CONTENT_TYPE || client.contentType };
