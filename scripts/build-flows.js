'use strict';
/**
 * Assemble the deployable flows from their parts: every `flows/parts/<role>-*.json` (one tab per
 * protocol path, each owned and tested on its own) is joined into `flows/<role>.json`, and the
 * same flow into `examples/s7twin-full-<role>.json` (Import → Examples in the editor).
 * Ids must be unique across the parts of a role; config nodes a part shares with another are
 * written once per part with the same id and content, and kept once.
 *
 * The study's stock replicas (the replica paths of nodes/lib/core/paths.js: bench/flows/<name>-cloud.json
 * and <name>-edge.json, the benchmark's rows <name>) are joined the same way into one importable
 * example each, examples/s7twin-<name>.json: cloud tab and edge tab, as the benchmark deploys them.
 * A part no protocol path of that table runs on is named in a note: the launcher never disables
 * its tab, and the benchmark never measures it.
 *
 *   node scripts/build-flows.js                write the flows and the examples
 *   node scripts/build-flows.js --check        exit 1 if any of them is not what the parts make
 *   node scripts/build-flows.js --split FILE   the other way: a flow deployed from the editor
 *                                              (e.g. .node-red-cloud/flows.json) back into the
 *                                              parts, one per tab, then build
 *
 * --split keeps each part's order of nodes and of properties where the deployed flow has the same
 * nodes (Node-RED reorders both), adds new nodes at the end of their tab's part, writes a new tab
 * to a new part (`<role>-<tab label>.json`) and removes the part of a tab that is gone. A config
 * node goes into every part that uses it.
 */
const fs = require('node:fs');
const path = require('node:path');
const paths = require('../nodes/lib/core/paths');

const DIR = path.join(__dirname, '..', 'flows');
const STOCK_DIR = path.join(__dirname, '..', 'bench', 'flows');
const EXAMPLES = path.join(__dirname, '..', 'examples');
const ROLES = ['cloud', 'edge'];

/** The files a role's flow is written to: the deployable flow and its example. */
function outputs(role) {
  return [path.join(DIR, `${role}.json`), path.join(EXAMPLES, `s7twin-full-${role}.json`)];
}

/**
 * The stock replicas' example flows: name → the joined cloud and edge flows.
 * @returns {Map<string, object[]>} e.g. 'stock-opcua' → [...]
 */
function buildStockExamples() {
  const out = new Map();
  for (const name of paths.comparisons().map((id) => paths.get(id).flows).sort()) {
    const read = (role) => {
      const file = path.join(STOCK_DIR, `${name}-${role}.json`);
      return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : [];
    };
    out.set(name, [...read('cloud'), ...read('edge')]);
  }
  return out;
}

/**
 * Join the parts of one role.
 * @param {string} role edge | cloud
 * @returns {object[]} the flow
 */
function build(role) {
  const parts = fs.readdirSync(path.join(DIR, 'parts')).filter((f) => f.startsWith(`${role}-`) && f.endsWith('.json')).sort();
  const out = [];
  const seen = new Map();
  for (const file of parts) {
    const nodes = JSON.parse(fs.readFileSync(path.join(DIR, 'parts', file), 'utf8'));
    for (const n of nodes) {
      const prev = seen.get(n.id);
      if (prev) {
        if (JSON.stringify(prev.node) !== JSON.stringify(n)) throw new Error(`id ${n.id} differs between ${prev.file} and ${file}`);
        continue;
      }
      seen.set(n.id, { node: n, file });
      out.push(n);
    }
  }
  return out;
}

/** Properties every flow-timer instance must carry (Node-RED 5 reads each one from the node). */
const TIMER_PROPS = ['PROTOCOL', 'CSV_FILE', 'TIMEOUT_MS', 'STATS_INTERVAL_S'];

/**
 * Check what Node-RED would only report at deploy time, in a way nobody sees in the editor.
 * Node-RED 5 builds a subflow module instance's settings from top-level node properties and
 * fails ("Cannot read properties of undefined (reading 'type')") when one is missing, so every
 * s7twin-flow-timer instance must set all four (the editor always does; hand-written JSON may not).
 * @param {object[]} flow
 * @returns {string[]} problems, empty when fine
 */
function lint(flow) {
  const problems = [];
  for (const n of flow) {
    if (n.type !== 's7twin-flow-timer') continue;
    const missing = TIMER_PROPS.filter((p) => n[p] === undefined);
    if (missing.length) problems.push(`flow-timer ${n.id} lacks ${missing.join(', ')}`);
  }
  return problems;
}

