'use strict';
/**
 * The browser twin's model, without any drawing: one plant (twin/plant.js, the headless twin's
 * own model), one transport to the PLC (contract 5: the WebSocket–S7, MQTT or HTTP transport),
 * the round-trip recorder, the rolling chart, the controls, and who drives.
 *
 * One page drives, every other page mirrors (a classroom: many browsers, one plant). Two pages
 * that both ran the plant model and both sent sensor inputs would fight, so:
 * - the DRIVING page holds the cloud's driver lease (nodes/lib/web/driver-lease.js, renewed every
 *   2 s): its plant model produces the sensor inputs, every tick's changes go to the PLC as one
 *   frame, the PLC's outputs move its pistons and belts, and it times every input event → PLC
 *   output round trip;
 * - a WATCHING page runs the same model as a shadow: it applies the PLC's outputs (and, on the
 *   WebSocket–S7 path, the inputs the PLC saw) but sends nothing. A box appears at its entry
 *   when the PLC's state shows the driver's box there (EntrySensor, or Piston1Forward where the
 *   path streams outputs only), and is marked damaged when the PLC's state does (DamageSensor or
 *   Piston2Forward). Counters and lamps are always the PLC's own values.
 * A page with a twin token that finds the lease free takes it; one that finds it held watches and
 * may take over on purpose. A viewer token never drives: the lease and every command are refused
 * by the cloud (E_READ_ONLY), and the page says so.
 *
 * Browser-safe; timers and clocks are injectable, and Node tests run it against real endpoints.
 */
const { createPlant } = require('../plant');
const { createRecorder } = require('../recorder');
const tags = require('../../nodes/lib/core/tags');
const { createChart } = require('./chart');

const DEFAULTS = {
  tickMs: 10, // plant tick, as the headless twin's
  maxDtMs: 50, // a stalled page slows plant time down instead of teleporting boxes
  renewMs: 2000, // driver lease renewal
  maxWaiting: 20, // boxes fed but not yet at the entry; more are refused (plant stopped?)
  logLines: 30, // recent errors and events kept for the panel
  chartSpanMs: 60000,
  timeoutMs: 5000, // a round trip not seen by then counts as expired
};

const TIMED = tags.timedPairs();
const VARIABLES = TIMED.map((p) => p.output);
const OUTPUTS = new Set(tags.outputs.map((t) => t.short));
const INPUTS = tags.inputs.map((t) => t.short);

/**
 * A driver lease over the s7twin-ui node's HTTP API (POST/DELETE <page>/driver).
 * @param {{fetch: Function, base?: string, token: string, id: string, label?: string}} o
 * @returns {{claim(force?: boolean): Promise<{status:number, granted:boolean, holder:object|null, code?:string}>, release(): Promise<void>, who(): Promise<object>}}
 */
function createLeaseClient(o) {
  const base = o.base ? o.base.replace(/\/?$/, '/') : ''; // '' = relative to the page
  const auth = { Authorization: `Bearer ${o.token}` };
  const json = async (r) => { try { return await r.json(); } catch { return {}; } };
  return {
    async claim(force = false) {
      const r = await o.fetch(`${base}driver`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ id: o.id, force, label: o.label || '' }) });
      const b = await json(r);
      return { status: r.status, granted: Boolean(b.granted), holder: b.holder || null, code: b.error && b.error.code };
    },
    async release() {
      await o.fetch(`${base}driver?id=${encodeURIComponent(o.id)}`, { method: 'DELETE', headers: auth, keepalive: true });
    },
    /** Who the token is: {status, role, driver}. */
    async who() {
      const r = await o.fetch(`${base}session`, { headers: auth });
      return { status: r.status, ...(await json(r)) };
    },
  };
}

/**
 * @param {object} o
 * @param {object|Function} o.transport a contract-5 transport (connect, send, onValues, close,
 *   stats), or a factory (log) => transport whose log lines the panel shows
 * @param {string} [o.protocol] label: ws | mqttws | http
 * @param {object} [o.lease] createLeaseClient(); without one the page drives (a page of its own)
 * @param {boolean} [o.readOnly] the token is a viewer's (known before start, from who())
 * @param {object} [o.plant] plant options (profile, …)
 * @param {() => number} [o.now] monotonic clock (default performance.now)
 * @param {object} [o.timers] {setInterval, clearInterval, setTimeout, clearTimeout}
 * @param {(variable: string, ms: number) => void} [o.onRoundTrip] every round trip measured
 */
