/**
 * What the browser twin's two pages share: the 3D page of the demo plant (app.mjs) and the page
 * generated for any other plant (tags.mjs). The connection form (token, protocol, MQTT user,
 * remember), where the token is kept (sessionStorage, or localStorage when the user asks; never
 * in the page or its URL), the connection badge, the events log, the round-trip table and chart,
 * and the worker that runs the twin (worker.js). Each page adds its own view.
 */

export const $ = (id) => document.getElementById(id);
export const params = new URLSearchParams(location.search);
const KEY = 's7twin.page';

/** The connection form, the same on both pages. */
const FORM = `
  <h2 id="connect-h">Connection</h2>
  <form id="connect">
    <label for="token">Twin token</label>
    <input id="token" name="token" type="password" autocomplete="off" spellcheck="false" required aria-describedby="token-help">
    <p id="token-help" class="help">A twin token drives the plant; a viewer token watches.
      It stays in this browser tab (or on this device if you tick the box), never in the page.</p>
    <fieldset id="protocols">
      <legend>Protocol</legend>
      <label><input type="radio" name="protocol" value="ws" checked> WebSocket–S7</label>
      <label id="p-mqttws"><input type="radio" name="protocol" value="mqttws"> MQTT over WebSocket</label>
      <label><input type="radio" name="protocol" value="http"> HTTP polling</label>
    </fieldset>
    <div id="mqtt-creds" hidden>
      <label for="mqtt-user">MQTT user</label><input id="mqtt-user" autocomplete="off" spellcheck="false">
      <label for="mqtt-pass">MQTT password</label><input id="mqtt-pass" type="password" autocomplete="off">
    </div>
    <label class="inline"><input type="checkbox" id="remember"> Remember on this device</label>
    <div class="buttons">
      <button type="submit" id="connect-btn">Connect</button>
      <button type="button" id="disconnect" disabled>Disconnect</button>
      <button type="button" id="forget">Forget token</button>
    </div>
  </form>`;

// ---- storage: the token stays in this tab unless the user asks to keep it -------------------
function loadSaved() {
  for (const store of [sessionStorage, localStorage]) {
    try {
      const v = JSON.parse(store.getItem(KEY) || 'null');
      if (v && v.token) return { ...v, remember: store === localStorage };
    } catch { /* unreadable: ignore */ }
  }
  return null;
}
function save(v) {
  const text = JSON.stringify({ token: v.token, protocol: v.protocol, mqttUser: v.mqttUser, mqttPass: v.mqttPass });
  sessionStorage.setItem(KEY, text);
  if (v.remember) localStorage.setItem(KEY, text); else localStorage.removeItem(KEY);
}
function forget() { sessionStorage.removeItem(KEY); localStorage.removeItem(KEY); }

/** The connection badge in the header. */
export function setBadge(kind, text) {
  const b = $('conn');
  b.className = `badge ${kind}`;
  b.textContent = text;
}

/** One line of the events log (newest first, the last 40 kept). */
export function logLine(text, kind = 'info', t = Date.now()) {
  const li = document.createElement('li');
  li.className = kind;
  const time = document.createElement('time');
  time.textContent = new Date(t).toLocaleTimeString();
  li.append(time, text);
  const list = $('log');
  list.prepend(li);
  while (list.children.length > 40) list.lastChild.remove();
}

function formCreds() {
  return {
    token: $('token').value.trim(),
    protocol: document.querySelector('input[name=protocol]:checked').value,
    mqttUser: $('mqtt-user').value.trim(),
    mqttPass: $('mqtt-pass').value,
    remember: $('remember').checked,
  };
}

const protocol = () => document.querySelector('input[name=protocol]:checked').value;
function showMqtt() { $('mqtt-creds').hidden = protocol() !== 'mqttws'; }

/**
 * Put the connection form into `section`, fill it from what the tab keeps and the URL asks
 * (?protocol=), and wire it.
 * @param {HTMLElement} section
 * @param {object} config the page's config.json
 * @param {{connect: (creds: object) => void, disconnect: () => void}} on
 * @returns {object|null} the saved credentials (the page connects with them at once)
 */