/**
 * A flow file's layout: JSON indented by n spaces, or one node per line (some examples).
 * @param {string} text
 * @returns {{indent?: number, oneLine?: boolean}}
 */
function styleOf(text) {
  const second = text.split('\n')[1] || '';
  if (/^\s*\{ ".*\}\s*,?$/.test(second)) return { oneLine: true };
  return { indent: second.match(/^ */)[0].length || 2 };
}

/** JSON of a value on one line, with a space after every `:` and `,` and inside `{ }`. */
function oneLine(v) {
  if (Array.isArray(v)) return `[${v.map(oneLine).join(', ')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v);
    return entries.length ? `{ ${entries.map(([k, x]) => `${JSON.stringify(k)}: ${oneLine(x)}`).join(', ')} }` : '{}';
  }
  return JSON.stringify(v);
}

/**
 * A flow as file text, in the given style.
 * @param {object[]} flow
 * @param {{indent?: number, oneLine?: boolean}} style
 */
function formatFlow(flow, style) {
  if (style.oneLine) return `[\n${flow.map((n) => `  ${oneLine(n)}`).join(',\n')}\n]\n`;
  return `${JSON.stringify(flow, null, style.indent)}\n`;
}

/** Ids of the nodes a node refers to: any string property (nested too) that is a node id. */
function references(node, ids) {
  const out = new Set();
  const walk = (v, key) => {
    if (typeof v === 'string') { if (ids.has(v) && key !== 'id') out.add(v); } else if (Array.isArray(v)) v.forEach((x) => walk(x, key));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) if (k !== 'wires') walk(x, k);
  };
  walk(node, '');
  if (node.type && node.type.startsWith('subflow:')) out.add(node.type.slice(8));
  return out;
}

/**
 * A value with the keys of its objects in the order `old` has them (nested too: a tab's or a
 * subflow instance's env entries), keys `old` lacks after them. Node-RED reorders properties on
 * deploy; a part should change only where the flow did.
 * @param {*} old
 * @param {*} v
 */
function inOrderOf(old, v) {
  if (Array.isArray(v)) return v.map((x, i) => (Array.isArray(old) && i < old.length ? inOrderOf(old[i], x) : x));
  if (!v || typeof v !== 'object' || !old || typeof old !== 'object' || Array.isArray(old)) return v;
  const out = {};
  for (const k of Object.keys(old)) if (k in v) out[k] = inOrderOf(old[k], v[k]);
  for (const k of Object.keys(v)) if (!(k in out)) out[k] = v[k];
  return out;
}

/**
 * Split a deployed flow of one role into its parts (see the top of this file).
 * @param {object[]} flow the deployed flow
 * @param {string} role
 * @param {string} [partsDir]
 * @returns {{write: Map<string, string>, remove: string[]}} part file → text, and part files to delete
 */
function split(flow, role, partsDir = path.join(DIR, 'parts')) {
  const existing = fs.readdirSync(partsDir).filter((f) => f.startsWith(`${role}-`) && f.endsWith('.json')).sort().map((f) => {
    const text = fs.readFileSync(path.join(partsDir, f), 'utf8');
    const nodes = JSON.parse(text);
    const tab = nodes.find((n) => n.type === 'tab');
    return { file: f, style: styleOf(text), nodes, tabId: tab && tab.id };
  });
  const byId = new Map(flow.map((n) => [n.id, n]));
  const shared = flow.filter((n) => n.type !== 'tab' && (!n.z || !byId.has(n.z) || byId.get(n.z).type === 'subflow'));
  const sharedIds = new Set(shared.map((n) => n.id));
  const slug = (label) => String(label || 'tab').toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'tab';
  const write = new Map();
  const used = new Set();
  for (const tab of flow.filter((n) => n.type === 'tab')) {
    let part = existing.find((p) => p.tabId === tab.id);
    if (!part) {
      let file = `${role}-${slug(tab.label)}.json`;
      for (let i = 2; existing.some((p) => p.file === file) || write.has(file); i++) file = `${role}-${slug(tab.label)}-${i}.json`;
      part = { file, style: { indent: 2 }, nodes: [] };
    }
    used.add(part.file);
    // The tab, its nodes, and every shared node (config, subflow) they use, directly or not.
    const members = [tab, ...flow.filter((n) => n.z === tab.id)];
    const need = new Set();
    const queue = [...members];
    while (queue.length) {
      for (const id of references(queue.pop(), sharedIds)) {
        if (need.has(id)) continue;
        need.add(id);
        queue.push(byId.get(id), ...flow.filter((n) => n.z === id));
        for (const n of flow.filter((x) => x.z === id)) need.add(n.id);
      }
    }
    // A shared node nothing uses stays where it was.
    for (const n of shared) if (!need.has(n.id) && part.nodes.some((o) => o.id === n.id)) need.add(n.id);
    const chosen = [...members, ...flow.filter((n) => need.has(n.id))];
    // The part's own order of nodes and of properties, new ones after.
    const oldIndex = new Map(part.nodes.map((n, i) => [n.id, i]));
    const flowIndex = new Map(flow.map((n, i) => [n.id, i]));
    // New nodes: the tab, then its nodes, then what they use, each in the deployed flow's order.
    const rank = (n) => (oldIndex.has(n.id) ? oldIndex.get(n.id)
      : 1e9 + (n.type === 'tab' ? 0 : sharedIds.has(n.id) ? 2e6 : 1e6) + flowIndex.get(n.id));
    chosen.sort((a, b) => rank(a) - rank(b));
    const nodes = chosen.map((n) => {
      const old = part.nodes.find((o) => o.id === n.id);
      return old ? inOrderOf(old, n) : n;
    });
    write.set(part.file, formatFlow(nodes, part.style));
  }
  return { write, remove: existing.filter((p) => !used.has(p.file)).map((p) => p.file) };
}

/**
 * The parts of flows/parts/ that no protocol path of nodes/lib/core/paths.js runs on.
 * @returns {string[]} part names
 */
function partsOfNoPath() {
  const known = new Set(paths.bundle().flatMap((id) => Object.values(paths.get(id).tabs).flat()));
  return fs.readdirSync(path.join(DIR, 'parts')).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).filter((n) => !known.has(n)).sort();
}

/** The role a deployed flow belongs to: the one whose parts hold most of its tabs. */
function roleOf(flow) {
  const tabs = new Set(flow.filter((n) => n.type === 'tab').map((n) => n.id));
  let best = null;
  let most = 0;
  for (const role of ROLES) {
    const n = build(role).filter((x) => x.type === 'tab' && tabs.has(x.id)).length;
    if (n > most) { most = n; best = role; }
  }
  if (!best) throw new Error('none of the flow\'s tabs is a tab of flows/parts/: give the role with --role cloud|edge');
  return best;
}

function main() {
  const args = process.argv.slice(2);
  const check = args.includes('--check');
  const splitAt = args.indexOf('--split');
  if (splitAt >= 0) {
    const file = args[splitAt + 1];
    if (!file) throw new Error('--split needs the deployed flow file (e.g. .node-red-cloud/flows.json)');
    const data = JSON.parse(fs.readFileSync(file, 'utf8'));
    const flow = Array.isArray(data) ? data : data.flows;
    const roleAt = args.indexOf('--role');
    const role = roleAt >= 0 ? args[roleAt + 1] : roleOf(flow);
    const { write, remove } = split(flow, role);
    for (const [f, text] of write) {
      const target = path.join(DIR, 'parts', f);
      if (!fs.existsSync(target) || fs.readFileSync(target, 'utf8') !== text) {
        fs.writeFileSync(target, text);
        console.log(`wrote flows/parts/${f}`);
      }
    }
    for (const f of remove) { fs.unlinkSync(path.join(DIR, 'parts', f)); console.log(`removed flows/parts/${f} (its tab is gone)`); }
  }
  let stale = false;
  // The two flows (and their examples), then the stock replicas' examples.
  const targets = [
    ...ROLES.map((role) => [role, build(role), outputs(role)]),
    ...[...buildStockExamples()].map(([name, flow]) => [name, flow, [path.join(EXAMPLES, `s7twin-${name}.json`)]]),
  ];
  for (const [label, flow, files] of targets) {
    const problems = lint(flow);
    if (problems.length) throw new Error(`${label} flow: ${problems.join('; ')}`);
    const text = `${JSON.stringify(flow, null, 2)}\n`;
    for (const file of files) {
      const cur = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
      if (check) {
        if (cur !== text) { console.error(`${file} is stale: run node scripts/build-flows.js`); stale = true; }
      } else if (cur !== text) {
        fs.writeFileSync(file, text);
        console.log(`wrote ${path.relative(process.cwd(), file)}`);
      }
    }
  }
  for (const n of partsOfNoPath()) {
    console.log(`note: flows/parts/${n}.json is on no protocol path of nodes/lib/core/paths.js (docs/protocol-paths.md): the launcher never disables its tab`);
  }
  if (stale) process.exit(1);
}

if (require.main === module) main();
module.exports = { build, buildStockExamples, partsOfNoPath, lint, split, outputs, formatFlow, styleOf };
