/**
 * The browser twin's page: the DOM, the 3D scene (scene.mjs) and the chart, for the twin that
 * runs in worker.js (twin/browser/session.js: the plant model, the transport, who drives). The
 * CommonJS modules come from modules.js (the cloud bundles the project's own files:
 * nodes/lib/web/page-bundle.js).
 *
 * The token is typed once and kept in sessionStorage (or localStorage when "remember" is ticked),
 * never in the page or its URL. URL parameters: ?protocol=ws|mqttws|http, ?profile=study|fast
 * (plant speeds; every page watching one plant should use the driver's), ?pollMs= (HTTP),
 * ?encoding=json (WebSocket–S7 frames as readable JSON instead of the compact encoding),
 * ?mqtt=ws://host:port/mqtt (the broker's WebSocket where it is not this host at the configured
 * port: behind a proxy, or the benchmark's emulated WAN).
 *
 * Replay (replay-ui.mjs, the bar under the 3D view): a past window of the plant history plays in
 * a second worker while the live twin goes on in the first; the 3D view and the panel show the
 * replay's frames and snapshots, every control that would send is off, and Live shows the live
 * twin again at once.
 *
 * window.s7twin is for tests and the benchmark: the last snapshot, actions, frame statistics, the replay.
 */
import { createPlantScene } from './scene.mjs';
import { createReplayBar } from './replay-ui.mjs';
import {
  $, params, setBadge, logLine, connectionForm, connectedButtons, withMqttUrl, twinWorker, pageId, rttRows, connectionDetail, drawRttChart,
} from './page.mjs';

const R = window.S7Twin.require;
const { summaryText, LABEL, VARIABLES } = R('twin/browser/session.js');
const chartLib = R('twin/browser/chart.js');
const timeline = R('twin/browser/timeline.js');
const { SPEEDS } = R('twin/browser/replay.js');
const tags = R('nodes/lib/core/io-table.js').demoTable(); // the 3D scene is the demo box-sorting plant's

const COLORS = { c1: '#1d70b8', p1bw: '#6f42c1', p2fw: '#d63384', p3fw: '#198754', red: '#fd7e14' };
const SENSORS = tags.inputs.filter((t) => !['st', 'sp'].includes(t.short));

let config = null;
let worker = null;
let connected = false; // a twin runs in the worker
let token = null; // the connected page's token: the replay reads the history with it
let replayWorker = null;
let replaying = false; // the view shows the replay's frames; the live twin goes on behind
let replayLoad = 0; // the number of the newest window asked for (the replay worker echoes it)
let bar = null;
const replayed = { scene: null, snap: null, state: null, window: null, boxes: { packed: 0, rejected: 0 }, moved: new Map() };
const MAX_TRACKED = 200; // boxes whose travel window.s7twin.replay() reports
let lastScene = null;
let chart = chartLib.createChart(VARIABLES);
let scene = null;
let sceneCfg = null;
let lastSummary = '';
let lastSummaryAt = 0;
let lastLogT = 0;

// ---- connect / disconnect: the twin runs in the worker ----------------------------------------
function onWorker(m) {
  if (m.type === 'frame') lastScene = m.scene;
  else if (m.type === 'snapshot') { lastSnap = m.snapshot; if (!replaying) refresh(); }
  else if (m.type === 'rtt') {
    chart.push(m.variable, performance.now(), m.ms);
    perf.rtt.push([m.variable, m.ms]);
    if (perf.rtt.length > perf.max) perf.rtt.shift();
  }
  else if (m.type === 'box') { if (scene && !replaying) scene.leave(m.event, m.box); }
  else if (m.type === 'closed') window.s7twin.closed = true;
  else if (m.type === 'who' && m.status !== 200) {
    connected = false;
    setBadge('off', m.status === 401 ? 'token refused' : 'cloud unreachable');
    logLine(m.status === 401 ? 'the cloud refused this token (E_UNAUTHORIZED)' : `cannot reach the cloud: ${m.error ? m.error.msg : m.status}`, 'error');
    refresh();
  } else if (m.type === 'error') logLine(`${m.code ? `${m.code}: ` : ''}${m.message}`, 'error');
}

