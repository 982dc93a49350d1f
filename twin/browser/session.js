'use strict';
/**
 * The browser twin's model, without any drawing: one plant (twin/plant.js, the headless twin's
 * own model), one transport to the PLC (the twin transport interface of docs/twin.md: the
 * WebSocket–S7, MQTT or HTTP transport), the round-trip recorder, the rolling chart, the
 * controls, and who drives.
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
 * The parts: ./driver.js (who drives, the lease), ./mirror.js (a watcher's shadow boxes),
 * ./controls.js (buttons and feeding), ./panel.js (what the panel shows), ./lease-client.js.
 *
 * Browser-safe; timers and clocks are injectable, and Node tests run it against real endpoints.
 */
const { createPlant } = require('../plant');
const { createRecorder } = require('../recorder');
// The 3D page drives the demo box-sorting plant: its table.
const tags = require('../../nodes/lib/core/io-table').demoTable();
const { createChart } = require('./chart');
const { createLeaseClient } = require('./lease-client');
const { createDriver } = require('./driver');
const { createMirror } = require('./mirror');
const { createControls } = require('./controls');
const { LABEL, panelSnapshot, summaryText } = require('./panel');

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

/**
 * The frame as the recorder should time it: a trigger whose every output is already at its
 * expected value starts no timer (Start pressed while the plant runs: ConveyorBelt is on
 * already, and the next time it comes on, after a reject, is not this press's answer).
 * @param {object} batch the inputs that changed in one tick
 * @param {object} plc every value the PLC's state showed
 * @returns {object} the part of the frame whose round trips are timed
 */
function timedPart(batch, plc) {
  const out = { ...batch };
  for (const k of Object.keys(batch)) {
    const pairs = TIMED.filter((p) => p.trigger === k && batch[k] === p.value);
    if (pairs.length && pairs.every((p) => plc[p.output] === p.value)) delete out[k];
  }
  return out;
}

/**
 * Recent lines for the panel's log, the oldest dropped beyond `max`.
 * @param {number} max
 */
function createLog(max) {
  const lines = [];
  return {
    lines,
    add(text, kind = 'info') {
      lines.push({ t: Date.now(), kind, text });
      if (lines.length > max) lines.shift();
    },
  };
}

