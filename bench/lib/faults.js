'use strict';
/**
 * The fault suite: a twin streams commands over the WebSocket–S7 path while one fault at a time
 * hits the system (every other path running beside it), and the run checks the bridge's promises
 * from what the twin was answered and what the PLC applied (its input log, plc/input-log.js):
 *
 * - every command gets exactly one answer: unanswered 0, duplicate answers 0;
 * - nothing is written after its deadline: no input change in the PLC whose command's deadline
 *   (echoed in its answer, on the cloud's clock) had passed before the write could have landed;
 * - nothing refused is written, and nothing the twin did not send (a stale image pushed by a
 *   path at start-up) and nothing older than what is already applied (an acknowledged write
 *   undone) ever shows in the PLC's inputs;
 * - after the fault, commands are acknowledged again (time measured), and the PLC ends with the
 *   last acknowledged command's inputs (or a later one's);
 * - every command carries an idempotency key (the transport's default) and one in doubt is sent
 *   again with it: no command's inputs are applied twice (again after another command's, or
 *   after the PLC restarted), and the run counts the commands sent more than once, those
 *   answered as a repeat of an earlier attempt, and those whose inputs reached the PLC.
 *
 * Each command sets all ten inputs to a pattern unique within a run (command i: the binary of
 * i mod 1023 + 1), so every change in the input log names the command that made it.
 *
 * Used by test/e2e/faults.test.js (assertions) and bench/run.js --faults (the report's faults
 * section). The system comes from bench/lib/system.js (the launcher's) with Toxiproxy on both
 * links ('proxied').
 */
const path = require('node:path');
const { createTransport } = require('../../twin/transports/ws');
const { readInputLog } = require('../../plc/input-log');
const clock = require('../../nodes/lib/core/clock');
// The benchmark's productions run the demo box-sorting plant: its table.
const tags = require('../../nodes/lib/core/io-table').demoTable();
const { waitFor } = require('../../system/wait');

// Two processes' clocks (lib/clock.js, monotonic anchored to the wall clock) on one machine
// differ by their anchors' error, under 1 ms each (Date.now() is whole milliseconds).
const CLOCK_SKEW_MS = 2;
const INPUTS = tags.inputs.map((t) => t.short); // ten inputs: a pattern is a 10-bit number
const PATTERNS = 2 ** INPUTS.length - 1; // 1..1023: never all zeros (a PLC's fresh start)

const DEFAULTS = {
  intervalMs: 50, // one command every 50 ms: a twin streaming its inputs
  ttlMs: 1000, // each command's lifetime
  preMs: 1500, // commands before the fault
  postMs: 2000, // commands after recovery
  recoverLimitMs: 45000, // give up waiting for the first ack after the fault
  drainMs: 10000, // after the stream: wait this long at most for the last answers
  // Commands the twin knows no deadline for (its own connection died with them in flight) are
  // judged against send time + lifetime + this: the cloud's deadline is its arrival + lifetime.
  unknownDlSlackMs: 1000,
};

/** The faults, each: inject (and for timed ones, heal after holdMs). */
const FAULTS = {
  'black-hole': {
    label: 'cloud↔edge link black-holed, both directions (Toxiproxy timeout 0)',
    holdMs: 8000,
    inject: (sys) => eachPlantProxy(sys, (p) => ['upstream', 'downstream'].map((stream) => sys.toxiproxy.addToxic(p, {
      name: `hole_${stream}`, type: 'timeout', stream, attributes: { timeout: 0 },
    }))),
    heal: (sys) => eachPlantProxy(sys, (p) => [sys.toxiproxy.removeToxics(p)]),
  },
  reset: {
    label: 'cloud↔edge link reset (Toxiproxy reset_peer)',
    holdMs: 1500,
    inject: (sys) => eachPlantProxy(sys, (p) => ['upstream', 'downstream'].map((stream) => sys.toxiproxy.addToxic(p, {
      name: `reset_${stream}`, type: 'reset_peer', stream, attributes: { timeout: 0 },
    }))),
    heal: (sys) => eachPlantProxy(sys, (p) => [sys.toxiproxy.removeToxics(p)]),
  },
  latency: {
    label: 'latency spike: +500 ms each way on the cloud↔edge link for 4 s',
    holdMs: 4000,
    inject: (sys) => eachPlantProxy(sys, (p) => [sys.toxiproxy.addLatency(p, { up: { latency: 500 }, down: { latency: 500 } })]),
    heal: (sys) => eachPlantProxy(sys, (p) => [sys.toxiproxy.removeToxics(p)]),
  },
  stall: {
    label: 'edge Node-RED stalled 6 s (SIGSTOP, then SIGCONT)',
    holdMs: 6000,
    inject: async (sys) => sys.signal('edge', 'SIGSTOP'),
    heal: async (sys) => sys.signal('edge', 'SIGCONT'),
  },
  'edge-kill': {
    label: 'edge Node-RED kill -9, restarted',
    restart: 'edge',
  },
  'cloud-kill': {
    label: 'cloud Node-RED kill -9, restarted',
    restart: 'cloud',
  },
  'plc-kill': {
    label: 'PLC kill -9, restarted',
    restart: 'plc',
  },
};

