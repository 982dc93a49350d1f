'use strict';
/**
 * The flows the launcher deploys, chosen by the table of protocol paths
 * (nodes/lib/core/paths.js): the assembled flows (flows/cloud.json, flows/edge.json) with the tabs
 * of the paths not wanted disabled, single flow parts (flows/parts/), and the comparison stacks
 * the benchmark runs beside ours (bench/flows/).
 */
const fs = require('node:fs');
const path = require('node:path');
const paths = require('../nodes/lib/core/paths');

const ROOT = path.join(__dirname, '..');
const PARTS = path.join(ROOT, 'flows', 'parts');

/**
 * Read a flow file, or [] when it is not there yet.
 * @param {string} file
 * @returns {object[]}
 */
function readFlows(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    if (err.code === 'ENOENT') return [];
    throw err;
  }
}

/** The assembled flow of a role (flows/<role>.json). */
const bundleFlows = (role) => readFlows(path.join(ROOT, 'flows', `${role}.json`));

/**
 * Flow parts joined, each config node once (the way scripts/build-flows.js joins them).
 * @param {string[]} names part names, e.g. ['cloud-ws', 'cloud-twin-ui']
 * @returns {object[]}
 */
function partFlows(names) {
  const seen = new Set();
  const out = [];
  for (const name of names) {
    for (const n of readFlows(path.join(PARTS, `${name}.json`))) {
      if (seen.has(n.id)) continue;
      seen.add(n.id);
      out.push(n);
    }
  }
  return out;
}

/** The id of a part's tab (null when the part has none or is missing). */
function partTab(name) {
  const tab = readFlows(path.join(PARTS, `${name}.json`)).find((n) => n.type === 'tab');
  return tab ? tab.id : null;
}

/**
 * Tab id → the paths that run on it (bundle paths and the link paths over them), from the table's flow tabs.
 * @returns {Map<string, Set<string>>}
 */
function tabPaths() {
  const out = new Map();
  for (const id of paths.ids().filter(paths.onBundleFlows)) {
    for (const names of Object.values(paths.get(id).tabs)) {
      for (const name of names) {
        const tab = partTab(name);
        if (!tab) continue;
        if (!out.has(tab)) out.set(tab, new Set());
        out.get(tab).add(id);
      }
    }
  }
  return out;
}

/**
 * The flows with the tabs of unwanted bundle paths disabled, as a user who runs one path would
 * disable the others in the editor: Node-RED starts none of their nodes, so a run of
 * `--protocols ws` is not measured beside Modbus and OPC UA poll loops that no twin uses (each
 * polls every 10 ms in the tuned profile), nor beside edge clients retrying a PLC interface that
 * was not started. A tab stays on while any wanted path runs on it; a tab of no path is left alone.
 * @param {object[]} flows
 * @param {Iterable<string>} want path ids to run
 * @returns {object[]} a copy; `disabledTabs` lists the labels of what was disabled
 */
function withPathsDisabled(flows, want) {
  want = new Set(want);
  const owners = tabPaths();
  const disabled = [];
  const out = flows.map((n) => {
    if (n.type !== 'tab' || !owners.has(n.id)) return n;
    if ([...owners.get(n.id)].some((p) => want.has(p))) return n;
    disabled.push(n.label || n.id);
    return { ...n, disabled: true };
  });
  out.disabledTabs = disabled;
  return out;
}

/**
 * A comparison stack's flows for one role (bench/flows/<flows>-<role>.json; [] when it has none).
 * @param {string} id a comparison path's id
 * @param {'cloud'|'edge'} role
 */
const comparisonFlows = (id, role) => readFlows(path.join(ROOT, 'bench', 'flows', `${paths.get(id).flows}-${role}.json`));

/**
 * Which protocol paths this checkout can run: a bundle path when the assembled flows hold each of
 * its tabs and its twin transport exists, a comparison stack when its cloud flow exists. The benchmark runs
 * what exists and reports the rest as not available instead of failing.
 * @returns {Object<string, boolean>} every path id of the table
 */