function createSession(o) {
  const opt = { ...DEFAULTS, ...o };
  const now = o.now || (() => performance.now());
  // Wrapped: a browser's timer functions throw "Illegal invocation" when called as methods of another object.
  const T = o.timers || { setInterval: (f, ms) => setInterval(f, ms), clearInterval: (t) => clearInterval(t), setTimeout: (f, ms) => setTimeout(f, ms), clearTimeout: (t) => clearTimeout(t) };
  const plant = createPlant({ profile: 'study', ...(o.plant || {}), boxes: 0, feedWhileStopped: true, arrivalMs: 0 });
  const recorder = createRecorder({ protocol: o.protocol || '', timeoutMs: opt.timeoutMs, now, keepSamples: false });
  const chart = createChart(VARIABLES, { spanMs: opt.chartSpanMs });
  const plc = {}; // every value the PLC's state and snapshots said, outputs and (WebSocket–S7) inputs
  const marked = new Set(); // watching: ids of shadow boxes the PLC's state showed as damaged
  const seenAt = { entry: 0, pushes: 0 }; // watching: rising EntrySensor / Piston1Forward seen
  const logLines = [];
  const counters = { frames: 0, snaps: 0, states: 0, fed: 0, refused: 0, expired: 0, leaseLost: 0, takeovers: 0, followed: 0, markedDamaged: 0 };
  let driving = false;
  let readOnly = Boolean(o.readOnly);
  let holder = null;
  let ticker = null;
  let renewer = null;
  let auto = null; // {timer, perMinute, damagedShare}
  let last = 0;
  let started = false;
  let stopped = false;
  const held = new Map(); // watching: momentary buttons pressed, not yet released -> timer

  function log(text, kind = 'info') {
    logLines.push({ t: Date.now(), kind, text });
    if (logLines.length > opt.logLines) logLines.shift();
  }

  // The transport's own errors (err envelopes, refused commands, failed connections) go to the
  // panel's log: a factory gets the log function.
  const transport = typeof o.transport === 'function' ? o.transport((line) => log(line, 'error')) : o.transport;

  function tick() {
    const t = now();
    const dt = Math.min(t - last, opt.maxDtMs);
    last = t;
    const batch = plant.tick(Math.max(0, dt));
    if (driving && Object.keys(batch).length) {
      recorder.sent(timedPart(batch), now());
      transport.send(batch);
      counters.frames += 1;
    }
    counters.expired += recorder.sweep();
    chart.prune(t);
  }

  /**
   * The frame as the recorder should time it: a trigger whose every output is already at its
   * expected value starts no timer (Start pressed while the plant runs: ConveyorBelt is on
   * already, and the next time it comes on, after a reject, is not this press's answer).
   */
  function timedPart(batch) {
    const out = { ...batch };
    for (const k of Object.keys(batch)) {
      const pairs = TIMED.filter((p) => p.trigger === k && batch[k] === p.value);
      if (pairs.length && pairs.every((p) => plc[p.output] === p.value)) delete out[k];
    }
    return out;
  }

  /** Watching: keep the shadow model's boxes with the driver's, from what the PLC's state says. */
  function follow(prev, values) {
    const rose = (k) => values[k] === 1 && prev[k] !== 1;
    // Every box the driver's entry sensor showed, or piston 1 pushed (a path that streams outputs
    // only), is a box of the shadow. A shadow running a little behind queues it: the model lets it
    // in when its own entry is free, so no box is lost or doubled.
    if (rose('se')) seenAt.entry += 1;
    if (rose('p1fw')) seenAt.pushes += 1;
    while (counters.followed < Math.max(seenAt.entry, seenAt.pushes)) {
      plant.feed(false);
      counters.followed += 1;
    }
    plant.tick(0); // a box whose entry is free arrives now, before the piston starts to move
    if (values.dmg === 1 || rose('p2fw')) {
      const s = plant.scene();
      const at = plant.config.detectorAtMm;
      const near = s.c1.slice().sort((a, b) => Math.abs(a.x - at) - Math.abs(b.x - at))[0];
      if (near && Math.abs(near.x - at) <= plant.config.detectorMm + plant.config.boxMm && !marked.has(near.id)) {
        marked.add(near.id);
        counters.markedDamaged += 1;
      }
    }
  }

  transport.onValues((values, kind) => {
    const t = now();
    counters[kind === 'snap' ? 'snaps' : 'states'] += 1;
    const prev = { ...plc };
    Object.assign(plc, values);
    if (driving) {
      for (const r of recorder.received(values, t)) {
        chart.push(r.variable, t, r.ms);
        if (o.onRoundTrip) o.onRoundTrip(r.variable, r.ms);
      }
    } else {
      follow(prev, values);
    }
    const outs = {};
    for (const [k, v] of Object.entries(values)) if (OUTPUTS.has(k)) outs[k] = v;
    plant.applyOutputs(outs);
    if (kind === 'snap') log(`snapshot from the PLC (${Object.keys(values).length} values)`);
  });

  function becomeDriver(why) {
    if (driving) return;
    driving = true;
    // The PLC learns the whole plant at once, as the headless twin's first frame does.
    const all = plant.inputs();
    recorder.sent(all, now());
    transport.send(all);
    log(`driving the plant (${why})`);
  }

  function becomeWatcher(why) {
    if (!driving) return;
    driving = false;
    setAutoFeed(0);
    log(`watching (${why})`);
  }

  async function claim(force) {
    if (!o.lease || readOnly || stopped) return;
    let r;
    try {
      r = await o.lease.claim(force);
    } catch (err) {
      log(`driver lease: ${err.message}`, 'error');
      return;
    }
    holder = r.holder;
    if (r.status === 403) {
      readOnly = true;
      becomeWatcher('this token may watch, not drive');
      log('a viewer token: watching only (E_READ_ONLY)');
      return;
    }
    if (r.status === 401) { log('the token was refused (E_UNAUTHORIZED)', 'error'); return; }
    if (r.granted) {
      if (force && !driving) counters.takeovers += 1;
      becomeDriver(force ? 'taken over' : 'the plant had no driver');
    } else if (driving) {
      counters.leaseLost += 1;
      becomeWatcher(`${holder && holder.label ? holder.label : 'another page'} drives now`);
    }
  }

  function momentary(button) {
    if (driving) { plant.press(button); return true; }
    // Watching: a button is not physics, so a twin token may press it from here; a viewer's
    // press goes out too and the cloud refuses it (E_READ_ONLY), except over MQTT, where a
    // refused publish would cost the connection: refused here.
    if (readOnly && o.protocol === 'mqttws') { counters.refused += 1; log('a viewer does not publish commands (read-only)', 'error'); return false; }
    transport.send({ [button]: 1 });
    const timer = T.setTimeout(() => { held.delete(button); transport.send({ [button]: 0 }); }, plant.config.buttonHoldMs);
    held.set(button, timer);
    return true;
  }

  function feed(damaged) {
    if (!driving) { counters.refused += 1; log('only the driving page feeds boxes: take over to drive', 'error'); return false; }
    const s = plant.summary();
    if (s.boxes - s.arrived >= opt.maxWaiting) { counters.refused += 1; log(`${opt.maxWaiting} boxes are already waiting for the entry (is the plant running?)`, 'error'); return false; }
    plant.feed(Boolean(damaged));
    counters.fed += 1;
    return true;
  }

  /**
   * Feed boxes by themselves: perMinute boxes a minute (0 = off), a damagedShare of them damaged.
   * @returns {boolean} false when refused (not driving, or a rate outside 0..120)
   */
  function setAutoFeed(perMinute, damagedShare = 0.3) {
    if (auto) { T.clearInterval(auto.timer); auto = null; }
    const rate = Number(perMinute);
    if (!rate) return true;
    if (!(rate > 0 && rate <= 120) || !(damagedShare >= 0 && damagedShare <= 1)) { log(`automatic feed needs 1..120 boxes a minute and a damaged share 0..1 (got ${perMinute}, ${damagedShare})`, 'error'); return false; }
    if (!driving) { counters.refused += 1; log('only the driving page feeds boxes: take over to drive', 'error'); return false; }
    const timer = T.setInterval(() => { if (driving) feed(Math.random() < damagedShare); }, 60000 / rate);
    auto = { timer, perMinute: rate, damagedShare };
    return true;
  }

  return {
    plant,
    chart,
    counters,
    /** Connect, start the plant clock and, with a lease, claim the plant if nobody drives it. */
    async start() {
      if (started) return;
      started = true;
      last = now();
      ticker = T.setInterval(tick, opt.tickMs);
      const connecting = transport.connect().catch((err) => log(`${err.code || 'E_CONNECT'}: ${err.message} (still retrying)`, 'error'));
      if (!o.lease) {
        if (!readOnly) becomeDriver('a page of its own');
      } else {
        await claim(false);
        // The driver renews; a watcher asks as well, and gets the plant once its driver is gone.
        renewer = T.setInterval(() => claim(false), opt.renewMs);
      }
      await connecting;
    },
    /** Stop everything; the lease is given up. */
    async stop() {
      stopped = true;
      setAutoFeed(0);
      if (ticker) T.clearInterval(ticker);
      if (renewer) T.clearInterval(renewer);
      ticker = null;
      renewer = null;
      // A button this page holds is released before it goes: a page closed within a press would
      // leave StopButton held in the PLC, and no Start would ever latch again.
      const release = {};
      for (const [b, timer] of held) { T.clearTimeout(timer); release[b] = 0; }
      held.clear();
      if (driving) for (const [b, v] of Object.entries(plant.scene().buttons)) if (v) release[b] = 0;
      if (Object.keys(release).length) {
        transport.send(release);
        const end = now() + 1000; // its answer, where the transport tracks answers
        while ((transport.inFlight || 0) > 0 && now() < end) await new Promise((r) => T.setTimeout(r, 10));
      }
      if (driving && o.lease) { try { await o.lease.release(); } catch { /* page going away */ } }
      driving = false;
      await transport.close();
    },
    /** Take the plant over from the page that drives it (a twin token only). */
    takeOver: () => claim(true),
    /** Give up driving: this page watches, another page may take the lease. */
    async watch() {
      if (!driving) return;
      becomeWatcher('gave up driving');
      if (o.lease) { try { await o.lease.release(); } catch { /* lease expires by itself */ } }
      holder = null;
    },
    pressStart: () => momentary('st'),
    pressStop: () => momentary('sp'),
    feed,
    setAutoFeed,
    tick, // for tests on an injected clock
    get driving() { return driving; },
    get readOnly() { return readOnly; },
    /** The scene to draw: the model's boxes and pistons, damage as the PLC showed it. */
    scene() {
      const s = plant.scene();
      if (!driving) for (const b of [s.entry, ...s.c1, ...s.c2]) if (b && marked.has(b.id)) b.damaged = true;
      return s;
    },
    /** Everything the panel shows. */
    snapshot() {
      const ts = transport.stats();
      const own = plant.inputs();
      const seen = Object.fromEntries(INPUTS.map((k) => [k, driving || !(k in plc) ? own[k] : plc[k]]));
      const s = plant.summary();
      return {
        protocol: o.protocol || '',
        mode: driving ? 'driving' : 'watching',
        readOnly,
        holder,
        connection: { state: ts.state || (ts.connected ? 'connected' : 'connecting'), connected: Boolean(ts.connected), reconnects: ts.reconnects || 0, errors: ts.errors || 0, errorCodes: ts.errorCodes || {}, lastError: ts.lastError || '', sent: ts.sent || 0, received: ts.received || 0, acks: ts.acks || 0 },
        plc: { ...plc },
        inputs: seen,
        lamps: { green: plc.grn === 1, red: plc.red === 1 },
        counts: { good: plc.ng ?? null, rejected: plc.nr ?? null, boxesIn: plc.nb ?? null },
        feed: { waiting: s.boxes - s.arrived, auto: auto ? { perMinute: auto.perMinute, damagedShare: auto.damagedShare } : null },
        rtt: chart.stats(),
        pending: recorder.pending,
        counters: { ...counters },
        log: logLines.slice(),
      };
    },
  };
}

const LABEL = { ws: 'WebSocket–S7', mqttws: 'MQTT over WebSocket', http: 'HTTP polling' };

/**
 * The state in one or two sentences, for the page's aria-live region (lamps, counters,
 * connection, who drives): what a screen reader user hears when it changes.
 * @param {object} s snapshot()
 * @returns {string}
 */
function summaryText(s) {
  const conn = s.connection.connected ? `Connected over ${LABEL[s.protocol] || s.protocol}` : `Not connected (${s.connection.state})`;
  const who = s.readOnly ? 'watching with a read-only token' : s.mode === 'driving' ? 'this page drives the plant' : 'another page drives the plant';
  const run = s.lamps.green ? 'Plant running, green lamp on' : 'Plant stopped, green lamp off';
  const red = s.lamps.red ? 'red lamp on: rejecting a damaged box' : 'red lamp off';
  const counts = s.counts.good === null ? 'counters not known yet' : `${s.counts.good} good, ${s.counts.rejected} rejected`;
  return `${conn}; ${who}. ${run}, ${red}. ${counts}.`;
}

module.exports = { DEFAULTS, VARIABLES, createSession, createLeaseClient, summaryText, LABEL };