/** A control of the plant: never while replaying (nothing is sent then). */
function act(name, ...args) {
  if (worker && connected && !replaying) worker.postMessage({ type: 'act', name, args });
}

const profileOf = () => params.get('profile') || config.profile || 'study';
const plantConfig = () => R('twin/plant.js').createPlant({ profile: profileOf(), boxes: 0 }).config;

function connect(creds) {
  if (!worker) worker = twinWorker(onWorker);
  const profile = profileOf();
  token = creds.token;
  if (replaying) toLive();
  buildScene(plantConfig());
  chart = chartLib.createChart(VARIABLES);
  lastSnap = null;
  lastScene = null;
  connected = true;
  setBadge('wait', 'connecting…');
  worker.postMessage({
    type: 'connect', creds: { token: creds.token, mqttUser: creds.mqttUser, mqttPass: creds.mqttPass }, protocol: creds.protocol,
    config: withMqttUrl(config), profile, id: pageId(), pollMs: Number(params.get('pollMs')) || 25, encoding: params.get('encoding') || 'compact',
  });
  connectedButtons(true);
  if (bar) bar.enable(Boolean(config.history));
}

function disconnect() {
  if (!worker || !connected) return;
  connected = false;
  // The replay reads the history with the connected page's token: it ends with the connection
  // (after `connected` is false, so the live twin is not asked to drive again on its way out).
  if (replaying) toLive();
  token = null;
  if (bar) bar.enable(false);
  window.s7twin.closed = false;
  worker.postMessage({ type: 'disconnect' });
  lastSnap = null;
  setBadge('off', 'not connected');
  connectedButtons(false);
  refresh();
}

// ---- replay: a second worker plays a past window; the live twin goes on in the first ----------
function onReplayWorker(m) {
  if (!replaying || m.load !== replayLoad) return; // an older load's, or one from before Live
  if (m.type === 'frame') { replayed.scene = m.scene; track(m.scene); }
  else if (m.type === 'snapshot') { replayed.snap = m.snapshot; refresh(); }
  else if (m.type === 'replay-state') { replayed.state = m.state; bar.state(m.state); refresh(); }
  else if (m.type === 'box') { replayed.boxes[m.event] = (replayed.boxes[m.event] || 0) + 1; if (scene) scene.leave(m.event, m.box); }
  else if (m.type === 'replay-reset') { replayed.boxes = { packed: 0, rejected: 0 }; buildScene(plantConfig(), true); }
  else if (m.type === 'replay-loaded') {
    replayed.window = m.window;
    bar.loaded(m.window);
    logLine(`replay of ${timeline.clockText(m.window.from)}–${timeline.clockText(m.window.to)} loaded`);
  }
  else if (m.type === 'replay-error') { bar.error(m.code, m.message); logLine(`replay: ${m.code}: ${m.message}`, 'error'); }
}

/** Where each box on the belts was first and last drawn in the replay (window.s7twin.replay: the boxes moved). */
function track(sc) {
  for (const [belt, boxes] of [['c1', sc.c1], ['c2', sc.c2]]) {
    for (const b of boxes) {
      const k = `${belt}:${b.id}`;
      const seen = replayed.moved.get(k);
      if (seen) seen.last = b.x;
      else if (replayed.moved.size < MAX_TRACKED) replayed.moved.set(k, { first: b.x, last: b.x });
    }
  }
}

