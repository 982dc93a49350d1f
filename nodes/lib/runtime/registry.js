'use strict';
/**
 * Every s7twin node's counters in one place, for `GET /s7twin/stats` (JSON) and
 * `GET /s7twin/metrics` (Prometheus text, nodes/lib/runtime/metrics.js) on the admin API, both behind the
 * admin API's login (permission s7twin.read); and `GET /s7twin/health` for container health checks,
 * open (it says only whether the flows run). Nodes add themselves with a function returning their
 * counters and remove themselves on close.
 */
const entries = new Map(); // node id -> {id, type, name, counters()}
const checks = new Map(); // id -> () => a warning for /s7twin/health, or null
const runtime = { flows: 'starting', since: Date.now() }; // what watchRuntime last heard

/**
 * @param {{id: string, type: string, name?: string}} node
 * @param {() => object} counters
 */
function add(node, counters) {
  entries.set(node.id, { id: node.id, type: node.type, name: node.name || '', counters });
}

function remove(node) {
  entries.delete(node.id);
}

/**
 * A check whose warning /s7twin/health reports while it has one (the flows still run, so the
 * status stays 200: a restart would not mend a full disk).
 * @param {string} id
 * @param {() => string|null} fn
 */
function addCheck(id, fn) {
  checks.set(id, fn);
}

/** The check's node is gone (a check of a node that was removed must not warn on). */
function removeCheck(id) {
  checks.delete(id);
}

/** The warnings of the checks that have one. */
function warnings() {
  const out = [];
  for (const fn of checks.values()) {
    try { const w = fn(); if (w) out.push(w); } catch (err) { out.push(err.message); }
  }
  return out;
}

/** @returns {Array<{id, type, name, counters: object}>} */
function list() {
  return [...entries.values()].map((e) => {
    let counters;
    try { counters = { ...e.counters() }; } catch (err) { counters = { error: err.message }; }
    return { id: e.id, type: e.type, name: e.name, counters };
  });
}

const installed = new WeakSet();

/**
 * Mount `GET /s7twin/stats` once per admin app.
 * @param {object} app Node-RED's admin express app (RED.httpAdmin)
 * @param {Function} permission middleware (RED.auth.needsPermission('s7twin.read'))
 */
function install(app, permission) {
  if (!app || installed.has(app)) return;
  installed.add(app);
  app.get('/s7twin/stats', permission, (req, res) => res.json({ time: Date.now(), nodes: list() }));
  app.get('/s7twin/metrics', permission, (req, res) => {
    require('./metrics').render(list()).then((text) => {
      res.set('Content-Type', require('./metrics').contentType);
      res.send(text);
    }, (err) => res.status(500).json({ error: err.message }));
  });
  // Open on purpose: a health checker holds no login, and the answer tells nothing but up or not
  // (and, while a check fails, a warning naming no file, token or address).
  app.get('/s7twin/health', (req, res) => {
    const ok = runtime.flows === 'started';
    const w = warnings();
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : runtime.flows, uptimeS: Math.round(process.uptime()), ...(w.length ? { warnings: w } : {}) });
  });
}

const watched = new WeakSet();

/**
 * Follow the runtime's flows for /s7twin/health: healthy from 'flows:started' until 'flows:stopped'.
 * @param {import('events').EventEmitter} events RED.events
 */
function watchRuntime(events) {
  if (!events || watched.has(events)) return;
  watched.add(events);
  events.on('flows:started', () => { runtime.flows = 'started'; runtime.since = Date.now(); });
  events.on('flows:stopped', () => { runtime.flows = 'stopped'; runtime.since = Date.now(); });
}

module.exports = { add, remove, list, addCheck, removeCheck, warnings, install, watchRuntime };
