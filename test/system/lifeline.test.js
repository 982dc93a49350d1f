'use strict';
/**
 * The launcher's child processes do not outlive it: a launcher killed outright (SIGKILL, no
 * chance to stop anything) takes its virtual PLC with it, through the IPC lifeline
 * (system/exit-with-parent.js). Without it, a killed benchmark left the PLC and both Node-RED
 * processes running on the machine.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { waitFor } = require('../../system/wait');

const alive = (pid) => {
  try { process.kill(pid, 0); return true; } catch (err) { return err.code === 'EPERM'; }
};

test('a launcher killed with SIGKILL leaves no PLC child running', async () => {
  const plcModule = path.join(__dirname, '..', '..', 'system', 'plc.js');
  const script = `require(${JSON.stringify(plcModule)}).startPlc({ scanMs: 10, s7: { host: '127.0.0.1', port: 0 }, opcua: false, modbus: false, mqtt: false })
    .then((p) => { console.log('PLC_PID ' + p.pid); setInterval(() => {}, 1000); }, (e) => { console.error(e); process.exit(1); });`;
  const launcher = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  launcher.stdout.on('data', (d) => { out += d; });
  try {
    const m = await waitFor(() => /PLC_PID (\d+)/.exec(out), 30000, 'the PLC child to start');
    const pid = Number(m[1]);
    assert.ok(alive(pid), 'the PLC child runs');
    launcher.kill('SIGKILL');
    await waitFor(() => !alive(pid), 20000, `the PLC child (pid ${pid}) to exit after its launcher was killed`);
  } finally {
    launcher.kill('SIGKILL');
  }
});
