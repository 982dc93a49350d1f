'use strict';
/**
 * What the flow-timer's statistics cost with many timed variables (docs/flow-timer.md): a load
 * test times each twin's probe slot as its own variable, so a cloud under 1,000 twins keeps 1,000
 * per-variable windows.
 *
 *   node bench/flow-timer-stats.js [--vars 1000] [--samples 40,2000]
 *
 *   stats()       the whole table in one piece (what a caller that needs it synchronously pays)
 *   statsAsync()  the same table in 2 ms slices (what the node emits every STATS_INTERVAL_S):
 *                 total time and the longest the event loop waited meanwhile
 *   brief()       what the status line needs (overall n, mean, p99), refreshed once a second
 *
 * The library alone, in this process: no Node-RED, no sockets. Compare runs on one machine.
 */
const { parseArgs } = require('node:util');
const { performance } = require('node:perf_hooks');
const { createFlowTimer } = require('../nodes/lib/timer/flow-timer');

const { values: args } = parseArgs({
  options: { vars: { type: 'string', default: '1000' }, samples: { type: 'string', default: '40,2000' } },
});
const vars = Number(args.vars);
const levels = args.samples.split(',').map(Number);

function timed(fn, reps = 5) {
  const ms = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    fn();
    ms.push(performance.now() - t0);
  }
  return ms.sort((a, b) => a - b)[Math.floor(reps / 2)]; // median of the repeats
}

async function longestWait(promiseFn) {
  let longest = 0;
  let last = performance.now();
  const probe = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  const t0 = performance.now();
  await promiseFn();
  const total = performance.now() - t0;
  clearInterval(probe);
  return { total, longest: Math.max(longest, performance.now() - last) };
}

async function main() {
  let clock = 0;
  const ft = createFlowTimer({ now: () => clock });
  let done = 0;
  console.log(`flow-timer statistics with ${vars} variables (median of 5 runs, ms)`);
  console.log('samples/var | stats() | statsAsync() total | longest loop wait | brief()');
  for (const per of levels) {
    for (; done < per; done++) {
      for (let s = 0; s < vars; s++) ft.envelope({ k: 'probe', d: { [s]: done } });
      clock += 20 + (done % 13);
      for (let s = 0; s < vars; s++) ft.envelope({ k: 'probe-res', d: { [s]: done } });
    }
    const sync = timed(() => ft.stats());
    const sliced = await longestWait(() => ft.statsAsync());
    const brief = timed(() => ft.brief());
    console.log(`${String(per).padStart(11)} | ${sync.toFixed(1).padStart(7)} | ${sliced.total.toFixed(1).padStart(18)} | ` +
      `${sliced.longest.toFixed(1).padStart(17)} | ${brief.toFixed(2).padStart(7)}`);
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
