/**
 * The browser twin's worker: the twin itself (twin/browser/session.js: the plant model, the
 * transport to the PLC, the recorder, who drives) runs here, off the page's main thread. Drawing
 * a 3D frame can hold the main thread for tens of milliseconds where the GPU is slow (software
 * WebGL held it for 60 ms at a time in headless Chromium, and the page's round trips rose from
 * 6 to 90 ms); here the plant ticks and the PLC's answers are taken on time whatever the drawing
 * costs, and a tab in the background keeps its plant clock (browsers throttle a hidden page's
 * timers, a worker's much less).
 *
 * The page generated for any other plant (tags.html) runs its model here too
 * (twin/browser/tag-session.js: the plant's tags, writes, round trips) over the same transports.
 *
 * The replay (twin/browser/replay.js) runs in a second instance of this worker, so the live twin
 * goes on in the first while a past window plays: it loads the window from the plant history with
 * the page's token (twin/browser/replay-load.js) and sends the page the same frames, snapshots and
 * box events as the live twin does, on the replay's clock.
 *
 * Messages in: connect {creds, protocol, config, profile, id, pollMs, encoding, kind?: 'tags'},
 * act {name, args}, now (a frame and a snapshot at once), disconnect; replay-load {load, history: {path,
 * plant}, token, from, to, profile, tags}, replay-ctl {op: play|pause|step|seek|speed, arg},
 * replay-stop. Out: who {status, role, table}, frame {scene} (about 60 a second, the 3D page),
 * snapshot {snapshot} (5 a second), values {values, t} (the generated page: every state as it
 * comes), box {event, box}, rtt {variable, ms}, written {short, result}, closed; replay-loaded
 * {window}, replay-state {state}, replay-reset, replay-error {code, message}.
 * A replay-load carries the page's number for it (`load`), and every message of that replay echoes
 * it: a window asked for twice in quick succession, or a Live pressed while one loads, leaves only
 * the newest load playing, and the page drops what an older one still sent.
 */
importScripts('vendor/mqtt.min.js', 'vendor/msgpack.min.js', 'modules.js');

const R = self.S7Twin.require;
const { createSession, createLeaseClient } = R('twin/browser/session.js');
const { createTagSession } = R('twin/browser/tag-session.js');

const FRAME_MS = 16; // scene to the page about as often as it draws
const SNAPSHOT_MS = 200; // panel state

let session = null;
let timers = [];

/** A request function for the HTTP transport, on fetch (bodies only: a page cannot see headers). */
function fetchRequest(r) {
  return fetch(r.url, { method: r.method, headers: r.headers, body: r.body, cache: 'no-store' })
    .then(async (res) => ({ status: res.status, text: await res.text() }))
    .catch((err) => { throw Object.assign(new Error(err.message), { code: 'E_HTTP_NETWORK' }); });
}

function transportFactory(m) {
  const loc = self.location;
  const wsScheme = loc.protocol === 'https:' ? 'wss:' : 'ws:';
  const p = m.config.protocols;
  const { creds, id } = m;
  if (m.protocol === 'ws') {
    const { createTransport } = R('twin/browser/link-ws.js');
    return (log) => createTransport({
      url: `${wsScheme}//${loc.host}${p.ws.path}`, token: creds.token, plant: p.ws.plant, id, encoding: m.encoding, table: m.table, log,
    });
  }
  if (m.protocol === 'mqttws') {
    const { createTransport } = R('twin/transports/mqtt.js');
    const url = p.mqtt.url || `${wsScheme}//${loc.hostname}:${p.mqtt.port}${p.mqtt.path || '/mqtt'}`;
    return (log) => createTransport({ url, username: creds.mqttUser, password: creds.mqttPass, plant: p.mqtt.plant, qos: 0, id, log, table: m.table });
  }
  const { createTransport } = R('twin/transports/http.js');
  return (log) => createTransport({ url: `${loc.origin}${p.http.path}`, token: creds.token, id, pollMs: m.pollMs || 25, request: fetchRequest, log });
}

async function stop() {
  for (const t of timers) clearInterval(t);
  timers = [];
  if (!session) return;
  const s = session;
  session = null;
  await s.stop();
}

async function connect(m) {
  await stop();
  const lease = createLeaseClient({ fetch: (...a) => fetch(...a), base: '', token: m.creds.token, id: m.id, label: `page ${m.id.slice(-4)}` });
  let who;
  try { who = await lease.who(); } catch (err) { who = { status: 0, error: { code: 'E_NETWORK', msg: err.message } }; }
  self.postMessage({ type: 'who', status: who.status, role: who.role || null, error: who.error || null,
    table: who.table || null });
  if (who.status !== 200) return;
  if (m.kind === 'tags') { await connectTags(m, who); return; }
  const s = createSession({
    transport: transportFactory(m),
    protocol: m.protocol,
    lease,
    readOnly: who.role === 'viewer',
    plant: { profile: m.profile },
    onRoundTrip: (variable, ms) => self.postMessage({ type: 'rtt', variable, ms }),
  });
  session = s;
  s.plant.on('box', (event, box) => {
    if (event !== 'arrived') self.postMessage({ type: 'box', event, box: { id: box.id, damaged: box.damaged, x: box.x } });
  });
  timers.push(setInterval(() => { if (session === s) self.postMessage({ type: 'frame', scene: s.scene() }); }, FRAME_MS));
  timers.push(setInterval(() => { if (session === s) self.postMessage({ type: 'snapshot', snapshot: s.snapshot() }); }, SNAPSHOT_MS));
  await s.start();
  self.postMessage({ type: 'snapshot', snapshot: s.snapshot() });
}

