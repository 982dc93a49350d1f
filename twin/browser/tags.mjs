/**
 * The page generated for any plant that is not the demo box-sorting plant (whose 3D scene is
 * app.mjs): its tags as the plant's I/O table lists them, each with its value and unit, a control
 * for every tag the cloud may write (a switch for a BOOL, a number field with the tag's range, a
 * text field as long as the STRING), a small trend of each numeric tag, and the round trips the
 * page measures. The twin runs in the worker (worker.js: twin/browser/tag-session.js over the
 * transports the 3D page uses); the table comes with the token's session (GET session), so the
 * PLC's addresses are shown only to a token of the plant.
 *
 * window.s7twin is for tests: the last snapshot, the values, actions.
 */
import {
  $, params, setBadge, logLine, connectionForm, connectedButtons, withMqttUrl, twinWorker, pageId, rttRows, connectionDetail, drawRttChart,
} from './page.mjs';

const R = window.S7Twin.require;
const chartLib = R('twin/browser/chart.js');
const { createTable } = R('nodes/lib/core/io-table.js');
const { LABEL } = R('twin/browser/panel.js');
const { variablesOf } = R('twin/browser/tag-session.js');

const TREND_MS = 120000; // two minutes of each numeric tag
const COLORS = ['#1d70b8', '#6f42c1', '#d63384', '#198754', '#fd7e14', '#0dcaf0', '#6c757d', '#b8860b'];

let config = null;
let worker = null;
let connected = false;
let table = null;
let role = null;
let vars = [];
let lastSnap = null;
let lastLogT = 0;
let chart = null;
const values = {};
const trends = new Map(); // short -> {series, held}
const touchedAt = new Map(); // short -> when the user last changed its control (the PLC's value does not overwrite it meanwhile)
const refusedHere = new Set(); // tags whose last write the table's check stopped here (its message stays)

const numeric = (tag) => ['int', 'real'].includes(table.TYPES[tag.type].kind);

/** A value as the page shows it. */
function show(tag, v) {
  if (v === undefined || v === null) return '–';
  if (tag.type === 'BOOL') return v ? 'on' : 'off';
  if (tag.type === 'STRING') return `“${v}”`;
  return String(v);
}

function el(tag, attrs = {}, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

/** The control of a tag the cloud may write, by its type. */
function control(tag) {
  const id = `set-${tag.short}`;
  if (tag.type === 'BOOL') {
    const label = el('label', { class: 'switch' });
    const box = el('input', { type: 'checkbox', role: 'switch', id, 'aria-label': `${tag.name} on or off` });
    box.addEventListener('change', () => { touchedAt.set(tag.short, Date.now()); write(tag, box.checked ? 1 : 0); });
    label.append(box, el('span', { 'aria-hidden': 'true' }, 'on'));
    return [label, message(tag)];
  }
  const form = el('form', { class: 'setform' });
  let input;
  if (tag.type === 'STRING') {
    input = el('input', { type: 'text', id, maxlength: tag.length, spellcheck: 'false', 'aria-label': `${tag.name}, at most ${tag.length} characters` });
  } else {
    const lim = table.TYPES[tag.type];
    const min = tag.min ?? (lim.kind === 'int' ? lim.min : undefined);
    const max = tag.max ?? (lim.kind === 'int' ? lim.max : undefined);
    const range = tag.min !== undefined || tag.max !== undefined ? ` (${tag.min ?? '…'} to ${tag.max ?? '…'}${tag.unit ? ` ${tag.unit}` : ''})` : '';
    input = el('input', { type: 'number', id, min, max, step: lim.kind === 'int' ? '1' : 'any', inputmode: 'decimal', 'aria-label': `${tag.name}${range}` });
  }
  input.addEventListener('input', () => touchedAt.set(tag.short, Date.now()));
  form.append(input, el('button', { type: 'submit' }, 'Set'));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (tag.type !== 'STRING' && input.value.trim() === '') { input.reportValidity(); return; }
    write(tag, tag.type === 'STRING' ? input.value : input.value.trim());
  });
  return [form, message(tag)];
}

const message = (tag) => el('span', { class: 'set-msg', id: `msg-${tag.short}`, role: 'status' });

