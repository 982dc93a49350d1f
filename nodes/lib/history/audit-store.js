'use strict';
/**
 * The command log of one Node-RED runtime: where its file is, and one writer and recorder per file
 * for the whole process (lib/history/audit-log.js, lib/history/command-audit.js), shared by every
 * node that takes commands (the link endpoints, the REST nodes, the MQTT broker, the OPC UA and
 * Modbus servers).
 *
 * A log stays open for as long as the process runs, across redeploys: a writer closed by one
 * deploy and opened by the next could overlap, and two writers on one file would fork its chain.
 *
 * In a fleet (S7T_REDIS_URL set) each instance keeps its own chain file as ever, and copies it to
 * Redis (lib/history/audit-share.js) so that every instance can read the whole fleet's commands
 * (lib/history/audit-fleet.js).
 *
 * Plain module; the nodes pass their runtime's settings and log.
 */
const os = require('node:os');
const path = require('node:path');
const { createAuditLog } = require('./audit-log');
const { createCommandAudit } = require('./command-audit');
const { createAuditShare } = require('./audit-share');
const { queryCommands } = require('./audit-query');
const { queryFleetCommands } = require('./audit-fleet');
const clock = require('../core/clock');
const registry = require('../runtime/registry');

const FILE_NAME = 's7twin-audit.jsonl';
const FLUSH_WAIT_MS = 1000; // a query waits this long at most for entries still on their way to disk
const stores = new Map(); // absolute file -> {log, recorder, file}

/**
 * Where the command log is: S7T_AUDIT_FILE, else the settings' `s7twin.auditFile` (relative to the
 * user directory), else `s7twin-audit.jsonl` in Node-RED's user directory. A runtime that names
 * no user directory (a test harness; Node-RED itself always has one) logs into a folder of the
 * system's temporary directory, never into the working directory.
 * @param {{userDir?: string, s7twin?: {auditFile?: string}}} [settings] RED.settings
 * @param {object} [env]
 * @returns {string} an absolute path
 */
function auditFile(settings = {}, env = process.env) {
  const dir = settings.userDir || path.join(os.tmpdir(), `s7twin-${process.pid}`);
  const configured = env.S7T_AUDIT_FILE || (settings.s7twin && settings.s7twin.auditFile);
  return path.resolve(dir, configured || FILE_NAME);
}

/**
 * The runtime's log at `file` (opened on first use).
 * @param {string} file absolute
 * @param {{warn?: (text: string) => void, redisUrl?: string}} [o] where a failing write is reported
 *   (the first caller's; once per run of failures); the fleet's Redis, where the log is copied
 * @returns {{file: string, log: object, recorder: object, share: object|null, counters(): object}}
 */
function auditStore(file, o = {}) {
  let s = stores.get(file);
  if (s) return s;
  const warn = o.warn || (() => {});
  let share = null;
  const log = createAuditLog({
    file,
    now: clock.now,
    onError: (err) => warn(`E_AUDIT_WRITE: command log ${file}: ${err.message} (commands go on; entries wait and are retried)`),
    onWritten: () => { if (share) share.poke(); },
  });
  if (o.redisUrl) {
    share = createAuditShare({
      file,
      url: o.redisUrl,
      onError: (err) => warn(err.code === 'E_AUDIT_TAMPERED'
        ? `E_AUDIT_TAMPERED: ${err.message}; the shared copy is no longer updated (node scripts/audit-verify.js ${file})`
        : `E_AUDIT_SHARE: command log ${file}: its copy for the fleet could not be written to Redis: ${err.message} (commands go on; ` +
          'the copy catches up from the file once Redis is back)'),
    });
  }
  const recorder = createCommandAudit({ log, now: clock.now });
  s = {
    file,
    log,
    recorder,
    share,
    /** Counters for the stats and metrics (the log's and the recorder's, the newest entry's number, the fleet copy's). */
    counters: () => ({
      audit: {
        ...log.counters, ...recorder.counters, entries: log.head().n,
        ...(share ? { shared: { chain: share.chain, copied: share.copied, ...share.counters } } : {}),
      },
    }),
  };
  stores.set(file, s);
  registry.add({ id: `s7twin-audit:${file}`, type: 's7twin-audit', name: path.basename(file) }, s.counters);
  registry.addCheck(`s7twin-audit:${file}`, () => {
    if (log.counters.failing > 0) return `the command log cannot be written (${log.counters.failing} failed tries; the Node-RED log says why)`;
    // The open health answer names no file: why they disagree (the file's path) is in the Node-RED log's E_AUDIT_TAMPERED.
    if (share && share.broken) {
      return 'the command log and its copy for the fleet disagree; the copy is no longer updated (the Node-RED log says why: E_AUDIT_TAMPERED)';
    }
    if (share && share.counters.failing > 0) return `the command log's copy for the fleet cannot be written to Redis (${share.counters.failing} failed tries)`;
    return null;
  });
  return s;
}

/**
 * The runtime's command log as its settings place it, for a node (the twin endpoint's, the REST
 * node's): opened, counted in /s7twin/stats and /s7twin/metrics, its failures in /s7twin/health
 * (in words that name no file: the health answer is open; the Node-RED log has the details).
 * @param {object} settings RED.settings
 * @param {(text: string) => void} warn RED.log.warn
 * @param {object} [env] S7T_AUDIT_FILE; S7T_REDIS_URL: in a fleet, the log is copied there
 * @returns {ReturnType<typeof auditStore>}
 */
function runtimeAudit(settings, warn, env = process.env) {
  return auditStore(auditFile(settings, env), { warn, redisUrl: env.S7T_REDIS_URL || undefined });
}

/**
 * The commands of a window from a runtime's log (lib/history/audit-query.js), once the entries
 * still on their way to disk are written (waiting at most `waitMs`: a disk that refuses must not
 * hold up a reader, who then sees what is on disk). In a fleet (the log has a copy on Redis) every
 * instance's commands (lib/history/audit-fleet.js), with each chain's verdict.
 * @param {{file: string, log: {flushed(): Promise<void>}, share?: object}} store auditStore()
 * @param {object} q queryCommands' query
 * @param {number} [waitMs]
 * @returns {Promise<{rows: object[], notes: object[], truncated: boolean, entries: number, chains?: object[], complete?: boolean, error?: string}>}
 */
async function readCommands(store, q, waitMs = FLUSH_WAIT_MS) {
  let timer;
  await Promise.race([store.log.flushed(), new Promise((r) => { timer = setTimeout(r, waitMs); })]);
  clearTimeout(timer);
  if (store.share) return queryFleetCommands({ file: store.file, redis: store.share.redis, q });
  return queryCommands(store.file, q);
}

module.exports = { FILE_NAME, auditFile, auditStore, runtimeAudit, readCommands };
