'use strict';
/**
 * The model of the page generated for any plant (twin/browser/tags.html): the plant's tags as its
 * I/O table lists them, their values as the PLC's states and snapshots say, the writes a user
 * makes to the tags the cloud may write, and the round trips of both kinds the page can time:
 * the table's timed pairs (an input written → the output it moves; the recorder the 3D page and
 * the headless twin use) and every write (the command sent → the PLC's state showing the value).
 *
 * It speaks to the PLC with the twin transports the 3D page runs (WebSocket–S7, MQTT over
 * WebSocket, HTTP polling), so reconnects (back-off with jitter), the resync from the snapshot
 * after one and exactly one answer per command are theirs. A write is checked against the table
 * first (the type, the tag's range, a STRING's length): a value the edge would refuse never goes
 * out. Without a physics model there is nothing to drive, so there is no driver lease: any page
 * with a twin token writes, a viewer's write is refused by the cloud (on MQTT, here: a broker
 * answers a refused publish by closing the connection).
 *
 * Browser-safe; timers and clocks are injectable, and Node tests run it against real endpoints.
 */
const { createTable } = require('../../nodes/lib/core/io-table');
const { createRecorder } = require('../recorder');
const { createChart } = require('./chart');
const { connectionOf } = require('./panel');
const { createLog } = require('./session');

const DEFAULTS = {
  timeoutMs: 5000, // a write or a timed pair not seen by then counts as expired
  sweepMs: 250, // how often overdue round trips are swept
  chartSpanMs: 60000,
  logLines: 30,
};

/**
 * The round trips the page times for a table: each timed pair by its output, each cloud-writable
 * tag by itself (write → seen).
 * @param {object} table
 * @returns {Array<{key: string, name: string, kind: 'timed'|'write'}>}
 */
function variablesOf(table) {
  const out = table.timedPairs().map((p) => ({ key: p.output, name: p.name, kind: 'timed' }));
  for (const t of table.writable) if (!out.some((v) => v.key === t.short)) out.push({ key: t.short, name: t.name, kind: 'write' });
  return out;
}

/**
 * @param {object} o
 * @param {object} o.table the plant's I/O table (a table or a definition)
 * @param {object|Function} o.transport a twin transport, or a factory (log) => transport
 * @param {string} [o.protocol] ws | mqttws | http
 * @param {boolean} [o.readOnly] the token is a viewer's
 * @param {() => number} [o.now] monotonic clock (default performance.now)
 * @param {object} [o.timers] {setInterval, clearInterval}
 * @param {(values: object, t: number) => void} [o.onValues] every state or snapshot, as it comes
 * @param {(variable: string, ms: number) => void} [o.onRoundTrip] every round trip measured
 */
