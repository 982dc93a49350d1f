'use strict';
/**
 * What the edge's store and forward costs (docs/history.md): the journal's size after a real
 * outage of the edge↔cloud link while the demo box-sorting plant runs, and how the journal goes
 * to the cloud after it.
 *
 *   node bench/journal.js [--minutes 10] [--profile study] [--out bench/results/<dir>]
 *
 * The system is the launcher's (system/single.js: the virtual S7-1500, the cloud and the edge
 * Node-RED with the WebSocket–S7 flows, Toxiproxy in the edge↔cloud link). The plant model
 * (twin/plant.js, `--profile`: study, the demo's and the real testbed's speeds, or fast) runs
 * against the PLC over S7 directly, as the plant's own sensors and actuators would, so it goes on
 * whatever the link does: a 10 ms tick writes the inputs that changed and reads the outputs.
 *
 *   warm-up   the plant started and running, the link up (`--warm` s): the live state rate
 *   outage    the edge↔cloud link black-holed (Toxiproxy timeout, both ways) for `--minutes`; the
 *             edge's journal counters every 10 s; at its end the journal's size on disk and per
 *             state frame
 *   forward   the link healed: when the edge is back (its snapshot live), when the journal is
 *             answered and empty, and whether the history holds every journalled state as backfill
 *   append    the journal module alone: 200,000 appends of the outage's own records, as fast as it
 *             takes them (µs each, the longest)
 *
 * Do not over-read: one shared 2-core machine, the PLC, both Node-RED processes and the plant model
 * on it; the state rate is what this plant model makes the program do (a real plant's sensors
 * change as its boxes do). Compare runs made on the same machine only.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { startSystem } = require('../system/single');
const { s7Connect } = require('../system/s7');
const { waitFor } = require('../system/wait');
const { createPlant } = require('../twin/plant');
const { createJournal } = require('../nodes/lib/link/journal');
// The demo box-sorting plant: its table (where its tags are in the PLC).
const tags = require('../nodes/lib/core/io-table').demoTable();

const argv = process.argv.slice(2);
const arg = (name, d) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : d; };
const MINUTES = Number(arg('minutes', 10));
const PROFILE = arg('profile', 'study');
const WARM_S = Number(arg('warm', 30));
const OUT = arg('out', null);
const TICK_MS = 10;
const NO_LATENCY = { up: { latency: 0, jitter: 0 }, down: { latency: 0, jitter: 0 } };

const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The plant model against the PLC over S7: every tick the outputs read and the changed inputs
 * written (one S7 job each), started with its start button.
 * @returns {Promise<{stop: () => Promise<void>, plant: object, ticks: () => number}>}
 */
async function startLocalPlant(s7, profile) {
  const plant = createPlant({ profile, boxes: 1e6, damaged: 0.3, seed: 1 });
  const outputs = tags.outputs.filter((t) => !t.noStream);
  const value = (t, raw) => (typeof raw === 'boolean' ? Number(raw) : raw);
  let stopped = false;
  let ticks = 0;
  let last = performance.now();
  const loop = (async () => {
    while (!stopped) {
      const begun = performance.now();
      const raw = await s7.read(outputs.map((t) => t.s7));
      plant.applyOutputs(Object.fromEntries(outputs.map((t) => [t.short, value(t, raw[t.s7])])));
      const batch = plant.tick(Math.min(begun - last, 50));
      last = begun;
      ticks += 1;
      const keys = Object.keys(batch);
      if (keys.length) await s7.write(Object.fromEntries(keys.map((k) => [tags.get(k).s7, Boolean(batch[k])])));
      await sleep(Math.max(0, TICK_MS - (performance.now() - begun)));
    }
  })();
  // The inputs the model starts with, then start.
  await s7.write(Object.fromEntries(Object.entries(plant.inputs()).map(([k, v]) => [tags.get(k).s7, Boolean(v)])));
  plant.press('st');
  await waitFor(() => plant.outputs.grn === 1, 10000, 'the plant running (green lamp)');
  return {
    plant,
    ticks: () => ticks,
    async stop() { stopped = true; await loop; },
  };
}

/** The counters of the edge's first node of a type (GET /s7twin/stats). */
async function edgeNode(sys, type) {
  const { nodes } = await (await fetch(`${sys.edge.url}/s7twin/stats`)).json();
  return nodes.find((n) => n.type === type).counters;
}
/** The edge's link client's counters. */
const edgeLink = (sys) => edgeNode(sys, 's7twin-link-client');
/** State and snapshot frames the edge's s7 node has made. */
const statesMade = async (sys) => { const c = await edgeNode(sys, 's7twin-s7'); return c.states + c.snaps; };