export function connectionForm(section, config, on) {
  section.innerHTML = FORM;
  if (!config.protocols.mqtt) $('p-mqttws').remove();
  const saved = loadSaved();
  const want = params.get('protocol') || (saved && saved.protocol);
  const radio = want && document.querySelector(`input[name=protocol][value="${want}"]`);
  if (radio) radio.checked = true;
  if (saved) {
    $('token').value = saved.token;
    $('mqtt-user').value = saved.mqttUser || '';
    $('mqtt-pass').value = saved.mqttPass || '';
    $('remember').checked = saved.remember;
  }
  showMqtt();
  for (const r of document.querySelectorAll('input[name=protocol]')) r.addEventListener('change', showMqtt);
  $('connect').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const creds = formCreds();
    if (!creds.token) { $('token').focus(); return; }
    if (creds.protocol === 'mqttws' && !config.protocols.mqtt) { logLine('this cloud serves no MQTT over WebSocket', 'error'); return; }
    save(creds);
    on.connect(creds);
  });
  $('disconnect').addEventListener('click', () => on.disconnect());
  $('forget').addEventListener('click', () => { forget(); $('token').value = ''; $('mqtt-pass').value = ''; logLine('token forgotten in this browser'); });
  return saved ? { ...saved, protocol: protocol() } : null;
}

/** The form's buttons while connected (true) or not. */
export function connectedButtons(up) {
  $('disconnect').disabled = !up;
  $('connect-btn').textContent = up ? 'Reconnect' : 'Connect';
}

/**
 * The page's config with the broker's WebSocket from ?mqtt= (behind a proxy, or the benchmark's
 * emulated WAN) where the URL gives one.
 */
export function withMqttUrl(config) {
  if (!params.get('mqtt') || !config.protocols.mqtt) return config;
  return { ...config, protocols: { ...config.protocols, mqtt: { ...config.protocols.mqtt, url: params.get('mqtt') } } };
}

/** The worker that runs the twin, started once; `onMessage` gets its messages. */
export function twinWorker(onMessage) {
  const w = new Worker('worker.js');
  w.onmessage = (ev) => onMessage(ev.data);
  return w;
}

/** A page id for the driver lease and the envelopes' sender. */
export const pageId = () => `web-${Math.random().toString(36).slice(2, 10)}`;

/**
 * The round-trip table's rows.
 * @param {Array<{key: string, name: string, dot?: string}>} vars dot: the class of its colour (else v-<key>)
 * @param {object} rtt the chart's stats()
 * @returns {string} HTML (names are the table's: escaped)
 */
export function rttRows(vars, rtt) {
  const f = (x) => (x === null || x === undefined ? '–' : x.toFixed(1));
  return [...vars, { key: 'overall', name: 'all' }].map((v) => {
    const r = rtt[v.key] || { n: 0 };
    const dot = v.key === 'overall' ? '' : `<span class="dot ${v.dot || `v-${v.key}`}"></span>`;
    return `<tr><td>${dot}${escapeHtml(v.name)}</td><td>${f(r.last)}</td><td>${f(r.mean)}</td><td>${f(r.p95)}</td><td>${r.n || 0}</td></tr>`;
  }).join('');
}

/** The connection's counters in one line. */
export function connectionDetail(c) {
  const last = c.lastError ? ` (last: ${c.lastError})` : '';
  return `${c.sent} frames sent, ${c.received} received, ${c.acks} acknowledged; ${c.reconnects} reconnects, ${c.errors} errors${last}`;
}

/**
 * Draw the round-trip chart (twin/browser/chart.js) on a canvas at the screen's pixel ratio.
 * @param {HTMLCanvasElement} cv
 * @param {object} chartLib chart.js
 * @param {object} chart createChart()
 * @param {Object<string,string>} colors
 */
export function drawRttChart(cv, chartLib, chart, colors) {
  const dpr = window.devicePixelRatio || 1;
  const w = cv.clientWidth || 360;
  const h = cv.clientHeight || 150;
  if (cv.width !== Math.round(w * dpr)) { cv.width = Math.round(w * dpr); cv.height = Math.round(h * dpr); }
  const ctx = cv.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  chart.prune(performance.now());
  chartLib.draw(ctx, chart, { width: w, height: h, now: performance.now(), colors });
}

export function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}