/**
 * @param {object} o
 * @param {object|Function} o.transport a twin transport (connect, send, onValues, close, stats),
 *   or a factory (log) => transport whose log lines the panel shows
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
  const T = o.timers || {
    setInterval: (f, ms) => setInterval(f, ms), clearInterval: (t) => clearInterval(t),
    setTimeout: (f, ms) => setTimeout(f, ms), clearTimeout: (t) => clearTimeout(t),
  };
  const plant = createPlant({ profile: 'study', ...(o.plant || {}), boxes: 0, feedWhileStopped: true, arrivalMs: 0 });
  const recorder = createRecorder({ protocol: o.protocol || '', timeoutMs: opt.timeoutMs, now, keepSamples: false });
  const chart = createChart(VARIABLES, { spanMs: opt.chartSpanMs });
  const plc = {}; // every value the PLC's state and snapshots said, outputs and (WebSocket–S7) inputs
  const counters = {
    frames: 0, snaps: 0, states: 0, fed: 0, refused: 0, expired: 0, leaseLost: 0, takeovers: 0, followed: 0, markedDamaged: 0, waitedMs: 0,
  };
  const logBook = createLog(opt.logLines);
  const log = logBook.add;
  let ticker = null;
  let renewer = null;
  let last = 0;
  let started = false;
  let stopped = false;
  let held = false; // the page replays the past: it neither drives nor asks to

  // The transport's own errors (err envelopes, refused commands, failed connections) go to the
  // panel's log: a factory gets the log function.
  const transport = typeof o.transport === 'function' ? o.transport((line) => log(line, 'error')) : o.transport;
  const mirror = createMirror(plant, counters);
  const driver = createDriver({
    lease: o.lease, readOnly: o.readOnly, plant, recorder, transport, now, log, counters,
    onWatch: () => controls.setAutoFeed(0), stopped: () => stopped, held: () => held,
  });
  const controls = createControls({ plant, transport, timers: T, counters, log, role: driver, protocol: o.protocol, maxWaiting: opt.maxWaiting });

  let waits = ''; // why the driving page's plant waits ('' while it runs)

  /**
   * Why a driving page's plant cannot run now: the PLC cannot hear it. A box moving then would
   * pass its sensors unseen (the PLC gets only the inputs' last values once it hears the page
   * again), and a damaged one would never be rejected; so the plant's clock stops, as a held page's
   * does, until the link is up and the edge and the PLC are back.
   */
  function waitingFor(ts) {
    if (ts.connected === false) return 'no link to the cloud';
    if (!ts.plcAway) return '';
    return `the ${ts.plcAway === 'E_EDGE_DOWN' ? 'edge' : 'PLC'} is away (${ts.plcAway})`;
  }

  function tick() {
    const t = now();
    const dt = Math.min(t - last, opt.maxDtMs);
    last = t;
    const why = driver.driving ? waitingFor(transport.stats()) : '';
    if (why !== waits) log(why ? `the plant waits: ${why}` : 'the plant runs again');
    waits = why;
    if (why) {
      counters.waitedMs += Math.max(0, dt);
      counters.expired += recorder.sweep();
      return;
    }
    const batch = plant.tick(Math.max(0, dt));
    if (driver.driving && Object.keys(batch).length) {
      recorder.sent(timedPart(batch, plc), now());
      transport.send(batch);
      counters.frames += 1;
    }
    counters.expired += recorder.sweep();
    chart.prune(t);
  }

  transport.onValues((values, kind) => {
    const t = now();
    counters[kind === 'snap' ? 'snaps' : 'states'] += 1;
    const prev = { ...plc };
    Object.assign(plc, values);
    if (driver.driving) {
      for (const r of recorder.received(values, t)) {
        chart.push(r.variable, t, r.ms);
        if (o.onRoundTrip) o.onRoundTrip(r.variable, r.ms);
      }
    } else {
      mirror.follow(prev, values);
    }
    const outs = {};
    for (const [k, v] of Object.entries(values)) if (OUTPUTS.has(k)) outs[k] = v;
    plant.applyOutputs(outs);
    if (kind === 'snap') log(`snapshot from the PLC (${Object.keys(values).length} values)`);
  });

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
        driver.drive('a page of its own');
      } else {
        await driver.claim(false);
        // The driver renews; a watcher asks as well, and gets the plant once its driver is gone.
        renewer = T.setInterval(() => { if (!held) driver.claim(false); }, opt.renewMs);
      }
      await connecting;
    },
    /** Stop everything; the lease is given up. */
    async stop() {
      stopped = true;
      controls.setAutoFeed(0);
      if (ticker) T.clearInterval(ticker);
      if (renewer) T.clearInterval(renewer);
      ticker = null;
      renewer = null;
      // A button this page holds is released before it goes: a page closed within a press would
      // leave StopButton held in the PLC, and no Start would ever latch again.
      const release = controls.releases();
      if (Object.keys(release).length) {
        transport.send(release);
        const end = now() + 1000; // its answer, where the transport tracks answers
        while ((transport.inFlight || 0) > 0 && now() < end) await new Promise((r) => T.setTimeout(r, 10));
      }
      await driver.leave();
      await transport.close();
    },
    /** Take the plant over from the page that drives it (a twin token only). */
    takeOver: () => driver.claim(true),
    /** Give up driving: this page watches, another page may take the lease. */
    watch: () => driver.watch(),
    /**
     * Hold (the page replays the past) or let go: while held the page watches and sends nothing of
     * its model, gives the lease up if it drove (another page may take the plant) and does not ask
     * for it; let go, it asks again and drives if the plant is free.
     * @param {boolean} on
     */
    async hold(on) {
      held = Boolean(on);
      if (held) { controls.setAutoFeed(0); await driver.watch(); } else if (o.lease) await driver.claim(false);
    },
    get held() { return held; },
    pressStart: () => controls.momentary('st'),
    pressStop: () => controls.momentary('sp'),
    feed: controls.feed,
    setAutoFeed: controls.setAutoFeed,
    tick, // for tests on an injected clock
    get driving() { return driver.driving; },
    get readOnly() { return driver.readOnly; },
    /** The scene to draw: the model's boxes and pistons, damage as the PLC showed it. */
    scene() {
      const s = plant.scene();
      return driver.driving ? s : mirror.mark(s);
    },
    /** Everything the panel shows. */
    snapshot() {
      return panelSnapshot({
        protocol: o.protocol || '', driving: driver.driving, readOnly: driver.readOnly, holder: driver.holder,
        transportStats: transport.stats(), own: plant.inputs(), plc, summary: plant.summary(), auto: controls.auto,
        rtt: chart.stats(), pending: recorder.pending, counters, log: logBook.lines, waits,
      });
    },
  };
}

module.exports = { DEFAULTS, VARIABLES, createSession, createLeaseClient, createLog, summaryText, LABEL, timedPart };