/** Load a window and show it: the view and the panel follow the replay from now on. */
function loadReplay(from, to) {
  if (!token || !config.history) return;
  if (!replayWorker) replayWorker = twinWorker(onReplayWorker);
  // The live twin goes on watching behind the replay, and sends nothing: a driving page gives the plant up meanwhile.
  if (!replaying && worker && connected) worker.postMessage({ type: 'act', name: 'hold', args: [true] });
  replaying = true;
  Object.assign(replayed, { scene: null, snap: null, state: null, window: null, boxes: { packed: 0, rejected: 0 }, moved: new Map() });
  buildScene(plantConfig(), true);
  bar.loading(from, to);
  replayLoad += 1;
  replayWorker.postMessage({
    type: 'replay-load', load: replayLoad, history: config.history, token, from, to, profile: profileOf(), tags: tags.streamed.map((t) => t.short),
  });
  refresh();
}

function replayControl(op, arg) {
  if (replaying && replayWorker) replayWorker.postMessage({ type: 'replay-ctl', op, arg });
}

/** Back to the present: the replay stops, the view shows the live twin's plant at once. */
function toLive() {
  if (!replaying) return;
  replaying = false;
  if (replayWorker) replayWorker.postMessage({ type: 'replay-stop' });
  bar.live();
  buildScene(plantConfig(), true);
  if (worker && connected) {
    worker.postMessage({ type: 'act', name: 'hold', args: [false] });
    worker.postMessage({ type: 'now' });
  }
  logLine('back to live');
  refresh();
}

// ---- the 3D view -----------------------------------------------------------------------------
/** The scene for a plant of `cfg`; fresh: a new one (no boxes of what it showed before). */
function buildScene(cfg, fresh = false) {
  if (scene && !fresh && sceneCfg === JSON.stringify(cfg)) return;
  if (scene) { scene.dispose(); scene = null; }
  try {
    scene = createPlantScene($('scene'), cfg, { quality: params.get('quality') || 'auto' });
    sceneCfg = JSON.stringify(cfg);
    scene.resize();
    $('no-webgl').hidden = true;
  } catch (err) {
    scene = null;
    $('no-webgl').hidden = false;
    logLine(`no 3D view: ${err.message}`, 'error');
  }
}

const perf = { intervals: [], work: [], rtt: [], longTasks: 0, longTaskMs: 0, last: 0, max: 20000, recent: [] };
function frame(t) {
  requestAnimationFrame(frame);
  if (perf.last) {
    const dt = t - perf.last;
    perf.intervals.push(dt);
    if (perf.intervals.length > perf.max) perf.intervals.shift();
    // Slow frames for a second (median over 40 ms): draw fewer pixels.
    perf.recent.push(dt);
    if (perf.recent.length >= 30) {
      const med = perf.recent.slice().sort((a, b) => a - b)[15];
      perf.recent.length = 0;
      if (med > 40 && scene) scene.slower();
    }
  }
  perf.last = t;
  if (!scene) return;
  const t0 = performance.now();
  const sc = replaying ? replayed.scene : connected && lastScene;
  const sn = replaying ? replayed.snap : lastSnap;
  if (sc && sn) scene.update(sc, { outputs: sc.outputs, inputs: sn.inputs, good: sn.counts.good, rejected: sn.counts.rejected });
  scene.render();
  perf.work.push(performance.now() - t0);
  if (perf.work.length > perf.max) perf.work.shift();
}
try {
  const longTask = (list) => { for (const e of list.getEntries()) { perf.longTasks += 1; perf.longTaskMs += e.duration; } };
  new PerformanceObserver(longTask).observe({ type: 'longtask', buffered: true });
} catch { /* no long-task timing in this browser */ }

// ---- the panel -------------------------------------------------------------------------------
let lastSnap = null;
const onOff = (v) => (v === undefined ? '–' : v ? 'on' : 'off');

/** The badge and the mode line while replaying: what is shown, and that nothing is sent. */
function replayMode() {
  const st = replayed.state;
  const at = st ? `${timeline.clockText(st.pos)} · ${st.speed}×${st.playing ? '' : ' · paused'}` : 'loading';
  setBadge('replay', `replay · ${at}`);
  $('mode').textContent = 'Replay: the plant as its history recorded it. Nothing is sent to the PLC; Live returns to the present.';
}