/** Bytes of the journal's files on disk. */
function journalDisk(dir) {
  let bytes = 0;
  let files = 0;
  for (const n of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    if (!n.endsWith('.jnl')) continue;
    bytes += fs.statSync(path.join(dir, n)).size;
    files += 1;
  }
  return { bytes, files };
}

/** The journal module alone: appends of these records, µs each. */
function appendCost(records, n) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-bench-journal-'));
  try {
    const j = createJournal({ dir, maxBytes: 1024 * 1024 * 1024 });
    let longest = 0;
    const start = performance.now();
    for (let i = 0; i < n; i += 1) {
      const r = records[i % records.length];
      const a = performance.now();
      j.append({ ts: r.ts + i, ct: r.ct + i, d: r.d });
      longest = Math.max(longest, performance.now() - a);
    }
    const ms = performance.now() - start;
    const bytes = j.counters.bytes;
    j.close();
    return { records: n, ms: round(ms), usPerAppend: round((ms * 1000) / n, 2), longestMs: round(longest, 2), bytesPerRecord: round(bytes / n) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function report(r) {
  const o = r.outage;
  const f = r.forward;
  return `# Edge journal (store and forward): an outage of ${r.minutes} minutes

Run ${r.startedAt}, Node ${r.node}, ${r.cpus} cores shared with other work (load average ${r.load} at the start).
Command: \`node bench/journal.js --minutes ${r.minutes} --profile ${r.profile}${OUT ? ` --out ${OUT}` : ''}\` (figures in \`summary.json\`).

The demo box-sorting plant (plant model profile \`${r.profile}\`) ran against the virtual S7-1500
over S7 the whole time, as its own sensors would; the edge↔cloud link was black-holed (Toxiproxy
\`timeout\` both ways) for ${r.minutes} minutes.

| what | figure |
| --- | --- |
| state frames the edge made, link up (warm-up, ${r.warm.seconds} s) | ${r.warm.framesPerS} a second |
| state frames journalled during the outage | ${o.appended} (${o.framesPerS} a second), ${o.dropped} dropped, ${o.torn} torn, ${o.writeErrors} write errors |
| the journal on disk at the end of the outage | ${o.diskBytes.toLocaleString('en')} bytes in ${o.files} segment file(s) (${o.kib} KiB) |
| bytes per journalled frame | ${o.bytesPerFrame} (one JSON line: {j, ts, ct, d}) |
| per hour of outage at this rate | ${o.mibPerHour} MiB: the default 64 MiB bound holds ${o.hoursIn64MiB} hours |
| fdatasync calls during the outage | ${o.syncs} (at most one a second) |
| link back after the heal | ${f.reconnectMs} ms (the edge's snapshot live first) |
| journal answered and empty | ${f.emptyMs} ms after the heal (${f.sent} backfill frames sent, ${f.answered} answers) |
| in the history as backfill | ${f.historyFrames} of the ${o.records} journalled states (${f.complete ? 'every one' : 'NOT every one'}) |
| append alone, the outage's records × ${r.append.records.toLocaleString('en')} | ${r.append.usPerAppend} µs each, longest ${r.append.longestMs} ms, \
${r.append.bytesPerRecord} bytes a record |

Do not over-read: one shared 2-core machine running the PLC, both Node-RED processes and the plant
model; the state rate is what this plant model makes the PLC program do. Compare runs made on the
same machine only.
`;
}

async function main() {
  const startedAt = new Date().toISOString();
  const load = round(os.loadavg()[0], 2);
  const log = (l) => console.error(`[journal] ${l}`);
  const sys = await startSystem({
    protocols: ['ws'], parts: { cloud: ['cloud-ws'], edge: ['edge-ws'] }, links: { 'twin-cloud': NO_LATENCY, 'cloud-edge': NO_LATENCY }, log,
  });
  let s7;
  let driver;
  try {
    const plant = sys.credentials.plant;
    const dir = path.join(sys.edge.userDir, 's7twin-journal', plant);
    s7 = await s7Connect(sys.plc.ports.s7);
    await waitFor(async () => (await edgeLink(sys)).connects >= 1, 60000, 'the edge connected');
    driver = await startLocalPlant(s7, PROFILE);
    log(`plant running (${PROFILE}); warm-up ${WARM_S} s`);
    const hole = (on) => Promise.all(sys.plantProxies.flatMap((p) => (on
      ? ['upstream', 'downstream'].map((stream) => sys.toxiproxy.addToxic(p, { name: `hole_${stream}`, type: 'timeout', stream, attributes: { timeout: 0 } }))
      : [sys.toxiproxy.removeToxics(p)])));

    const w0 = await statesMade(sys);
    await sleep(WARM_S * 1000);
    const warm = { seconds: WARM_S, framesPerS: round(((await statesMade(sys)) - w0) / WARM_S, 2) };
    log(`warm-up: about ${warm.framesPerS} state frames a second`);

    const before = (await edgeLink(sys)).journal;
    const holeAt = Date.now();
    await hole(true);
    log(`outage for ${MINUTES} minutes`);
    const samples = [];
    const end = holeAt + MINUTES * 60000;
    while (Date.now() < end) {
      await sleep(Math.min(10000, end - Date.now()));
      const j = (await edgeLink(sys)).journal;
      samples.push({ s: round((Date.now() - holeAt) / 1000), records: j.records, bytes: j.bytes, segments: j.segments });
    }
    const atEnd = (await edgeLink(sys)).journal;
    const disk = journalDisk(dir);
    const recs = fs.readdirSync(dir).filter((n) => n.endsWith('.jnl')).sort()
      .flatMap((n) => fs.readFileSync(path.join(dir, n), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)));
    const seconds = (Date.now() - holeAt) / 1000;
    const appended = atEnd.appended - before.appended;
    const outage = {
      seconds: round(seconds), appended, framesPerS: round(appended / seconds, 2), records: atEnd.records,
      dropped: atEnd.dropped - before.dropped, torn: atEnd.torn, writeErrors: atEnd.writeErrors, syncs: atEnd.syncs - before.syncs,
      diskBytes: disk.bytes, files: disk.files, kib: round(disk.bytes / 1024), bytesPerFrame: round(disk.bytes / Math.max(1, atEnd.records)),
      samples,
    };
    outage.mibPerHour = round((disk.bytes / seconds) * 3600 / (1024 * 1024), 2);
    outage.hoursIn64MiB = round(64 / Math.max(outage.mibPerHour, 1e-9), 0);
    log(`journal: ${appended} frames, ${disk.bytes} bytes`);

    const healAt = Date.now();
    const { connects, backfill: sentBefore } = await edgeLink(sys);
    await hole(false);
    await waitFor(async () => (await edgeLink(sys)).connects > connects, 60000, 'the edge back');
    const reconnectMs = Date.now() - healAt;
    let after;
    await waitFor(async () => {
      after = await edgeLink(sys);
      return after.journal.records === 0 && after.backfill.inflight === 0;
    }, 600000, 'the journal forwarded');
    const emptyMs = Date.now() - healAt;
    const res = await fetch(`${sys.cloud.url}/s7twin/history?plant=${plant}&from=${holeAt - 60000}&to=${Date.now() + 60000}`,
      { headers: { Authorization: `Bearer ${sys.credentials.twinToken}` } });
    // The journalled records, found in the history by their number and edge timestamp.
    const filed = new Set((await res.json()).states.filter((s) => s.k === 'backfill').map((s) => `${s.seq}:${s.ets}`));
    const found = recs.filter((r) => filed.has(`${r.j}:${r.ts}`)).length;
    const forward = {
      reconnectMs, emptyMs, sent: after.backfill.sent - sentBefore.sent, answered: after.backfill.answered - sentBefore.answered,
      historyFrames: found, complete: found === recs.length,
    };
    log(`forwarded in ${emptyMs} ms; ${found} of ${recs.length} journalled states in the history`);

    const result = {
      startedAt, node: process.version, cpus: os.cpus().length, load, minutes: MINUTES, profile: PROFILE,
      warm, outage, forward, append: appendCost(recs.length ? recs : [{ ts: Date.now(), ct: Date.now(), d: { c1: 1 } }], 200000),
    };
    const text = JSON.stringify(result, null, 2);
    console.log(text);
    if (OUT) {
      fs.mkdirSync(OUT, { recursive: true });
      fs.writeFileSync(path.join(OUT, 'summary.json'), `${text}\n`);
      fs.writeFileSync(path.join(OUT, 'report.md'), report(result));
    }
  } finally {
    if (driver) await driver.stop().catch(() => {});
    if (s7) await s7.close().catch(() => {});
    await sys.stop();
  }
}

if (require.main === module) main().catch((err) => { console.error(err); process.exitCode = 1; });
