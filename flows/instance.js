'use strict';
/**
 * Where a Node-RED instance of this repository keeps its flow: its own copy in its user directory
 * (`<userDir>/flows.json`), seeded from the shipped flow (`flows/<role>.json`, built from
 * flows/parts/ by scripts/build-flows.js). A deploy from the editor writes the copy, never the
 * checkout; `node scripts/build-flows.js --split <copy>` brings an edit back into flows/parts/.
 *
 * Updates: the copy remembers which shipped flow it was made from (a hash of its content, in
 * `<userDir>/.s7twin-flows.json`). When the shipped flow changes (a `git pull`, a new image), a copy
 * nobody edited is replaced by the new one; an edited copy is kept, and the instance says how to
 * take the new flow or keep the edits. Contents are compared as Node-RED sees them (nodes by id,
 * properties in any order), so a deploy that changed nothing does not count as an edit.
 *
 * Used by settings.js; never touches RED.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const STAMP = '.s7twin-flows.json';

/**
 * A hash of a flow's content that ignores the order of its nodes and of their properties.
 * @param {string} text flow JSON
 * @returns {string}
 */
function flowHash(text) {
  const flow = JSON.parse(text);
  const nodes = (Array.isArray(flow) ? flow : flow.flows || []).slice().sort((a, b) => String(a.id).localeCompare(String(b.id)));
  const canonical = JSON.stringify(nodes, (k, v) => (v && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.keys(v).sort().map((key) => [key, v[key]])) : v));
  return crypto.createHash('sha256').update(canonical).digest('hex');
}

/**
 * Make sure the instance's own flow file exists and is up to date with the shipped flow, as
 * described above; return its path.
 * @param {object} opts
 * @param {string} opts.shipped the shipped flow file (flows/<role>.json)
 * @param {string} opts.userDir the instance's user directory
 * @param {(line: string) => void} [opts.log] where to say what was done (default console.log)
 * @returns {{file: string, action: 'seeded'|'kept'|'updated'|'kept-edited'}}
 */
function instanceFlows({ shipped, userDir, log = (line) => console.log(line) }) {
  const file = path.join(userDir, 'flows.json');
  const stampFile = path.join(userDir, STAMP);
  const shippedText = fs.readFileSync(shipped, 'utf8');
  const shippedHash = flowHash(shippedText);
  const seed = () => {
    fs.mkdirSync(userDir, { recursive: true });
    fs.writeFileSync(file, shippedText);
    fs.writeFileSync(stampFile, `${JSON.stringify({ shipped: path.basename(shipped), hash: shippedHash }, null, 2)}\n`);
  };

  if (!fs.existsSync(file)) {
    seed();
    log(`[s7twin] flows: ${file} copied from ${shipped}`);
    return { file, action: 'seeded' };
  }
  let stamp = {};
  try { stamp = JSON.parse(fs.readFileSync(stampFile, 'utf8')); } catch { /* no stamp: a copy of unknown origin */ }
  if (stamp.hash === shippedHash) return { file, action: 'kept' };

  let copyHash = null;
  try { copyHash = flowHash(fs.readFileSync(file, 'utf8')); } catch { /* unreadable: keep it, say so below */ }
  if (copyHash === shippedHash || (stamp.hash && copyHash === stamp.hash)) {
    // Already the shipped flow, or unedited since it was copied: take the shipped one.
    seed();
    if (copyHash !== shippedHash) log(`[s7twin] flows: ${file} updated from ${shipped} (it had no edits of its own)`);
    return { file, action: copyHash === shippedHash ? 'kept' : 'updated' };
  }
  log(`[s7twin] flows: ${shipped} has changed since ${file} was copied from it, and the copy has edits: running the copy.`
    + ` To keep the edits in the repository: node scripts/build-flows.js --split ${file}.`
    + ` To run the shipped flow instead: move ${file} aside and restart.`);
  return { file, action: 'kept-edited' };
}

module.exports = { instanceFlows, flowHash, STAMP };