function refresh() {
  const s = replaying ? replayed.snap : connected ? lastSnap : null;
  const up = Boolean(!replaying && s && s.connection.connected);
  for (const id of ['start', 'stop']) $(id).disabled = !up;
  const drive = Boolean(!replaying && s && s.mode === 'driving');
  for (const id of ['feed-good', 'feed-bad', 'rate', 'share']) $(id).disabled = !drive;
  $('takeover').hidden = replaying || !s || drive || s.readOnly;
  $('giveup').hidden = !drive;
  document.body.classList.toggle('replaying', replaying);
  if (replaying) replayMode();
  if (!s) {
    if (!replaying) $('mode').textContent = 'Not connected.';
    $('summary').textContent = replaying ? 'Replay: loading the window.' : 'Not connected.';
    return;
  }
  const c = s.connection;
  if (!replaying) {
    if (c.connected) setBadge(s.waits ? 'wait' : 'on', `${LABEL[s.protocol]} · ${drive ? (s.waits ? 'driving, the plant waits' : 'driving') : 'watching'}`);
    else setBadge(c.state === 'closed' ? 'off' : 'wait', `${LABEL[s.protocol]} · ${c.state === 'waiting' ? 'reconnecting' : c.state}`);
    $('mode').textContent = s.readOnly ? 'Watching with a viewer token: the cloud refuses this page\'s commands.'
      : drive && s.waits ? `This page drives the plant, which waits: ${s.waits}. Boxes fed meanwhile wait in the feed.`
      : drive ? 'This page drives the plant: its model sends the sensor inputs, and it may feed boxes.'
        : `Watching: ${s.holder ? `${s.holder.label || 'another page'} drives the plant` : 'no page drives the plant'}. Start and Stop still work from here.`;
  }
  $('s-grn').textContent = onOff(s.plc.grn);
  $('s-red').textContent = onOff(s.plc.red);
  $('s-ng').textContent = s.counts.good ?? '–';
  $('s-nr').textContent = s.counts.rejected ?? '–';
  $('s-nb').textContent = s.counts.boxesIn ?? '–';
  $('s-sensors').textContent = SENSORS.filter((t) => s.inputs[t.short] === 1).map((t) => t.name).join(', ') || 'none';
  $('s-waiting').textContent = String(s.feed.waiting);
  $('hud-green').classList.toggle('lit', s.plc.grn === 1);
  $('hud-red').classList.toggle('lit', s.plc.red === 1);
  $('hud-good').textContent = `good ${s.counts.good ?? '–'}`;
  $('hud-rejected').textContent = `rejected ${s.counts.rejected ?? '–'}`;
  // The live region speaks when lamps, counters, connection or driver change, at most every 2 s.
  const text = replaying ? replaySummary(s) : summaryText(s);
  if (text !== lastSummary && Date.now() - lastSummaryAt > 2000) { $('summary').textContent = text; lastSummary = text; lastSummaryAt = Date.now(); }
  if (replaying) return; // the round trips and the log stay the live twin's
  $('rtt-table').tBodies[0].innerHTML = rttRows(VARIABLES.map((v) => ({ key: v, name: tags.get(v).name })), s.rtt);
  $('conn-detail').textContent = connectionDetail(c);
  for (const l of s.log) if (l.t > lastLogT) { logLine(l.text, l.kind, l.t); lastLogT = l.t; }
}

/** The replay's state in a sentence, for the live region. */
function replaySummary(s) {
  const st = replayed.state;
  const run = s.lamps.green ? 'plant running' : 'plant stopped';
  const counts = s.counts.good === null ? 'counters not known' : `${s.counts.good} good, ${s.counts.rejected} rejected`;
  return `Replay at ${st ? timeline.clockText(st.pos) : 'the window\'s start'}${st && st.playing ? '' : ', paused'}: ${run}, ${counts}.`;
}

