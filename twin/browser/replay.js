'use strict';
/**
 * The browser twin's replay: a past window of the plant history (GET /s7twin/history, loaded by
 * ./replay-load.js) played again through the live view's own pipeline. The frames the edge sent
 * go, at their recorded times, into a session (./session.js: the plant model as a watching page
 * runs it, the mirror, the panel's snapshot) over a transport fed from the history instead of a
 * link; the plant model's clock is the replay's clock. So the boxes move as the watching page
 * would have drawn them then: a box enters when the PLC's state showed EntrySensor, the belts and
 * pistons move with the PLC's recorded outputs, and the lamps and counters are the PLC's values.
 * Nothing is simulated beyond what the live mirror does, and nothing is sent: the transport has
 * no link, and the session is a viewer's (it never drives).
 *
 * Time is the history's (`t`, the cloud's clock; live frames put on the edge's timing by
 * ./replay-load.js onEdgeTiming) and advances in fixed steps of plant time, split
 * at every frame's time: the same window gives the same plant at any speed, frame rate or load.
 * A step is short enough that no belt moves more than a few millimetres in it (10 ms at the study's
 * 250 mm/s, 1 ms at the fast profile's 3 m/s): where the model decides by position (is the landing
 * spot in front of piston 1 free yet?), a coarser step decided later than the plant had, and a
 * box pushed late missed piston 2 at the fast profile's speeds. Seeking backwards starts a fresh
 * session at the start of the lead-in and runs it forward to the new position (there is no way to
 * run a plant model backwards).
 *
 * Browser-safe; the worker (./worker.js) runs it, and Node tests run it as it is.
 */
const { createSession } = require('./session');

/** The speeds the page offers. */
const SPEEDS = [1, 2, 4, 8, 16];

const DEFAULTS = {
  stepMs: 10, // plant time per tick at most, as the live session's tick
  maxMoveMm: 4, // belt travel per tick at most (a faster belt gets shorter ticks, down to 1 ms)
};

/**
 * The replay's tick for a plant: at most DEFAULTS.stepMs, and short enough that the fastest belt
 * moves at most maxMoveMm in it.
 * @param {{c1SpeedMmS: number, c2SpeedMmS: number}} cfg plant.config
 * @returns {number} ms (a whole number, 1..stepMs)
 */
function stepFor(cfg) {
  const fastest = Math.max(cfg.c1SpeedMmS, cfg.c2SpeedMmS);
  return Math.max(1, Math.min(DEFAULTS.stepMs, Math.floor((DEFAULTS.maxMoveMm * 1000) / fastest)));
}

/** Timers for a session whose clock the replay drives: its own ticker never fires. */
const NO_TIMERS = {
  setInterval: () => 0, clearInterval: () => {}, setTimeout: () => 0, clearTimeout: () => {},
};

/**
 * A twin transport (the interface of docs/twin.md) fed from the history: `push` hands a frame's
 * values to the session; `send` sends nothing (a replay has no link) and counts what the session
 * would have sent.
 * @returns {{connect(): Promise<void>, send(values: object): boolean, onValues(cb: Function): void,
 *   push(values: object, kind: string): void, close(): Promise<void>, stats(): object, inFlight: number}}
 */
function createReplayTransport() {
  let handler = null;
  const stats = { state: 'replay', connected: true, received: 0, sent: 0, notSent: 0, acks: 0, errors: 0, reconnects: 0 };
  return {
    async connect() {},
    send() { stats.notSent += 1; return false; },
    onValues(cb) { handler = cb; },
    push(values, kind) {
      stats.received += 1;
      if (handler) handler(values, kind === 'snap' ? 'snap' : 'state');
    },
    async close() { stats.connected = false; stats.state = 'closed'; },
    stats: () => ({ ...stats }),
    inFlight: 0,
  };
}

/**
 * The replay's clock over a window of frames: which frames are due, and how far the plant advances
 * between them. Plain scheduling, no plant: `onFrame` and `onTick` do the work.
 * @param {object} o
 * @param {Array<{t: number}>} o.frames oldest first; those before `start` are due at once
 * @param {number} o.start where the clock starts (the lead-in's start, before the window)
 * @param {number} o.from the window the page shows: seeks and steps stay inside [from, to]
 * @param {number} o.to
 * @param {number} [o.stepMs] plant time per tick
 * @param {(frame: object) => void} o.onFrame a frame is due (at its time)
 * @param {(dtMs: number) => void} o.onTick the plant advances by dtMs
 * @param {() => void} o.onReset back to `start` with a fresh plant (a seek backwards)
 */
