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
 * window.s7twin is for tests and the benchmark: the last snapshot, actions, frame statistics.
 */
import { createPlantScene } from './scene.mjs';
import {
  $, params, setBadge, logLine, connectionForm, connectedButtons, withMqttUrl, twinWorker, pageId, rttRows, connectionDetail, drawRttChart,
} from './page.mjs';

const R = window.S7Twin.require;
const { summaryText, LABEL, VARIABLES } = R('twin/browser/session.js');
const chartLib = R('twin/browser/chart.js');
const tags = R('nodes/lib/core/io-table.js').demoTable(); // the 3D scene is the demo box-sorting plant's

const COLORS = { c1: '#1d70b8', p1bw: '#6f42c1', p2fw: '#d63384', p3fw: '#198754', red: '#fd7e14' };
const SENSORS = tags.inputs.filter((t) => !['st', 'sp'].includes(t.short));

let config = null;
let worker = null;
let connected = false; // a twin runs in the worker
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
  else if (m.type === 'snapshot') { lastSnap = m.snapshot; refresh(); }
  else if (m.type === 'rtt') {
    chart.push(m.variable, performance.now(), m.ms);
    perf.rtt.push([m.variable, m.ms]);
    if (perf.rtt.length > perf.max) perf.rtt.shift();
  }
  else if (m.type === 'box') { if (scene) scene.leave(m.event, m.box); }
  else if (m.type === 'closed') window.s7twin.closed = true;
  else if (m.type === 'who' && m.status !== 200) {
    connected = false;
    setBadge('off', m.status === 401 ? 'token refused' : 'cloud unreachable');
    logLine(m.status === 401 ? 'the cloud refused this token (E_UNAUTHORIZED)' : `cannot reach the cloud: ${m.error ? m.error.msg : m.status}`, 'error');
    refresh();
  } else if (m.type === 'error') logLine(`${m.code ? `${m.code}: ` : ''}${m.message}`, 'error');
}

function act(name, ...args) {
  if (worker && connected) worker.postMessage({ type: 'act', name, args });
}

function connect(creds) {
  if (!worker) worker = twinWorker(onWorker);
  const profile = params.get('profile') || config.profile || 'study';
  buildScene(R('twin/plant.js').createPlant({ profile, boxes: 0 }).config);
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
}

function disconnect() {
  if (!worker || !connected) return;
  connected = false;
  window.s7twin.closed = false;
  worker.postMessage({ type: 'disconnect' });
  lastSnap = null;
  setBadge('off', 'not connected');
  connectedButtons(false);
  refresh();
}

// ---- the 3D view -----------------------------------------------------------------------------
function buildScene(cfg) {
  if (scene && sceneCfg === JSON.stringify(cfg)) return;
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
  if (connected && lastScene && lastSnap) {
    scene.update(lastScene, { outputs: lastScene.outputs, inputs: lastSnap.inputs, good: lastSnap.counts.good, rejected: lastSnap.counts.rejected });
  }
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

function refresh() {
  const s = connected ? lastSnap : null;
  const up = Boolean(s && s.connection.connected);
  for (const id of ['start', 'stop']) $(id).disabled = !up;
  const drive = Boolean(s && s.mode === 'driving');
  for (const id of ['feed-good', 'feed-bad', 'rate', 'share']) $(id).disabled = !drive;
  $('takeover').hidden = !s || drive || s.readOnly;
  $('giveup').hidden = !drive;
  if (!s) {
    $('mode').textContent = 'Not connected.';
    $('summary').textContent = 'Not connected.';
    return;
  }
  const c = s.connection;
  if (c.connected) setBadge('on', `${LABEL[s.protocol]} · ${drive ? 'driving' : 'watching'}`);
  else setBadge(c.state === 'closed' ? 'off' : 'wait', `${LABEL[s.protocol]} · ${c.state === 'waiting' ? 'reconnecting' : c.state}`);
  $('mode').textContent = s.readOnly ? 'Watching with a viewer token: the cloud refuses this page\'s commands.'
    : drive ? 'This page drives the plant: its model sends the sensor inputs, and it may feed boxes.'
      : `Watching: ${s.holder ? `${s.holder.label || 'another page'} drives the plant` : 'no page drives the plant'}. Start and Stop still work from here.`;
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
  const text = summaryText(s);
  if (text !== lastSummary && Date.now() - lastSummaryAt > 2000) { $('summary').textContent = text; lastSummary = text; lastSummaryAt = Date.now(); }
  $('rtt-table').tBodies[0].innerHTML = rttRows(VARIABLES.map((v) => ({ key: v, name: tags.get(v).name })), s.rtt);
  $('conn-detail').textContent = connectionDetail(c);
  for (const l of s.log) if (l.t > lastLogT) { logLine(l.text, l.kind, l.t); lastLogT = l.t; }
}

function drawChart() {
  if (connected) drawRttChart($('chart'), chartLib, chart, COLORS);
}

// ---- wiring ----------------------------------------------------------------------------------
async function main() {
  config = await (await fetch('config.json', { cache: 'no-store' })).json();
  $('title').textContent = config.title || 'Box-sorting plant';
  const saved = connectionForm($('connect-sec'), config, { connect, disconnect });
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
  buildScene(R('twin/plant.js').createPlant({ profile: params.get('profile') || config.profile || 'study', boxes: 0 }).config);
  if (saved && saved.token) connect(saved);
}

/** For tests and the benchmark (no secrets: the token is not here). */
window.s7twin = {
  snapshot: () => (connected ? lastSnap : null),
  scene: () => (connected ? lastScene : null),
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
