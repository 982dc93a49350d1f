'use strict';
/**
 * Assemble the deployable flows from their parts: every `flows/parts/<role>-*.json` (one tab per
 * protocol path, each owned and tested on its own) is joined into `flows/<role>.json`.
 * Ids must be unique across the parts of a role; config nodes a part shares with another are
 * written once per part with the same id and content, and kept once.
 *
 * The study's stock replicas (bench/flows/<name>-cloud.json and <name>-edge.json, the benchmark's
 * rows <name>) are joined the same way into one importable example each,
 * examples/s7twin-<name>.json: cloud tab and edge tab, as the benchmark deploys them.
 *
 *   node scripts/build-flows.js          write flows/cloud.json, flows/edge.json and the stock examples
 *   node scripts/build-flows.js --check  exit 1 if any of them is not what its parts make
 */
const fs = require('node:fs');
const path = require('node:path');

const DIR = path.join(__dirname, '..', 'flows');
const STOCK_DIR = path.join(__dirname, '..', 'bench', 'flows');
const EXAMPLES = path.join(__dirname, '..', 'examples');

/**
 * The stock replicas' example flows: name → the joined cloud and edge flows.
 * @returns {Map<string, object[]>} e.g. 'stock-opcua' → [...]
 */
function buildStockExamples() {
  const out = new Map();
  for (const f of fs.readdirSync(STOCK_DIR).filter((x) => x.endsWith('-cloud.json')).sort()) {
    const name = f.slice(0, -'-cloud.json'.length);
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

function main() {
  const check = process.argv.includes('--check');
  let stale = false;
  const outputs = [
    ...['cloud', 'edge'].map((role) => [role, build(role), path.join(DIR, `${role}.json`)]),
    ...[...buildStockExamples()].map(([name, flow]) => [name, flow, path.join(EXAMPLES, `s7twin-${name}.json`)]),
  ];
  for (const [role, flow, file] of outputs) {
    const problems = lint(flow);
    if (problems.length) throw new Error(`${role} flow: ${problems.join('; ')}`);
    const text = `${JSON.stringify(flow, null, 2)}\n`;
    if (check) {
      const cur = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
      if (cur !== text) { console.error(`${file} is stale: run node scripts/build-flows.js`); stale = true; }
    } else {
      fs.writeFileSync(file, text);
      console.log(`wrote ${path.relative(process.cwd(), file)}`);
    }
  }
  if (stale) process.exit(1);
}

if (require.main === module) main();
module.exports = { build, buildStockExamples, lint };
