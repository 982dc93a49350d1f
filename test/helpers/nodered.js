'use strict';
/**
 * Node-RED helpers for flow and end-to-end tests. A runtime is started by the launcher
 * (system/nodered.js: a child process with the project's settings.js, its own temporary user
 * directory and a free port); here are what tests read from a running one.
 */
const path = require('node:path');
const { startNodeRed } = require('../../system/nodered');
const { freePort } = require('../../plc/net');
const { waitFor } = require('../../system/wait');

const ROOT = path.join(__dirname, '..', '..');

/**
 * The counters of every s7twin node of a running Node-RED (GET /s7twin/stats), by node name.
 * @param {{url: string}} red from startNodeRed
 * @returns {Promise<Object<string, object>>} name (or id when unnamed) -> counters
 */
async function nodeStats(red) {
  const { nodes } = await (await fetch(`${red.url}/s7twin/stats`)).json();
  return Object.fromEntries(nodes.map((n) => [n.name || n.id, n.counters]));
}

/**
 * Wait until the edge's bridges towards the PLC have their baselines (a bridge that starts writes
 * nothing it did not just receive, so what a twin commands before that is not applied): the OPC UA bridge's commands and probe requests, the
 * Modbus codecs "commands → PLC" and "probe requests → PLC" (every probe block), as far as the
 * edge runs them.
 * @param {{url: string}} edge
 * @param {{opcua?: boolean, modbus?: boolean, modbusProbeBlocks?: number, since?: object, timeoutMs?: number}} opts
 *   since: counters of an earlier nodeStats() call; baselines must have grown past them
 */
async function edgeReady(edge, opts) {
  const before = opts.since || {};
  const grew = (now, was, key) => now && now[key] > ((was && was[key]) || 0);
  await waitFor(async () => {
    const s = await nodeStats(edge);
    if (opts.opcua) {
      const b = s['OPC UA bridge'];
      const was = before['OPC UA bridge'];
      if (!b || b.commands.holding || !grew(b.commands, was && was.commands, 'baselines')) return false;
      if (b.probes && (b.probes.requests.holding || !grew(b.probes.requests, was && was.probes && was.probes.requests, 'baselines'))) return false;
    }
    if (opts.modbus) {
      if (!grew(s['commands → PLC'], before['commands → PLC'], 'baselines')) return false;
      const p = s['probe requests → PLC'];
      const blocks = opts.modbusProbeBlocks ?? 0;
      if (blocks && !(p && p.baselines >= (((before['probe requests → PLC'] || {}).baselines) || 0) + blocks)) return false;
    }
    return true;
  }, opts.timeoutMs || 60000, 'the edge\'s bridges to have their baselines');
}

/**
 * The command log's commands of a running cloud (GET /s7twin/audit of every plant since the
 * epoch; a runtime with no editor login answers without a token), once `until` holds for them.
 * @param {{url: string}} red
 * @param {(commands: object[]) => boolean} [until] wait until the log holds what the test made
 * @param {string} [what] what is waited for
 * @returns {Promise<object[]>}
 */
async function auditCommands(red, until = () => true, what = 'the commands in the command log') {
  let last = [];
  try {
    return await waitFor(async () => {
      const res = await fetch(`${red.url}/s7twin/audit?plant=*&from=0`);
      if (!res.ok) throw new Error(`GET /s7twin/audit: HTTP ${res.status} ${await res.text()}`);
      last = (await res.json()).commands;
      return until(last) ? last : null;
    }, 20000, what, 200);
  } catch (err) {
    err.message += `\nthe log holds: ${JSON.stringify(last).slice(0, 3000)}`;
    throw err;
  }
}

module.exports = { ROOT, freePort, waitFor, startNodeRed, nodeStats, edgeReady, auditCommands };
