'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createPlc } = require('../../plc');
const { readInputLog } = require('../../plc/input-log');

test('the input log has a line for the first scan and for every scan whose inputs changed, nothing else', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-inlog-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'sub', 'in.jsonl');
  const plc = await createPlc({ scanMs: 5, s7: false, opcua: false, modbus: false, inputLog: file });
  await plc.waitScans(3);
  plc.setInputs({ se: 1 });
  await plc.waitScans(3);
  plc.setInputs({ se: 1 }); // no change
  await plc.waitScans(3);
  plc.setInputs({ dmg: 1, sd: 1 });
  await plc.waitScans(3);
  await plc.stop();
  const lines = readInputLog(file);
  assert.equal(lines.length, 3);
  assert.deepEqual(lines.map((l) => [l.in.se, l.in.sd, l.in.dmg]), [[0, 0, 0], [1, 0, 0], [1, 1, 1]]);
  assert.ok(lines[0].t <= lines[1].t && lines[1].scan < lines[2].scan);
  assert.equal(lines[0].tp, null, 'the first scan has none before it');
  assert.ok(lines[1].tp < lines[1].t && lines[1].tp >= lines[0].t, 'tp: the start of the scan before');
  assert.deepEqual(Object.keys(lines[0].in).sort(), ['dmg', 'p1b', 'p1f', 'p2f', 'p3f', 'sd', 'se', 'sk', 'sp', 'st']);
});