/** The tags' rows, from the plant's table. */
function build() {
  const body = $('tags').tBodies[0];
  body.replaceChildren();
  trends.clear();
  for (const tag of table.tags) {
    const tr = el('tr', { id: `row-${tag.short}`, class: tag.cloudWritable ? 'writable' : '' });
    const head = el('th', { scope: 'row' });
    head.append(el('span', { class: 'tag-name' }, tag.name),
      el('span', { class: 'tag-meta' }, `${tag.tia} · ${tag.typeName} · ${tag.dir === 'in' ? 'input' : 'output'}${tag.cloudWritable ? ' · writable' : ''}`));
    if (tag.desc) head.append(el('span', { class: 'tag-desc' }, tag.desc));
    const val = el('td', { class: 'val' });
    val.append(el('output', { id: `val-${tag.short}` }, show(tag, values[tag.short])), el('span', { class: 'unit' }, tag.unit || ''));
    const set = el('td', { class: 'set' });
    if (tag.cloudWritable) set.append(...control(tag));
    const trend = el('td', { class: 'trend' });
    if (numeric(tag)) {
      const label = `Trend of ${tag.name}, last two minutes`;
      trend.append(el('canvas', { class: 'trend', id: `trend-${tag.short}`, width: 140, height: 32, role: 'img', 'aria-label': label }));
      trends.set(tag.short, { series: chartLib.createSeries({ spanMs: TREND_MS, maxPoints: 2000 }), held: null });
    }
    tr.append(head, val, set, trend);
    body.append(tr);
  }
  vars = variablesOf(table).map((v, i) => {
    const pair = v.kind === 'timed' && table.timedPairs().find((p) => p.output === v.key);
    const name = pair ? `${table.get(pair.trigger).name} → ${v.name}` : `${v.name} written → seen`;
    return { key: v.key, name, dot: `c${i % COLORS.length}` };
  });
  chart = chartLib.createChart(vars.map((v) => v.key));
  enableControls();
}

function enableControls() {
  const up = Boolean(connected && lastSnap && lastSnap.connection.connected);
  for (const e of document.querySelectorAll('#tags .set input, #tags .set button')) e.disabled = !up || role === 'viewer';
}

/** Values from the PLC: the cells, the switches (unless the user just moved one), the trends. */
function applyValues(v, t) {
  for (const [k, value] of Object.entries(v)) {
    const tag = table && table.get(k);
    if (!tag) continue;
    const trend = trends.get(k);
    if (trend) {
      trend.series.prune(t);
      if (!trend.series.size) trend.held = values[k] ?? null;
      trend.series.push(t, value);
    }
    values[k] = value;
    const out = $(`val-${k}`);
    if (out) out.textContent = show(tag, value);
    const input = $(`set-${k}`);
    const recent = Date.now() - (touchedAt.get(k) || 0) < 2000;
    if (input && tag.type === 'BOOL' && !recent) input.checked = value === 1;
    else if (input && !recent && document.activeElement !== input && input.value === '') input.placeholder = String(value);
  }
}

function write(tag, value) {
  if (worker && connected) worker.postMessage({ type: 'act', name: 'write', args: [tag.short, value] });
}

function onWorker(m) {
  if (m.type === 'who') {
    if (m.status !== 200) {
      connected = false;
      setBadge('off', m.status === 401 ? 'token refused' : 'cloud unreachable');
      logLine(m.status === 401 ? 'the cloud refused this token (E_UNAUTHORIZED)' : `cannot reach the cloud: ${m.error ? m.error.msg : m.status}`, 'error');
      return;
    }
    role = m.role;
    table = createTable(m.table);
    build();
  } else if (m.type === 'snapshot') { lastSnap = m.snapshot; refresh(); }
  else if (m.type === 'values') applyValues(m.values, m.t);
  else if (m.type === 'rtt') { if (chart) chart.push(m.variable, performance.now(), m.ms); }
  else if (m.type === 'written') showWrite(m.short, m.result);
  else if (m.type === 'closed') window.s7twin.closed = true;
  else if (m.type === 'error') logLine(`${m.code ? `${m.code}: ` : ''}${m.message}`, 'error');
}

