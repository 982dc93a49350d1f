'use strict';
/**
 * Test helpers for the OPC UA path: the launcher's PKI folders and monitored-item count
 * (system/opcua.js), and startBridge.
 */
const { PKI_ROOT, pkiDir, countMonitoredItems } = require('../../system/opcua');
const { waitFor } = require('../../system/wait');

/**
 * Start an edge bridge (nodes/lib/opcua/bridge.js) and wait until it has read its baselines: a
 * command a twin writes into the cloud before that is part of the baseline, not a command (a
 * bridge that starts writes nothing it did not just receive), so a test that commands right after
 * start waits for this first.
 * @param {object} bridge createOpcuaBridge(...)
 */
async function startBridge(bridge) {
  await bridge.start();
  await waitFor(() => {
    const s = bridge.stats();
    return !s.commands.holding && (!s.probes || !s.probes.requests.holding);
  }, 30000, 'the bridge\'s baseline reads');
}

module.exports = { PKI_ROOT, pkiDir, countMonitoredItems, startBridge };
