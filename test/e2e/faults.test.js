'use strict';
/**
 * The fault suite: a twin streams a command every 50 ms over the WebSocket–S7 path,
 * with the MQTT, OPC UA and Modbus paths running beside it, while each fault hits the system in
 * turn: the cloud↔edge link black-holed, reset, or slowed by 500 ms each way; the edge stalled
 * (SIGSTOP/SIGCONT); edge, cloud and PLC killed (-9) and restarted. bench/lib/faults.js runs them
 * and reads the PLC's input log; here every promise is asserted for every fault.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startSystem } = require('../../bench/lib/system');
const { runFaults, FAULTS } = require('../../bench/lib/faults');
const { assertCommandsSafe } = require('../helpers/faults');
const profiles = require('../../bench/profiles.json');

// Recovery bounds, from the design: a link fault is seen within the 3 s link timeout and the edge
// redials within its back-off (at most 5 s); a killed process is back once it has restarted (the
// restart time is measured and added). Generous margins for a loaded 2-core machine.
const LINK_RECOVERY_MS = 20000;
const RESTART_RECOVERY_MS = 20000;

test('fault suite: exactly one answer per command, nothing written late or undone, recovery', { timeout: 600000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-faults-'));
  const inputLog = path.join(dir, 'plc-inputs.jsonl');
  const sys = await startSystem({
    profileName: 'proxied', links: profiles.proxied.links, protocols: ['ws', 'mqtt', 'opcua', 'modbus'], plcInputLog: inputLog,
  });
  t.after(async () => { await sys.stop(); fs.rmSync(dir, { recursive: true, force: true }); });
  const lines = [];
  const results = await runFaults(sys, { inputLog, log: (l) => lines.push(l) });
  t.diagnostic(lines.join('\n'));
  assert.deepEqual(results.map((r) => r.id), Object.keys(FAULTS));
  for (const r of results) {
    const what = `${r.id} (${r.label}): ${JSON.stringify(r)}`;
    assertCommandsSafe(r, what);
    assert.ok(r.answers.ack > 0, `${what}: commands acknowledged`);
    const bound = r.restartMs === null ? LINK_RECOVERY_MS : r.restartMs + RESTART_RECOVERY_MS;
    assert.ok(r.recoveryMs <= bound, `${what}: recovered within ${bound} ms`);
  }
});
