'use strict';
/**
 * Every s7twin node's counters in one place, for `GET /s7twin/stats` on the admin API. Nodes add
 * themselves with a function returning their counters and remove themselves on close.
 */
const entries = new Map(); // node id -> {id, type, name, counters()}

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
}

module.exports = { add, remove, list, install };