function availablePaths() {
  const tabs = new Set([...bundleFlows('cloud'), ...bundleFlows('edge')].filter((n) => n.type === 'tab').map((n) => n.id));
  const out = {};
  for (const id of paths.ids()) {
    const p = paths.get(id);
    if (paths.onBundleFlows(id)) {
      const all = Object.values(p.tabs).flat();
      out[id] = all.every((name) => tabs.has(partTab(name))) && fs.existsSync(path.join(ROOT, p.transport));
    } else {
      out[id] = fs.existsSync(path.join(ROOT, 'bench', 'flows', `${p.flows}-cloud.json`));
    }
  }
  return out;
}

/**
 * The Modbus nodes of the shipped flows that follow a table's register map: which block each
 * reads, decodes or writes (the demo plant's HR0 commands and HR1..4 states).
 */
const MODBUS_BLOCKS = {
  'mb.edge.get0': 'commands', 'mb.edge.codec0': 'commands', 'mb.edge.put0': 'commands',
  'mb.edge.get1': 'states', 'mb.edge.codec1': 'states', 'mb.edge.put1': 'states',
  'mb.cloud.get0': 'commands', 'mb.cloud.codec0': 'commands', 'mb.cloud.get1': 'states', 'mb.cloud.codec1': 'states',
};

/**
 * The flows with their Modbus reads, codecs and writes set to a table's commands and states
 * blocks (a write of several registers as one FC16 write), so the Modbus path carries any table,
 * as a user sets those nodes after `node scripts/modbus-map.js`.
 * @param {object[]} flows
 * @param {object} table a table (nodes/lib/core/io-table.js)
 * @returns {object[]} a copy
 */
function withModbusMap(flows, table) {
  const map = table.modbusMap;
  const out = flows.map((n) => {
    const which = MODBUS_BLOCKS[n.id] || MODBUS_BLOCKS[n.id.replace(/\.[^.]+$/, '')]; // plantTabs adds a suffix
    if (!which || !map[which]) return n;
    const { address, count } = map[which];
    if (n.type === 's7twin-modbus-codec') return { ...n, address: String(address), count: String(count) };
    const m = { ...n, adr: String(address), quantity: String(count) };
    if (n.type === 'modbus-write') m.dataType = count > 1 ? 'MHoldingRegisters' : 'HoldingRegister';
    return m;
  });
  out.disabledTabs = flows.disabledTabs;
  return out;
}

/**
 * Flow parts for another plant beside the first, in the same Node-RED: every id (tabs, nodes,
 * config nodes, wires, links to them) given `.<suffix>`, tab variables overridden (a port of its
 * own), an I/O table node holding the plant's table that every node with an I/O table property
 * takes, and the Modbus nodes set to the table's blocks.
 * @param {string[]} names flow parts (flows/parts/)
 * @param {{suffix: string, plant: string, table: object, env?: Object<string, string>}} o table: a
 *   table (its definition goes into the I/O table node); env: tab variable → value
 * @returns {object[]}
 */
function plantTabs(names, o) {
  const nodes = partFlows(names);
  const ids = new Set(nodes.map((n) => n.id));
  const rename = (id) => (typeof id === 'string' && ids.has(id) ? `${id}.${o.suffix}` : id);
  const tableId = `iotable.${o.suffix}`;
  const out = nodes.map((n) => {
    const m = JSON.parse(JSON.stringify(n));
    for (const [k, v] of Object.entries(m)) {
      if (k === 'wires') m.wires = v.map((port) => port.map(rename));
      else if (k === 'links' || k === 'scope') m[k] = Array.isArray(v) ? v.map(rename) : v;
      else if (typeof v === 'string') m[k] = rename(v);
    }
    if (m.type === 'tab' && Array.isArray(m.env)) {
      m.label = `${m.label} (${o.plant})`;
      m.env = m.env.map((e) => (o.env && Object.hasOwn(o.env, e.name) ? { name: e.name, type: 'str', value: String(o.env[e.name]) } : e));
    }
    if (Object.hasOwn(m, 'plant') && m.type !== 'tab') m.plant = o.plant;
    if (Object.hasOwn(m, 'table')) m.table = tableId;
    return m;
  });
  out.push({ id: tableId, type: 's7twin-io-table', name: o.plant, plants: o.plant, table: JSON.stringify(o.table.definition) });
  return withModbusMap(out, o.table);
}

module.exports = { readFlows, bundleFlows, partFlows, withPathsDisabled, comparisonFlows, availablePaths, withModbusMap, plantTabs, MODBUS_BLOCKS };
