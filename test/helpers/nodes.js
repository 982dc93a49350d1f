'use strict';
/**
 * Test helpers for the bridge nodes (test/nodes): the bare S7 server (system/bare-s7.js), a raw
 * WebSocket client (system/ws-client.js), the waiting utilities, and collect() for a helper node.
 */
const { startBareS7, PROBE_BYTES } = require('../../system/bare-s7');
const { openClient } = require('../../system/ws-client');
const { freePort, waitFor } = require('./nodered');

/** Collect every message a Node-RED helper node receives. */
function collect(node) {
  const msgs = [];
  node.on('input', (msg) => msgs.push(msg));
  return msgs;
}

module.exports = { startBareS7, openClient, collect, freePort, waitFor, PROBE_BYTES };
