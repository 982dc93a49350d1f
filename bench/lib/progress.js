'use strict';
/**
 * Progress of a long run: what runs, how far, time left. A cli-progress bar on a terminal; on
 * anything else (CI logs, the smoke test) one plain line per phase, so logs stay readable.
 */
const cliProgress = require('cli-progress');

/**
 * @param {number} total weighted steps of the whole run
 * @param {{log:(line:string)=>void, stream?:object}} opts
 */
function createProgress(total, opts) {
  const stream = opts.stream || process.stderr;
  const tty = Boolean(stream.isTTY);
  let bar = null;
  let value = 0;
  const t0 = Date.now();
  if (tty) {
    bar = new cliProgress.SingleBar({
      stream,
      format: '{bar} {percentage}% | {value}/{total} steps | elapsed {duration_formatted} | left ~{eta_formatted} | {phase}',
      etaBuffer: 50,
      hideCursor: true,
      clearOnComplete: false,
    }, cliProgress.Presets.shades_classic);
    bar.start(total, 0, { phase: 'starting' });
  }
  return {
    phase(text) {
      if (bar) bar.update(value, { phase: text });
      else {
        const pct = Math.min(100, Math.round((100 * value) / total));
        const el = (Date.now() - t0) / 1000;
        const left = value > 0 ? Math.round((el * (total - value)) / value) : '?';
        opts.log(`[bench ${pct}% ${Math.round(el)}s, ~${left}s left] ${text}`);
      }
    },
    tick(n = 1) {
      value = Math.min(total, value + n);
      if (bar) bar.update(value);
    },
    log(line) {
      if (bar) bar.update(value, { phase: line });
      else opts.log(`  ${line}`);
    },
    stop() { if (bar) bar.stop(); bar = null; },
  };
}

module.exports = { createProgress };
