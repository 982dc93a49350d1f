'use strict';
/**
 * Preloaded into every process of a system under k6 (`NODE_OPTIONS="--require
 * ./bench/k6/stalls.js"`): appends each event loop stall and each garbage collection pause over
 * a limit to one file, with its time (UTC) and the process's role, so that the windows of slow
 * probes bench/k6/clusters.js finds can be set beside what each process was doing then.
 *
 *   S7T_STALL_LOG=/tmp/stalls.log S7T_STALL_MS=20 NODE_OPTIONS="--require $PWD/bench/k6/stalls.js" node scripts/start-all.js
 *
 * A line: `<time> <role> loop <ms>` (the longest delay of the event loop within the last 250 ms,
 * measured at 1 ms resolution) or `<time> <role> gc <minor|major|incremental|weakcb> <ms>`. The
 * role is S7T_ROLE (cloud, edge) or the script's name (the virtual PLC's plc/cli.js). Nothing is
 * done unless S7T_STALL_LOG is set; the lines are written once a second, not as they happen.
 */
const fs = require('node:fs');
const { monitorEventLoopDelay, PerformanceObserver, performance, constants } = require('node:perf_hooks');

const FILE = process.env.S7T_STALL_LOG;
const LIMIT_MS = Number(process.env.S7T_STALL_MS) > 0 ? Number(process.env.S7T_STALL_MS) : 20;
const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

if (FILE) {
  const role = process.env.S7T_ROLE || (process.argv[1] || 'node').split('/').slice(-2).join('/');
  const lines = [];
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const watch = setInterval(() => {
    const ms = delay.max / 1e6;
    if (ms > LIMIT_MS) lines.push(`${new Date().toISOString()} ${role} loop ${ms.toFixed(1)}`);
    delay.reset();
  }, 250);
  watch.unref();
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.duration <= LIMIT_MS) continue;
      const at = new Date(performance.timeOrigin + e.startTime).toISOString();
      lines.push(`${at} ${role} gc ${KINDS[e.detail && e.detail.kind] || 'other'} ${e.duration.toFixed(1)}`);
    }
  }).observe({ entryTypes: ['gc'] });
  const flush = () => { if (lines.length) fs.appendFileSync(FILE, `${lines.splice(0).join('\n')}\n`); };
  setInterval(flush, 1000).unref();
  process.on('exit', flush);
}