/** What became of a write, beside its control. */
function showWrite(short, r) {
  const msg = $(`msg-${short}`);
  if (!msg) return;
  if (r && r.ok) refusedHere.delete(short); else refusedHere.add(short);
  msg.className = `set-msg${r && r.ok ? '' : ' error'}`;
  msg.textContent = r && r.ok ? 'sent…' : `not sent: ${r ? r.message : 'no answer'}`;
}

function refresh() {
  const s = connected ? lastSnap : null;
  enableControls();
  if (!s) { $('mode').textContent = 'Not connected: type a token to see the plant\'s tags.'; return; }
  const c = s.connection;
  const who = s.readOnly ? 'watching' : 'writing';
  if (c.connected) setBadge('on', `${LABEL[s.protocol]} · ${who}`);
  else setBadge(c.state === 'closed' ? 'off' : 'wait', `${LABEL[s.protocol]} · ${c.state === 'waiting' ? 'reconnecting' : c.state}`);
  $('mode').textContent = s.readOnly ? 'Watching with a viewer token: the cloud refuses this page\'s writes.'
    : 'Set a value with its control: it is checked against the table, written to the PLC, and shown here when the PLC\'s state says so.';
  for (const [short, w] of Object.entries(s.writes)) {
    const msg = $(`msg-${short}`);
    if (!msg || refusedHere.has(short)) continue;
    const done = w.ms !== undefined ? `done, ${w.ms.toFixed(0)} ms` : 'done';
    const text = { sent: 'sent…', done, refused: `refused: ${w.code}`, unseen: 'not seen back' }[w.state];
    msg.className = `set-msg${w.state === 'refused' ? ' error' : ''}`;
    msg.textContent = text;
  }
  $('rtt-table').tBodies[0].innerHTML = rttRows(vars, s.rtt);
  $('conn-detail').textContent = connectionDetail(c);
  for (const l of s.log) if (l.t > lastLogT) { logLine(l.text, l.kind, l.t); lastLogT = l.t; }
}

function draw() {
  if (!connected || !table) return;
  const now = performance.now();
  let i = 0;
  for (const [short, tr] of trends) {
    const cv = $(`trend-${short}`);
    i += 1;
    if (!cv) continue;
    tr.series.prune(now);
    const held = tr.series.size ? tr.held : values[short] ?? null;
    const color = COLORS[(i - 1) % COLORS.length];
    chartLib.drawTrend(cv.getContext('2d'), tr.series, { width: cv.width, height: cv.height, now, spanMs: TREND_MS, held, color });
  }
  if (chart) drawRttChart($('chart'), chartLib, chart, Object.fromEntries(vars.map((v, k) => [v.key, COLORS[k % COLORS.length]])));
}

function connect(creds) {
  if (!worker) worker = twinWorker(onWorker);
  lastSnap = null;
  connected = true;
  setBadge('wait', 'connecting…');
  worker.postMessage({
    type: 'connect', kind: 'tags', creds: { token: creds.token, mqttUser: creds.mqttUser, mqttPass: creds.mqttPass }, protocol: creds.protocol,
    config: withMqttUrl(config), id: pageId(), pollMs: Number(params.get('pollMs')) || 25, encoding: params.get('encoding') || 'compact',
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

async function main() {
  config = await (await fetch('config.json', { cache: 'no-store' })).json();
  $('title').textContent = config.title || 'Plant';
  document.title = `${config.title || 'Plant'} · S7 digital twin`;
  const saved = connectionForm($('connect-sec'), config, { connect, disconnect });
  window.addEventListener('pagehide', () => disconnect());
  setInterval(refresh, 200);
  setInterval(draw, 500);
  if (saved && saved.token) connect(saved);
}

/** For tests (no secrets: the token is not here). */
window.s7twin = {
  snapshot: () => (connected ? lastSnap : null),
  values: () => ({ ...values }),
  write: (short, value) => { const tag = table && table.get(short); if (tag) write(tag, value); },
  get config() { return config; },
  ready: false,
};
main().then(() => { window.s7twin.ready = true; }, (err) => { logLine(`the page did not start: ${err.message}`, 'error'); });
