'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createRecorder, CSV_HEADER } = require('../../twin/recorder');

test('the recorder times each timed pair from the frame sent to the output seen', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rec-'));
  try {
    const csv = path.join(dir, 'r.csv');
    const rec = createRecorder({ protocol: 'ws', csv, now: () => 0 });
    rec.sent({ st: 1 }, 100);
    rec.sent({ sd: 1, dmg: 1 }, 110);
    rec.sent({ sd: 1, dmg: 0 }, 115); // an intact box: no reject timers
    assert.equal(rec.pending, 3);
    rec.received({ c1: 1, grn: 1 }, 112.5);
    rec.received({ p2fw: 1, red: 1 }, 130);
    assert.deepEqual(rec.samples.c1, [12.5]);
    assert.deepEqual(rec.samples.p2fw, [20]);
    assert.deepEqual(rec.samples.red, [20]);
    rec.sent({ sk: 1 }, 200);
    assert.equal(rec.sweep(200 + 5001), 1);
    const s = rec.summary();
    assert.equal(s.p3fw.expired, 1);
    assert.equal(s.overall.n, 3);
    assert.equal(s.overall.expired, 1);
    assert.equal(s.c1.name, 'ConveyorBelt');
    await rec.close();
    const lines = fs.readFileSync(csv, 'utf8').trim().split('\n');
    assert.equal(lines[0], CSV_HEADER);
    assert.equal(lines.length, 4);
    assert.match(lines[1], /^\d{4}-\d\d-\d\dT[^,]+,ws,c1,12\.500$/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
