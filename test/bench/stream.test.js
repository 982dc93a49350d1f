'use strict';
/**
 * The high-frequency stream benchmark (bench/stream.js) end to end, short: over each link
 * transport in a system of its own (bench/stream/system.js: the broker as the launcher starts it,
 * the cloud's edge endpoint and the edge's dialer in processes of their own), the virtual PLC's
 * 1 kHz signal read over S7 by the edge and carried to the cloud: every sample arrives, once, in
 * order, with the value the signal gives it; then the report is written from those results.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runTransport, DEFAULTS } = require('../../bench/stream/run');
const { TRANSPORTS } = require('../../bench/stream/system');
const { writeStreamReport } = require('../../bench/stream/report');
const { machine, versions } = require('../../bench/run');

const O = { ...DEFAULTS, plcRates: [1000], grid: [], seconds: 2, warmupS: 1, ceiling: false };
const results = {};

for (const transport of Object.keys(TRANSPORTS)) {
  test(`a 1 kHz PLC signal over ${TRANSPORTS[transport].label}: every sample, once, in order, right`, { timeout: 180000 }, async (t) => {
    const lines = [];
    const r = await runTransport(transport, { name: 'local', links: null }, O, (l) => lines.push(l));
    results[transport] = r;
    assert.deepEqual(r.errors, [], lines.join('\n'));
    const c = r.plc[0];
    assert.equal(c.error, undefined, c.error);
    t.diagnostic(lines.filter((l) => /Hz:/.test(l)).join('\n'));
    const rx = c.cloud.receiver;
    assert.ok(rx.samples >= 1500, `${rx.samples} samples in the 2 s window`);
    assert.deepEqual({ gaps: rx.gaps, lost: rx.lost, outOfOrder: rx.outOfOrder, wrong: rx.wrong }, { gaps: 0, lost: 0, outOfOrder: 0, wrong: 0 });
    assert.equal(c.tailLost, 0, 'what the edge sent last arrived too');
    assert.equal(c.edge.reader.lost + c.edge.reader.torn, 0, 'the edge read the ring whole');
    assert.equal(c.cloud.endpoint.duplicates + c.cloud.endpoint.gaps + c.cloud.endpoint.errors, 0);
    assert.ok(c.cloud.latency.mean > 0 && c.cloud.perSample.mean > c.cloud.latency.mean, 'a sample waits for its frame, and then the link');
    assert.ok(c.cost.edge.cpuPct !== null && c.cost.cloud.cpuPct !== null && c.cost.plc.cpuPct !== null);
    if (TRANSPORTS[transport].path !== 'ws-mqtt' && transport !== 'ws' && transport !== 'zmq') assert.ok(c.cost.broker, 'the broker\'s cost');
  });
}

test('the report of those runs: every link\'s row', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-stream-report-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const now = new Date().toISOString();
  const s = {
    command: 'test', started: now, ended: now, loadavg: { start: os.loadavg(), end: os.loadavg() },
    options: { ...O, transports: Object.keys(results), profiles: ['local'], scale: 1 },
    profileDefs: { local: { links: null } }, machine: machine(), versions: versions(), ceiling: null, profiles: { local: results },
  };
  const out = await writeStreamReport(s, dir);
  const md = fs.readFileSync(path.join(dir, 'report.md'), 'utf8');
  for (const transport of Object.keys(results)) assert.ok(md.includes(`| local | ${TRANSPORTS[transport].label} | 1000 |`), `${transport}'s row`);
  assert.ok(md.includes(require('../../bench/study-figures.json').stream.title), 'the study named');
  assert.match(md, /## The guideline rerun with our numbers\n\nNo grid cells/, 'no grid in these runs: said so');
  assert.ok(out.files.includes('cells.csv'));
  assert.equal(fs.readFileSync(path.join(dir, 'cells.csv'), 'utf8').trim().split('\n').length, 1 + Object.keys(results).length);
});