/** The generated page's model: the plant's table from the cloud (it came with the token's session). */
async function connectTags(m, who) {
  const s = createTagSession({
    table: who.table,
    transport: transportFactory({ ...m, table: who.table }),
    protocol: m.protocol,
    readOnly: who.role === 'viewer',
    onValues: (values, t) => self.postMessage({ type: 'values', values, t }),
    onRoundTrip: (variable, ms) => self.postMessage({ type: 'rtt', variable, ms }),
  });
  session = s;
  timers.push(setInterval(() => { if (session === s) self.postMessage({ type: 'snapshot', snapshot: s.snapshot() }); }, SNAPSHOT_MS));
  await s.start();
  self.postMessage({ type: 'snapshot', snapshot: s.snapshot() });
}

// ---- replay ----------------------------------------------------------------------------------
let replay = null;
let replayTimer = null;
let wanted = 0; // the page's number of the window it wants now (0 after a stop): an older load drops its window
let replayLoad = 0; // the number of the load playing now, echoed in its messages

function stopReplay() {
  if (replayTimer) clearInterval(replayTimer);
  replayTimer = null;
  replay = null;
}

/** A message of the replay playing now, with its load's number. */
const postOfReplay = (msg) => self.postMessage({ ...msg, load: replayLoad });

/** The replay's frame, snapshot and state to the page now. */
function postReplay(r) {
  postOfReplay({ type: 'frame', scene: r.scene() });
  postOfReplay({ type: 'snapshot', snapshot: r.snapshot() });
  postOfReplay({ type: 'replay-state', state: r.state() });
}

async function loadReplay(m) {
  stopReplay();
  wanted = m.load;
  const { historyClient, loadWindow } = R('twin/browser/replay-load.js');
  const { createReplay } = R('twin/browser/replay.js');
  const { historyMarks } = R('twin/browser/timeline.js');
  const get = historyClient({ fetch: (...a) => fetch(...a), path: m.history.path, token: m.token, plant: m.history.plant });
  const w = await loadWindow(get, { from: m.from, to: m.to, tags: m.tags });
  if (wanted !== m.load) return; // a newer load, or a stop, came in while this one fetched
  replayLoad = m.load;
  const r = createReplay({
    frames: w.frames, start: w.start, from: w.from, to: w.to, initial: w.initial, plant: { profile: m.profile },
    onBox: (event, box) => postOfReplay({ type: 'box', event, box }),
    onReset: () => postOfReplay({ type: 'replay-reset' }),
  });
  replay = r;
  postOfReplay({
    type: 'replay-loaded',
    window: {
      start: w.start, from: w.from, to: w.to, frames: w.frames.length, truncated: w.truncated, pages: w.pages, unknown: w.unknown,
      commands: w.commands, commandsTruncated: w.commandsTruncated, marks: historyMarks(w.frames, w.from, w.to),
    },
  });
  postReplay(r);
  let last = performance.now();
  let lastSnap = 0;
  replayTimer = setInterval(() => {
    if (replay !== r) return;
    const t = performance.now();
    const moved = r.advance(t - last);
    last = t;
    if (moved) postOfReplay({ type: 'frame', scene: r.scene() });
    if (moved && (t - lastSnap >= SNAPSHOT_MS || !r.state().playing)) { // and once more where it stopped
      lastSnap = t;
      postOfReplay({ type: 'snapshot', snapshot: r.snapshot() });
      postOfReplay({ type: 'replay-state', state: r.state() });
    }
  }, FRAME_MS);
}

const REPLAY_OPS = { play: (r) => r.play(), pause: (r) => r.pause(), step: (r, a) => r.step(a < 0 ? -1 : 1), seek: (r, a) => r.seek(Number(a)),
  speed: (r, a) => r.setSpeed(Number(a)) };

async function onReplay(m) {
  if (m.type === 'replay-load') {
    try {
      await loadReplay(m);
    } catch (err) {
      self.postMessage({ type: 'replay-error', code: err.code || 'E_REPLAY', message: err.message, load: m.load });
    }
  } else if (m.type === 'replay-stop') {
    wanted = 0; // a load still fetching is not played
    stopReplay();
  } else if (m.type === 'replay-ctl' && replay && REPLAY_OPS[m.op]) {
    REPLAY_OPS[m.op](replay, m.arg);
    postReplay(replay);
  }
}

const ACTIONS = new Set(['pressStart', 'pressStop', 'feed', 'setAutoFeed', 'takeOver', 'watch', 'write', 'hold']);

self.onmessage = async (ev) => {
  const m = ev.data || {};
  try {
    if (m.type === 'connect') await connect(m);
    else if (m.type === 'disconnect') { await stop(); self.postMessage({ type: 'closed' }); }
    else if (String(m.type).startsWith('replay-')) await onReplay(m);
    else if (m.type === 'now' && session) {
      if (session.scene) self.postMessage({ type: 'frame', scene: session.scene() });
      self.postMessage({ type: 'snapshot', snapshot: session.snapshot() });
    }
    else if (m.type === 'act' && session && ACTIONS.has(m.name) && typeof session[m.name] === 'function') {
      const result = await session[m.name](...(m.args || []));
      if (m.name === 'write') self.postMessage({ type: 'written', short: m.args[0], result });
      self.postMessage({ type: 'snapshot', snapshot: session.snapshot() });
    }
  } catch (err) {
    self.postMessage({ type: 'error', message: err.message, code: err.code || '' });
  }
};