async function eachPlantProxy(sys, fn) {
  await Promise.all(sys.plantProxies.flatMap((p) => fn(p)));
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The input values of command index i. */
function patternValues(i) {
  const n = (i % PATTERNS) + 1;
  return Object.fromEntries(INPUTS.map((k, b) => [k, (n >> b) & 1]));
}

/** The pattern number (1..1023, 0 = all off) of a set of input values. */
function patternOf(values) {
  return INPUTS.reduce((n, k, b) => n | ((Number(values[k]) ? 1 : 0) << b), 0);
}

/**
 * Run the faults one after the other on a running system.
 * @param {object} sys from bench/lib/system.js startSystem({..., links: proxied, plcInputLog})
 * @param {object} o
 * @param {string[]} [o.faults] ids of FAULTS (default all, in their order)
 * @param {string} o.inputLog the PLC's input log file (the one given to startSystem)
 * @param {string} [o.protocol] the path the twin streams over (default ws; a link path, ws-amqp…,
 *   is the ws path's twin with the edge's link over another transport)
 * @param {Object<string, number>} [o.holdMs] fault id → how long it holds (default each fault's own)
 * @param {(line: string) => void} [o.log]
 * @returns {Promise<object[]>} one result per fault (see analyse)
 */
async function runFaults(sys, o) {
  const opts = { ...DEFAULTS, ...o };
  const log = opts.log || (() => {});
  const ids = opts.faults || Object.keys(FAULTS);
  for (const id of ids) if (!FAULTS[id]) throw Object.assign(new Error(`unknown fault "${id}" (${Object.keys(FAULTS).join(', ')})`), { code: 'E_BENCH_ARGS' });
  const twin = createTwin(sys.endpoints[opts.protocol || 'ws'], opts);
  await twin.connect();
  const results = [];
  try {
    for (const id of ids) {
      log(`fault ${id}: ${FAULTS[id].label}`);
      const r = await runOne(sys, twin, id, opts, log);
      log(`fault ${id}: ${r.sent} commands, answers ${JSON.stringify(r.answers)}, unanswered ${r.unanswered}, late ${r.appliedLate}, ` +
        `sent again ${r.retried}, repeats ${r.repeats}, applied ${r.applied}, applied twice ${r.appliedTwice}, recovered in ${r.recoveryMs} ms`);
      results.push(r);
    }
  } finally {
    await twin.close();
  }
  return results;
}

/**
 * The streaming twin: the project's ws transport, with every command and answer recorded.
 * @param {object} endpoint ws transport options (url, token, plant)
 * @param {{ttlMs: number, id?: string}} opts
 */
function createTwin(endpoint, opts) {
  const t = createTransport({ ...endpoint, id: opts.id || 'faults', ttl: opts.ttlMs, backoff: { initialMs: 100, maxMs: 1000 } });
  const cmds = new Map(); // seq -> {seq, pattern, sentAt, answer}
  t.onSent(({ seq, image }) => cmds.set(seq, { seq, pattern: patternOf(image), sentAt: clock.now(), answer: null }));
  t.onAnswer((a) => {
    const c = cmds.get(a.seq);
    if (c) c.answer = { code: a.ok ? 'ack' : a.code, msg: a.msg, dl: a.dl, at: clock.now(), attempts: a.attempts || 1, repeat: a.repeat === true };
  });
  return {
    cmds,
    connect: () => t.connect(),
    close: () => t.close(),
    get connected() { return t.stats().connected; },
    get inFlight() { return t.inFlight; },
    stats: () => t.stats(),
    send: (values) => t.send(values),
  };
}

/** Resolves once one command of the twin is acknowledged (the path is healthy). */
function waitHealthy(twin, what) {
  return waitUntil(async () => {
    const seq = twin.connected ? twin.send(patternValues(twin.cmds.size)) : null;
    if (seq === null) return false;
    const ok = await waitUntil(() => twin.cmds.get(seq).answer, 5000).catch(() => null);
    return ok && ok.code === 'ack';
  }, 60000, what);
}

async function runOne(sys, twin, id, opts, log) {
  const f = FAULTS[id];
  await waitHealthy(twin, `fault ${id}: the path acknowledges commands before the fault`);
  const dupBefore = twin.stats().unexpectedAnswers;
  const startedAt = clock.now();
  const firstSeq = Math.max(0, ...twin.cmds.keys()) + 1;
  let index = twin.cmds.size;
  let streaming = true;
  const stream = (async () => {
    while (streaming) {
      if (twin.connected) twin.send(patternValues(index++));
      await sleep(opts.intervalMs);
    }
  })();

  await sleep(opts.preMs);
  const injectAt = clock.now();
  let healAt;
  let restartMs = null;
  if (f.restart) {
    sys.signal(f.restart, 'SIGKILL');
    healAt = clock.now(); // restarted right away: recovery includes the restart
    const t0 = clock.now();
    await sys.restart(f.restart);
    restartMs = Math.round(clock.now() - t0);
    log(`fault ${id}: ${f.restart} restarted in ${restartMs} ms`);
  } else {
    await f.inject(sys);
    await sleep((opts.holdMs && opts.holdMs[id]) || f.holdMs);
    await f.heal(sys);
    healAt = clock.now();
  }
  // Recovered: a command sent after the heal is acknowledged.
  let recoveredAt = null;
  await waitUntil(() => {
    for (const c of twin.cmds.values()) {
      if (c.sentAt >= healAt && c.answer && c.answer.code === 'ack') { recoveredAt = c.answer.at; return true; }
    }
    return false;
  }, opts.recoverLimitMs, `fault ${id}: commands acknowledged again`).catch(() => {});
  await sleep(opts.postMs);
  streaming = false;
  await stream;
  await waitUntil(() => twin.inFlight === 0, opts.drainMs, 'the last answers').catch(() => {});
  await sleep(200); // a few scans: the last write reaches the input log
  const endedAt = clock.now();
  const cmds = [...twin.cmds.values()].filter((c) => c.seq >= firstSeq);
  // The twin learns of the fault: the first answer other than an ack after it began.
  const firstBad = cmds.filter((c) => c.answer && c.answer.code !== 'ack' && c.answer.at >= injectAt).map((c) => c.answer.at);
  const entries = readInputLog(opts.inputLog).filter((e) => e.t >= startedAt && e.t <= endedAt);
  return {
    id,
    label: f.label,
    ...analyse(cmds, entries, { ...opts, duplicates: twin.stats().unexpectedAnswers - dupBefore }),
    faultMs: Math.round(healAt - injectAt),
    detectedMs: firstBad.length ? Math.round(Math.min(...firstBad) - injectAt) : null,
    restartMs,
    recoveryMs: recoveredAt === null ? null : Math.round(recoveredAt - healAt),
  };
}

/**
 * What the answers and the PLC's input log say (pure: unit-tested on its own).
 * @param {Array<{seq, pattern, sentAt, answer: {code, dl, at}|null}>} cmds in send order
 * @param {Array<{t, tp, scan, in}>} entries the input log within the run
 * @param {{ttlMs: number, unknownDlSlackMs: number, duplicates?: number}} o
 */
function analyse(cmds, entries, o) {
  const answers = {};
  let unanswered = 0;
  for (const c of cmds) {
    if (!c.answer) { unanswered += 1; continue; }
    answers[c.answer.code] = (answers[c.answer.code] || 0) + 1;
  }
  const problems = [];
  const samples = {}; // one answer text per code, to say why
  for (const c of cmds) if (c.answer && c.answer.msg && !samples[c.answer.code]) samples[c.answer.code] = c.answer.msg;
  let appliedLate = 0;
  let appliedRefused = 0;
  let notCommanded = 0;
  let wentBack = 0;
  let transients = 0;
  let appliedTwice = 0;
  const applied = new Set(); // seqs of the commands whose inputs reached the PLC
  let lastApplied = null;
  entries.forEach((e, k) => {
    if (e.tp === null) { lastApplied = null; return; } // a PLC process starting afresh
    const p = patternOf(e.in);
    // The latest command with this pattern sent before the scan saw it.
    let c = null;
    for (const x of cmds) if (x.pattern === p && x.sentAt <= e.t + CLOCK_SKEW_MS && (!c || x.seq > c.seq)) c = x;
    // One write request carries a command's ten bits as ten items, and the PLC's scan may read
    // its data block while the server is between two of them (per-item consistency, as on a
    // real S7 PLC): a mix of two commands' bits, gone by the next scan. Counted, not judged.
    const next = entries[k + 1];
    const oneScan = next && next.tp !== null && next.scan === e.scan + 1;
    if (oneScan && (!c || (lastApplied && c.seq < lastApplied.seq))) { transients += 1; return; }
    if (!c) {
      notCommanded += 1;
      problems.push(`inputs ${p} at ${e.t.toFixed(1)} match no command sent before them`);
      return;
    }
    if (lastApplied && c.seq < lastApplied.seq) {
      wentBack += 1;
      problems.push(`inputs went back from command #${lastApplied.seq} to #${c.seq}`);
    }
    // A command applied again after another one (or after the PLC restarted): written twice.
    if (c !== lastApplied && applied.has(c.seq)) {
      appliedTwice += 1;
      problems.push(`command #${c.seq} was applied a second time at ${e.t.toFixed(1)}`);
    }
    applied.add(c.seq);
    lastApplied = c;
    const a = c.answer;
    const code = a ? a.code : null;
    if (code && code !== 'ack' && code !== 'E_OUTCOME_UNKNOWN') {
      appliedRefused += 1;
      problems.push(`command #${c.seq} was answered ${code} but its inputs appeared at ${e.t.toFixed(1)}`);
    }
    const dl = a && Number.isFinite(a.dl) ? a.dl : c.sentAt + o.ttlMs + o.unknownDlSlackMs;
    if (e.tp > dl + CLOCK_SKEW_MS) {
      appliedLate += 1;
      problems.push(`command #${c.seq} landed after ${e.tp.toFixed(1)}, past its deadline ${dl.toFixed(1)} by ${(e.tp - dl).toFixed(1)} ms`);
    }
  });
  // The PLC ends with the last acknowledged command's inputs, or a later command's.
  const lastAck = [...cmds].reverse().find((c) => c.answer && c.answer.code === 'ack');
  let finalOk = true;
  if (lastAck && entries.length) {
    const final = patternOf(entries[entries.length - 1].in);
    finalOk = cmds.some((c) => c.seq >= lastAck.seq && c.pattern === final && c.answer && ['ack', 'E_OUTCOME_UNKNOWN'].includes(c.answer.code));
    if (!finalOk) problems.push(`the PLC ended with inputs ${final}, not those of command #${lastAck.seq} (acknowledged) or a later one`);
  } else if (lastAck) {
    // No input change at all in the window: the PLC still shows what it showed before, which is
    // only right if every command of the window left the inputs as they were.
    finalOk = cmds.every((c) => c.pattern === lastAck.pattern);
  }
  return {
    sent: cmds.length,
    answers,
    unanswered,
    duplicates: o.duplicates || 0,
    retried: cmds.filter((c) => c.answer && c.answer.attempts > 1).length,
    repeats: cmds.filter((c) => c.answer && c.answer.repeat).length,
    applied: applied.size,
    appliedTwice,
    appliedLate,
    appliedRefused,
    notCommanded,
    wentBack,
    transients,
    finalOk,
    inputChanges: entries.length,
    problems: problems.slice(0, 20),
    samples,
  };
}

/** Poll fn until it returns something truthy (resolves with it) or reject after ms (E_TIMEOUT). */
const waitUntil = (fn, ms, what = 'condition') => waitFor(fn, ms, what, 50);

/** A results-folder-relative input log path for a run. */
const inputLogFile = (dir) => path.join(dir, 'plc-inputs.jsonl');

module.exports = { runFaults, analyse, patternValues, patternOf, createTwin, waitHealthy, waitUntil, FAULTS, DEFAULTS, inputLogFile };