function drawChart() {
  if (connected) drawRttChart($('chart'), chartLib, chart, COLORS);
}

// ---- wiring ----------------------------------------------------------------------------------
async function main() {
  config = await (await fetch('config.json', { cache: 'no-store' })).json();
  $('title').textContent = config.title || 'Box-sorting plant';
  const saved = connectionForm($('connect-sec'), config, { connect, disconnect });
  bar = createReplayBar({ timeline, speeds: SPEEDS, table: tags, load: loadReplay, control: replayControl, live: toLive });
  if (!config.history) $('replay-status').textContent = 'This cloud serves no plant history (its admin API is off), so there is no replay.';
  $('start').addEventListener('click', () => act('pressStart'));
  $('stop').addEventListener('click', () => act('pressStop'));
  $('feed-good').addEventListener('click', () => act('feed', false));
  $('feed-bad').addEventListener('click', () => act('feed', true));
  $('takeover').addEventListener('click', () => act('takeOver'));
  $('giveup').addEventListener('click', () => act('watch'));
  const applyRate = () => {
    const n = Number($('rate').value);
    $('rate-out').textContent = n ? `${n} a minute` : 'off';
    act('setAutoFeed', n, Math.min(100, Math.max(0, Number($('share').value) || 0)) / 100);
  };
  $('rate').addEventListener('input', applyRate);
  $('share').addEventListener('change', applyRate);
  $('reset-view').addEventListener('click', () => scene && scene.resetView());
  $('zoom-in').addEventListener('click', () => scene && scene.zoom(0.8));
  $('zoom-out').addEventListener('click', () => scene && scene.zoom(1.25));
  $('scene').addEventListener('keydown', (ev) => {
    if (!scene) return;
    if (ev.key === '+' || ev.key === '=') scene.zoom(0.8);
    else if (ev.key === '-') scene.zoom(1.25);
    else if (ev.key === 'r' || ev.key === 'R') scene.resetView();
  });
  new ResizeObserver(() => scene && scene.resize()).observe($('scene'));
  window.addEventListener('pagehide', () => disconnect());
  setInterval(refresh, 200);
  setInterval(drawChart, 500);
  requestAnimationFrame(frame);
  // Before connecting, the view shows the plant at rest (a study-sized plant, or ?profile=).
  buildScene(plantConfig());
  if (saved && saved.token) connect(saved);
}

/** For tests and the benchmark (no secrets: the token is not here). */
window.s7twin = {
  snapshot: () => (replaying ? replayed.snap : connected ? lastSnap : null),
  scene: () => (replaying ? replayed.scene : connected ? lastScene : null),
  /**
   * The replay: whether the view shows it, the loaded window (its commands counted), where it is,
   * the boxes it sorted, and how many boxes the drawn scenes showed moving along a belt.
   */
  replay: () => ({
    replaying,
    window: replayed.window && { ...replayed.window, commands: replayed.window.commands.length },
    state: replayed.state,
    boxes: { ...replayed.boxes },
    moved: [...replayed.moved.values()].filter((v) => v.last > v.first).length,
  }),
  act,
  get config() { return config; },
  perf: {
    reset() { perf.intervals.length = 0; perf.work.length = 0; perf.rtt.length = 0; perf.longTasks = 0; perf.longTaskMs = 0; perf.last = 0; },
    get() {
      return {
        intervals: perf.intervals.slice(), work: perf.work.slice(), rtt: perf.rtt.slice(), longTasks: perf.longTasks, longTaskMs: perf.longTaskMs,
        webgl: Boolean(scene), software: Boolean(scene && scene.software), pixelRatio: scene ? scene.pixelRatio : null,
        heap: performance.memory ? performance.memory.usedJSHeapSize : null,
      };
    },
  },
  ready: false,
};
main().then(() => { window.s7twin.ready = true; }, (err) => { logLine(`the page did not start: ${err.message}`, 'error'); });