function createTagSession(o) {
  const opt = { ...DEFAULTS, ...o };
  const table = createTable(o.table);
  const now = o.now || (() => performance.now());
  const T = o.timers || { setInterval: (f, ms) => setInterval(f, ms), clearInterval: (t) => clearInterval(t) };
  const variables = variablesOf(table);
  const pairs = table.timedPairs();
  const recorder = createRecorder({ protocol: o.protocol || '', timeoutMs: opt.timeoutMs, now, keepSamples: false, table });
  const chart = createChart(variables.map((v) => v.key), { spanMs: opt.chartSpanMs });
  const logBook = createLog(opt.logLines);
  const log = logBook.add;
  const plc = {}; // every value the PLC's states and snapshots said
  const writes = []; // writes sent and not yet seen back, oldest first: {short, value, t, answered}
  const last = {}; // short -> the last write's outcome {value, state: 'sent'|'done'|'refused', code?, ms?}
  const counters = { writes: 0, refusedHere: 0, refused: 0, seen: 0, expired: 0, snaps: 0, states: 0 };
  const transport = typeof o.transport === 'function' ? o.transport((line) => log(line, 'error')) : o.transport;
  let sweeper = null;

  function roundTrip(variable, t, ms) {
    chart.push(variable, t, ms);
    if (o.onRoundTrip) o.onRoundTrip(variable, ms);
  }

  transport.onValues((values, kind) => {
    const t = now();
    counters[kind === 'snap' ? 'snaps' : 'states'] += 1;
    Object.assign(plc, values);
    for (const r of recorder.received(values, t)) roundTrip(r.variable, t, r.ms);
    // A write is seen when the PLC's state shows its value (a STRING as the PLC holds it, a REAL as its single).
    for (let i = 0; i < writes.length; i++) {
      const w = writes[i];
      if (w.same || !(w.short in values) || values[w.short] !== w.value) continue;
      writes.splice(i, 1);
      i -= 1;
      counters.seen += 1;
      last[w.short] = { ...last[w.short], state: 'done', ms: t - w.t };
      if (variables.some((v) => v.key === w.short && v.kind === 'write')) roundTrip(w.short, t, t - w.t);
    }
    if (kind === 'snap') log(`snapshot from the PLC (${Object.keys(values).length} values)`);
    if (o.onValues) o.onValues(values, t);
  });

  // Every command gets one answer (WebSocket–S7 and HTTP): a refusal goes to the oldest write
  // not yet answered, as commands are answered in the order they were sent.
  if (typeof transport.onAnswer === 'function') {
    transport.onAnswer((a) => {
      const w = writes.find((x) => !x.answered);
      if (!w) return;
      w.answered = true;
      if (a.ok) {
        // The PLC held the value already: no state will show it, the answer is all there is.
        if (w.same) { writes.splice(writes.indexOf(w), 1); last[w.short] = { ...last[w.short], state: 'done' }; }
        return;
      }
      counters.refused += 1;
      writes.splice(writes.indexOf(w), 1);
      last[w.short] = { ...last[w.short], state: 'refused', code: a.code };
      log(`${w.short} = ${JSON.stringify(w.value)} refused: ${a.code}${a.msg ? ` (${a.msg})` : ''}`, 'error');
    });
  }

  function sweep() {
    const t = now();
    counters.expired += recorder.sweep(t);
    for (let i = writes.length - 1; i >= 0; i--) {
      if (t - writes[i].t < opt.timeoutMs) continue;
      const w = writes.splice(i, 1)[0];
      counters.expired += 1;
      if (last[w.short] && last[w.short].state === 'sent') last[w.short] = { ...last[w.short], state: 'unseen' };
    }
    chart.prune(t);
  }

  /**
   * Write one tag: checked against the table, then sent.
   * @param {string} short
   * @param {*} value as typed (a number's text is taken)
   * @returns {{ok: boolean, value?: *, code?: string, message?: string}}
   */
  function write(short, value) {
    const tag = table.get(short);
    let v = value;
    if (tag && typeof v === 'string' && tag.type !== 'STRING' && v.trim() !== '' && Number.isFinite(Number(v))) v = Number(v);
    let checked;
    try {
      if (o.readOnly && o.protocol === 'mqttws') throw Object.assign(new Error('a viewer does not publish commands (read-only)'), { code: 'E_READ_ONLY' });
      checked = table.checkWrite(short, v);
    } catch (err) {
      counters.refusedHere += 1;
      log(`${short} = ${JSON.stringify(value)} not sent: ${err.code ? `${err.code}: ` : ''}${err.message}`, 'error');
      return { ok: false, code: err.code, message: err.message };
    }
    const t = now();
    const same = plc[short] === checked.value;
    // A pair whose output already shows its value starts no timer: the change it waits for is not this write's.
    if (!pairs.some((p) => p.trigger === short && p.value === checked.value && plc[p.output] === p.value)) recorder.sent({ [short]: checked.value }, t);
    const answers = typeof transport.onAnswer === 'function';
    if (!same || answers) writes.push({ short, value: checked.value, t, answered: false, same });
    last[short] = { value: checked.value, state: same && !answers ? 'done' : 'sent' };
    counters.writes += 1;
    transport.send({ [short]: checked.value });
    return { ok: true, value: checked.value };
  }

  return {
    table,
    variables,
    chart,
    counters,
    write,
    /** Connect (the transport retries by itself) and start timing. */
    async start() {
      sweeper = T.setInterval(sweep, opt.sweepMs);
      await transport.connect().catch((err) => log(`${err.code || 'E_CONNECT'}: ${err.message} (still retrying)`, 'error'));
    },
    async stop() {
      if (sweeper) T.clearInterval(sweeper);
      sweeper = null;
      await transport.close();
    },
    get readOnly() { return Boolean(o.readOnly); },
    /** Everything the page shows. */
    snapshot() {
      return {
        protocol: o.protocol || '',
        readOnly: Boolean(o.readOnly),
        connection: connectionOf(transport.stats()),
        values: { ...plc },
        writes: JSON.parse(JSON.stringify(last)),
        rtt: chart.stats(),
        pending: writes.length + recorder.pending,
        counters: { ...counters },
        log: logBook.lines.slice(),
      };
    },
  };
}

module.exports = { DEFAULTS, createTagSession, variablesOf };