function createPlayer(o) {
  const stepMs = o.stepMs || DEFAULTS.stepMs;
  const { frames, from, to } = o;
  let pos = o.start;
  let next = 0; // index of the next frame due
  let playing = false;
  let speed = 1;

  function deliverDue() {
    while (next < frames.length && frames[next].t <= pos) { o.onFrame(frames[next]); next += 1; }
  }

  /** Run the clock forward to `target`: every frame at its time, the plant ticked in between. */
  function runTo(target) {
    deliverDue();
    while (pos < target) {
      const end = Math.min(pos + stepMs, target);
      const f = frames[next];
      if (f && f.t <= end) {
        if (f.t > pos) { o.onTick(f.t - pos); pos = f.t; }
        deliverDue();
      } else {
        o.onTick(end - pos);
        pos = end;
      }
    }
    deliverDue();
  }

  const clamp = (t) => Math.min(to, Math.max(from, t));

  /** Go to `t` (in the window): forward by running, backwards by starting again. */
  function seek(t) {
    const target = clamp(t);
    if (target < pos) {
      o.onReset();
      pos = o.start;
      next = 0;
    }
    runTo(target);
  }

  return {
    /** Play from here at the current speed (from the window's start again when it had ended). */
    play() {
      if (pos >= to) seek(from);
      playing = true;
    },
    pause() { playing = false; },
    /**
     * @param {number} x one of SPEEDS
     * @returns {boolean} false for a speed the page does not offer (nothing changes)
     */
    setSpeed(x) {
      if (!SPEEDS.includes(x)) return false;
      speed = x;
      return true;
    },
    seek,
    /**
     * Frame by frame: pause, and go to the next frame's time (+1) or the previous one's (-1)
     * inside the window; the window's end or start when there is none.
     * @param {1|-1} dir
     */
    step(dir) {
      playing = false;
      if (dir > 0) {
        const f = frames.find((x) => x.t > pos && x.t >= from);
        seek(f ? f.t : to);
      } else {
        let prev = null;
        for (const x of frames) { if (x.t >= pos) break; if (x.t >= from) prev = x; }
        seek(prev ? prev.t : from);
      }
    },
    /**
     * Real time passed: while playing, the clock runs `realMs × speed` on; at the window's end it
     * stops there.
     * @param {number} realMs
     * @returns {boolean} whether the clock moved
     */
    advance(realMs) {
      if (!playing || !(realMs > 0)) return false;
      runTo(Math.min(to, pos + realMs * speed));
      if (pos >= to) playing = false;
      return true;
    },
    /** Where the replay is. */
    state: () => ({ pos, playing, speed, from, to, ended: pos >= to }),
  };
}

/**
 * A replay: a player over the window's frames, driving a watching session on the replay's clock.
 * It starts at the lead-in's start with the state known then (`initial`, as a snapshot), and runs
 * through the lead-in to the window's start at once, so the belts carry the boxes they carried.
 * @param {object} o
 * @param {Array<{t: number, k: string, d: object}>} o.frames the history's frames, oldest first
 * @param {number} o.start the lead-in's start
 * @param {number} o.from the window
 * @param {number} o.to
 * @param {object} [o.initial] every tag's value known at `start` (./replay-load.js)
 * @param {object} [o.plant] plant options (profile: the driver's speeds)
 * @param {number} [o.stepMs] plant time per tick (default: stepFor the plant)
 * @param {(event: string, box: object) => void} [o.onBox] a box left the belts ('packed' | 'rejected')
 * @param {() => void} [o.onReset] the plant was started again (a seek backwards): drawn boxes go
 */
function createReplay(o) {
  let clock = o.start;
  let transport = null;
  let session = null;
  const counters = { frames: 0, backfill: 0, resets: 0, packed: 0, rejected: 0 };

  function fresh() {
    clock = o.start;
    transport = createReplayTransport();
    session = createSession({
      transport, protocol: 'replay', readOnly: true, plant: o.plant, now: () => clock, timers: NO_TIMERS,
    });
    session.plant.on('box', (event, box) => {
      if (event === 'arrived') return;
      if (event in counters) counters[event] += 1;
      if (o.onBox) o.onBox(event, { id: box.id, damaged: box.damaged, x: box.x });
    });
    session.start(); // no link, no lease: it watches at once (what start() awaits is the transport's connect)
    if (o.initial && Object.keys(o.initial).length) transport.push(o.initial, 'snap');
  }

  fresh();
  const player = createPlayer({
    frames: o.frames,
    start: o.start,
    from: o.from,
    to: o.to,
    stepMs: o.stepMs || stepFor(session.plant.config),
    onFrame(f) {
      counters.frames += 1;
      if (f.k === 'backfill') counters.backfill += 1;
      transport.push(f.d, f.k);
    },
    onTick(dt) {
      clock += dt;
      session.tick();
    },
    onReset() {
      counters.resets += 1;
      counters.packed = 0;
      counters.rejected = 0;
      fresh();
      if (o.onReset) o.onReset();
    },
  });

  player.seek(o.from);

  return {
    play: player.play,
    pause: player.pause,
    setSpeed: player.setSpeed,
    seek: player.seek,
    step: player.step,
    advance: player.advance,
    /** Where the replay is, and what it has replayed. */
    state: () => ({ ...player.state(), counters: { ...counters } }),
    /** The scene to draw (the session's: damage as the PLC showed it). */
    scene: () => session.scene(),
    /** The panel's state, as the live session gives it. */
    snapshot: () => session.snapshot(),
    /** What the session would have sent: nothing leaves a replay. */
    get notSent() { return transport.stats().notSent; },
  };
}

module.exports = { SPEEDS, DEFAULTS, stepFor, createReplayTransport, createPlayer, createReplay };
