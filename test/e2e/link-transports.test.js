'use strict';
/**
 * The edge↔cloud link over each message transport, end to end (docs/link-transports.md): the
 * launcher starts the transport's broker (RabbitMQ, Kafka, Mosquitto with its users and ACLs; the
 * bundle's MQTT broker is the cloud's own, ZeroMQ has none), the cloud and the edge Node-RED with
 * the project's flows told to use it, the virtual PLC, and Toxiproxy on every hop of the link.
 * Per link path, one system:
 *
 * - a production: the headless twin's boxes over WebSocket to the cloud, the link over the
 *   transport to the edge, S7 to the PLC, every box sorted and every timed variable timed;
 * - a short fault suite (bench/lib/faults.js, the same as the WebSocket link's): the link cut on
 *   both hops (edge → broker and broker → cloud) past the link timeout on every transport, the
 *   edge and the cloud killed on the brokers that hide a dead peer longest (AMQP, Kafka) and one
 *   of them on MQTT and ZeroMQ, the cut alone on Mosquitto (the MQTT link's own faults are the
 *   aedes row's), so the file stays short (`node bench/run.js --protocols ws-mqtt
 *   --profiles local --faults all --no-probes --no-productions --no-load --no-browser` runs any
 *   transport's whole suite); every command
 *   answered exactly once, nothing written after its deadline or though refused, and commands
 *   acknowledged again after each.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startSystem } = require('../../bench/lib/system');
const { runFaults } = require('../../bench/lib/faults');
const { runTwin } = require('../../twin/run');
// The system runs the demo box-sorting plant: its table.
const tags = require('../../nodes/lib/core/io-table').demoTable();
const { assertCommandsSafe } = require('../helpers/faults');
const profiles = require('../../bench/profiles.json');
const paths = require('../../nodes/lib/core/paths');

const TIMED = tags.timedPairs().map((p) => p.output).sort();
// Short holds: the cut outlasts the 3 s link timeout (the link is found lost and rebuilt).
// Keyed by link path (ws-<name>): MQTT runs on two brokers.
const FAULTS = {
  zmq: ['black-hole', 'cloud-kill'],
  mqtt: ['black-hole', 'edge-kill'],
  mosquitto: ['black-hole'],
  amqp: ['black-hole', 'edge-kill', 'cloud-kill'],
  kafka: ['black-hole', 'edge-kill', 'cloud-kill'],
};
const HOLD = { 'black-hole': 4500 };
const RECOVERY_MS = 25000; // past a fault's end (a kill: plus the restart)

for (const [link, faults] of Object.entries(FAULTS)) {
  test(`the link over ${link}: a production, then ${faults.join(', ')}`, { timeout: 600000 }, async (t) => {
    const t0 = Date.now();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `s7t-link-${link}-`));
    const inputLog = path.join(dir, 'plc-inputs.jsonl');
    const protocol = `ws-${link}`;
    const sys = await startSystem({ profileName: 'proxied', links: profiles.proxied.links, protocols: [protocol], plcInputLog: inputLog });
    t.after(async () => { await sys.stop(); fs.rmSync(dir, { recursive: true, force: true }); });
    assert.equal(sys.link.transport, paths.linkOf(protocol));
    if (link === 'mosquitto') assert.equal(sys.link.broker.name, 'mosquitto', 'the launcher started Mosquitto for the link');
    t.diagnostic(`system up in ${Date.now() - t0} ms${sys.link.broker ? ` (${sys.link.broker.name} ${Math.round(sys.link.broker.startMs)} ms)` : ''}`);

    const res = await runTwin({
      protocol: 'ws', ...sys.endpoints[protocol], boxes: 4, damaged: 0.5, seed: 5, profile: 'fast', timeoutMs: 20000, id: `lt${link}`,
    });
    assert.equal(res.ok, true, res.reason);
    assert.equal(res.missorted, 0);
    assert.equal(res.packed + res.rejected, 4);
    assert.deepEqual(Object.keys(res.samples).filter((k) => res.samples[k].length > 0).sort(), TIMED, 'every timed variable timed');
    t.diagnostic(`production: ${Object.values(res.samples).flat().length} round trips, ${Date.now() - t0} ms in`);

    const lines = [];
    const results = await runFaults(sys, { inputLog, protocol, faults, holdMs: HOLD, preMs: 1000, postMs: 1000, log: (l) => lines.push(l) });
    t.diagnostic(lines.join('\n'));
    assert.deepEqual(results.map((r) => r.id), faults);
    for (const r of results) {
      const what = `${link}: ${r.id} (${r.label}): ${JSON.stringify(r)}`;
      assertCommandsSafe(r, what);
      assert.ok(r.answers.ack > 0, `${what}: commands acknowledged`);
      assert.ok(r.recoveryMs <= (r.restartMs || 0) + RECOVERY_MS, `${what}: recovered`);
    }
    t.diagnostic(`${link}: ${Date.now() - t0} ms in all`);
  });
}
