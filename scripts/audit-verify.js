'use strict';
/**
 * Verify the cloud's command log: every entry's hash, the chain from the first entry on, and the
 * log's end against its head file (docs/history.md).
 *
 *   node scripts/audit-verify.js <log>                  chain + <log>.head
 *   node scripts/audit-verify.js <log> --head <n>:<hash> chain + a head you kept elsewhere
 *   node scripts/audit-verify.js <log> --no-head        the chain only (a copy without its head)
 *
 * Exit 0 and `ok: N entries …` when nothing was edited, removed or reordered; exit 1 with
 * `E_AUDIT_TAMPERED: line L …` naming the first bad line; exit 2 when the log cannot be read
 * (E_AUDIT_FILE) or the arguments are wrong.
 */
const fs = require('node:fs');
const readline = require('node:readline');
const { createVerifier } = require('../nodes/lib/history/audit-chain');

const USAGE = 'usage: node scripts/audit-verify.js <log> [--head <n>:<hash> | --no-head]';

/**
 * The head to compare the log's end with: given, read from `<log>.head`, or none.
 * @param {string} file
 * @param {string[]} args
 * @returns {{n: number, hash: string}|null|undefined} undefined: the arguments are wrong
 */
function headOf(file, args) {
  if (args.includes('--no-head')) return null;
  const i = args.indexOf('--head');
  if (i >= 0) {
    const m = /^(\d+):([0-9a-f]{64})$/.exec(args[i + 1] || '');
    return m ? { n: Number(m[1]), hash: m[2] } : undefined;
  }
  try { return JSON.parse(fs.readFileSync(`${file}.head`, 'utf8')); } catch { return null; }
}

/**
 * @param {string[]} argv the arguments after the script
 * @param {{out: (line: string) => void, err: (line: string) => void}} io
 * @returns {Promise<number>} the exit code
 */
async function main(argv, io) {
  const file = argv[0];
  const head = file ? headOf(file, argv.slice(1)) : undefined;
  if (!file || file.startsWith('--') || head === undefined) { io.err(USAGE); return 2; }
  const v = createVerifier();
  try {
    const stream = fs.createReadStream(file, { encoding: 'utf8' });
    await new Promise((resolve, reject) => { stream.once('open', resolve); stream.once('error', reject); });
    for await (const line of readline.createInterface({ input: stream, crlfDelay: Infinity })) {
      if (!v.line(line)) { stream.destroy(); break; }
    }
  } catch (err) {
    io.err(`E_AUDIT_FILE: ${file}: ${err.message}`);
    return 2;
  }
  const r = v.end(head || undefined);
  if (!r.ok) {
    io.err(`E_AUDIT_TAMPERED: line ${r.bad.line} ${r.bad.why}`);
    io.err(`  the chain holds up to entry ${r.tip.n}; what follows cannot be trusted`);
    return 1;
  }
  io.out(`ok: ${r.entries} entries, chain intact${head ? ', end matches the head' : ' (no head to compare the end with)'}; newest ${r.tip.n}:${r.tip.hash}`);
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2), { out: (l) => console.log(l), err: (l) => console.error(l) }).then((code) => { process.exitCode = code; });
}

module.exports = { main, headOf };
