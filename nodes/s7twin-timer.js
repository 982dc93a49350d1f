'use strict';
/**
 * s7twin-timer: the core of the `s7twin-flow-timer` subflow (usable on its own too). Starts and
 * stops round-trip timers by id from envelopes or msg.timer, logs every round trip to a CSV file
 * (buffered, asynchronous), and emits running statistics on an interval. The logic lives in
 * nodes/lib/timer/flow-timer.js; this file only wires it to Node-RED.
 */
const path = require('node:path');
const { createFlowTimer, csvLine, CSV_HEADER, DEFAULTS } = require('./lib/timer/flow-timer');
const { processTable } = require('./lib/core/io-table');
const { tableFor } = require('./lib/core/table/config');
const { createCsvAppender } = require('./lib/timer/csv-appender');
const { closeWithin } = require('./lib/runtime/close-guard');
const { prop } = require('./lib/core/props');

const STATUS_MIN_MS = 1000; // status text refreshed at most once a second
const DEFAULT_STATS_INTERVAL_S = 10;
const MIN_SWEEP_MS = 50; // expiry checked at least this often when the timeout is short
const MAX_SWEEP_MS = 250;

/**
 * Where the CSV goes: the configured file, else `${S7T_TIMER_DIR or ./results}/flow-timer-<protocol>.csv`.
 * @param {string} csvFile
 * @param {string} protocol
 */
function csvPath(csvFile, protocol) {
  if (csvFile) return path.resolve(csvFile);
  const dir = process.env.S7T_TIMER_DIR || './results';
  const safe = (protocol || 'timer').replace(/[^A-Za-z0-9_.-]/g, '_');
  return path.resolve(dir, `flow-timer-${safe}.csv`);
}

module.exports = function register(RED) {
  function S7TwinTimerNode(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    const protocol = prop(config.protocol) || 'timer';
    const timeoutMs = Number(prop(config.timeoutMs)) > 0 ? Number(prop(config.timeoutMs)) : DEFAULTS.timeoutMs;
    const statsS = Number(prop(config.statsIntervalS)) > 0 ? Number(prop(config.statsIntervalS)) : DEFAULT_STATS_INTERVAL_S;
    const file = csvPath(prop(config.csvFile), protocol);

    // Which outputs are timed, after which input: the plant's table's timed pairs (the I/O table
    // node given, else S7T_IO_TABLE's, else the demo plant's five).
    let table;
    try {
      table = tableFor((id) => RED.nodes.getNode(id), config.table, processTable);
    } catch (err) {
      node.status({ fill: 'red', shape: 'dot', text: 'I/O table refused' });
      node.error(`${err.code || 'E_TABLE'}: ${err.message}`);
      node.on('input', (msg, send, done) => done(err));
      return;
    }
    const timer = createFlowTimer({ protocol, timeoutMs, table });
    let csvErrorLogged = false;
    const csv = createCsvAppender(file, {
      header: CSV_HEADER,
      onError(err) {
        // One warning, not one per flush: a full disk must not flood the log.
        if (!csvErrorLogged) { csvErrorLogged = true; node.warn(`cannot write ${file}: ${err.message}`); }
      },
    });

    let lastStatusText = '';
    let lastStatusAt = 0;
    let statusDirty = false;
    function showStatus(force) {
      const t = Date.now();
      if (!force && t - lastStatusAt < STATUS_MIN_MS) { statusDirty = true; return; }
      const s = timer.brief(); // not stats(): that summarises every variable, a thousand under load
      const text = s.n ? `n=${s.n} mean=${s.mean.toFixed(1)}ms p99=${s.p99.toFixed(1)}ms${s.expired ? ` expired=${s.expired}` : ''}`
        : `n=0${s.expired ? ` expired=${s.expired}` : ''}`;
      statusDirty = false;
      lastStatusAt = t;
      if (text === lastStatusText) return;
      lastStatusText = text;
      node.status({ fill: s.expired ? 'yellow' : 'green', shape: 'dot', text });
    }
    showStatus(true);

    const sweepMs = Math.max(MIN_SWEEP_MS, Math.min(MAX_SWEEP_MS, timeoutMs / 4));
    const sweeper = setInterval(() => {
      if (timer.sweep().length) statusDirty = true;
      if (statusDirty) showStatus(false);
    }, sweepMs);
    let statsBusy = false;
    let closing = false;
    const statsTimer = setInterval(() => {
      if (statsBusy) return;
      statsBusy = true;
      timer.statsAsync().then((payload) => {
        statsBusy = false;
        if (!closing) node.send([null, { payload, topic: `flow-timer/${protocol}` }]);
      }, (err) => { statsBusy = false; node.error(err); });
    }, statsS * 1000);

    node.on('input', (msg, send, done) => {
      let out;
      try {
        out = timer.handle(msg);
      } catch (err) {
        done(err);
        return;
      }
      if (out.results.length) {
        const wall = Date.now();
        const msgs = out.results.map((r) => {
          csv.write(csvLine(r, wall));
          return { payload: r, topic: `flow-timer/${protocol}/${r.variable}` };
        });
        send([msgs, null]);
        showStatus(false);
      }
      done();
    });

    node.on('close', (removed, done) => {
      closing = true;
      clearInterval(sweeper);
      clearInterval(statsTimer);
      timer.clear();
      node.status({});
      // Flush what is buffered; reach done even if the disk fails, well inside the 15 s limit.
      closeWithin(node, done, { ms: 5000, what: 'flow-timer CSV close', work: () => csv.close() });
    });
  }

  RED.nodes.registerType('s7twin-timer', S7TwinTimerNode);
};

module.exports.csvPath = csvPath;
