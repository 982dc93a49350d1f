// Each window of slow probes of a k6 run (bench/k6/clusters.js output) beside the full
// collections (Mark-Compact) of every process that started within 300 ms before it or during it,
// from V8's --trace-gc lines (tracegc.js) and each process's clock origin.
//   node gc-bursts.js DIR      (DIR: gc-trace.log, origin-*.txt, *.clusters.txt)
const fs = require('node:fs');
const path = require('node:path');

const dir = process.argv[2] || __dirname;
const origin = {};
for (const f of fs.readdirSync(dir).filter((x) => x.startsWith('origin-'))) {
  const m = /^(\S+) pid (\d+) timeOrigin ([\d.]+)/.exec(fs.readFileSync(path.join(dir, f), 'utf8'));
  if (m) origin[m[2]] = { role: m[1], t: Number(m[3]) };
}
const fulls = [];
for (const line of fs.readFileSync(path.join(dir, 'gc-trace.log'), 'utf8').split('\n')) {
  const m = /\[(\d+):0x[0-9a-f]+\]\s+(\d+) ms: (Mark-Compact\S*(?: \(\w+\))?) ([\d.]+) \(([\d.]+)\) -> ([\d.]+) .*?MB, ([\d.]+) \/ [\d.]+ ms\s+\(\+ ([\d.]+) ms in .*?walltime since start of marking (\d+) ms/.exec(line);
  if (!m || !origin[m[1]]) continue;
  const end = origin[m[1]].t + Number(m[2]);
  fulls.push({ role: origin[m[1]].role, end, start: end - Number(m[9]), text: `${m[3]} ${m[4]} -> ${m[6]} MB, pause ${m[7]} ms + ${m[8]} ms of marking steps over ${m[9]} ms` });
}
for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.clusters.txt'))) {
  console.log(`== ${f}`);
  for (const line of fs.readFileSync(path.join(dir, f), 'utf8').trim().split('\n').slice(1)) {
    const at = Date.parse(line.split(/\s+/)[0]);
    const near = fulls.filter((g) => g.end >= at - 300 && g.start <= at + 250);
    console.log(`${line}\n${near.length ? near.map((g) => `    ${new Date(g.end).toISOString()} ${g.role}: ${g.text}`).join('\n') : '    (no full collection)'}`);
  }
}
