#!/usr/bin/env node
'use strict';
/**
 * The protocol benchmark: `npm run bench -- [options]`, `npm run bench:smoke`.
 * Starts the virtual PLC, the cloud and edge Node-RED (and Toxiproxy for WAN profiles) per
 * network profile, measures the network floor, probe round trips (our bridge vs the stock-node
 * replica), twin productions (Tables 1, 5, 3, cycle time) and load levels (Table 4, server cost),
 * protocols interleaved, and writes a results folder (see bench/lib/report.js).
 *
 * `runBench(opts)` is the same as a function (the smoke test calls it).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { startSystem, createTransport, hasProbe, firstProbeSlot, BUNDLE_PROTOCOLS, PROBE_SLOTS, STUDY_OPCUA_SAMPLING_MS } = require('./lib/system');
const { availablePaths } = require('../system/flows');
const paths = require('../nodes/lib/core/paths');
const { measureFloor } = require('./lib/floor');
const { runLoad, waitPathReady } = require('./lib/load');
const { runProductions } = require('./lib/productions');
const { createCostMeter } = require('./lib/cost');
const { writeReport } = require('./lib/report');
const { createProgress } = require('./lib/progress');
const { launchChromium, measureTwinPage } = require('./lib/browser');
const faults = require('./lib/faults');
const { linkBytesSampler } = require('./lib/link-bytes');
const fleetBench = require('./lib/fleet-bench');

const ROOT = path.join(__dirname, '..');
/** Every path of the table (nodes/lib/core/paths.js), in its order. */
const ALL_PROTOCOLS = paths.ids();
/**
 * What a run measures unless told: every path but the link paths (each of those starts a broker
 * and a system of its own: `--protocols ws,ws-amqp,ws-kafka,ws-mqtt,ws-mosquitto,ws-zmq`).
 */
const DEFAULT_PROTOCOLS = ALL_PROTOCOLS.filter((p) => paths.get(p).kind !== 'link');
/** Paths that carry twin productions: the bundle's and the stock replicas that map the whole plant. */
const carriesProductions = (p) => Boolean(paths.get(p) && paths.get(p).bench.productions);
/** What the browser twin's page speaks (each a bench path of its own). */
const PAGE_PROTOCOLS = paths.PATHS.filter((p) => p.bench.page).map((p) => p.id);

/** Full run and smoke run defaults (units in the names). */
const DEFAULTS = {
  full: {
    profiles: ['local', 'wan'],
    samples: 300, // Table 1 samples per protocol and profile (the study had 1,083-2,200)
    probeSamples: 1000, // sequential probe round trips per protocol and profile (at least 1,000 for a p99 that means something)
    floorSamples: 500,
    users: [1, 5, 10, 20, 40, 60, 80, 200, 500, 1000],
    loadSeconds: 10, // per level and protocol
    thinkMs: 500, // a twin reacting to its plant: 2 probes/s each (1,000 twins = 2,000 probes/s)
    boxes: 10,
    warmupBoxes: 2, // warm-up production per protocol, discarded
    failLimit: 3, // productions failed in a row (no sample) before a path leaves the rotation
    pathReadyMs: 60000, // wait for the first probe through a path after start
    probeBlock: 100, // probes per protocol per interleaved block
    browserSeconds: 20, // browser twin measured per protocol and profile (after a 3 s warm-up)
  },
  smoke: {
    profiles: ['local', 'wan'],
    samples: 5,
    probeSamples: 30,
    floorSamples: 30,
    users: [1, 5],
    loadSeconds: 1,
    thinkMs: 50,
    boxes: 3,
    warmupBoxes: 0, // the smoke skips warm-up productions (probe warm-up is still discarded)
    pathReadyMs: 20000,
    failLimit: 1, // productions failed in a row (no sample) before a path leaves the rotation
    probeBlock: 15,
    // The smoke keeps to our paths and the WS replica: the other stock replicas would double its
    // time (test/e2e/stock-replicas.test.js runs them end to end instead).
    protocols: [...BUNDLE_PROTOCOLS, 'stock'],
    browserSeconds: 3,
    browserProfiles: ['local'], // the pipeline, not the figures: one profile is enough
  },
  scanMs: 10,
  stockCycleMs: 50,
  holdBeyond: 80, // levels above this run only for paths that held the level before
  holdMaxErrorPct: 1, // "held": at most 1 % errors ...
  holdMaxP99Ms: 1000, // ... and p99 under 1 s
};

const gcd = (a, b) => (b ? gcd(b, a % b) : a);
/**
 * Pause between sequential probes: at least 5 ms, then uniform over a whole number of PLC scans
 * and stock read cycles (their least common multiple), so each probe starts at a uniformly random
 * point of the scan, as a plant event does. (A probe sent right after the previous answer starts
 * just after a scan every time and waits a whole scan: 10 ms instead of 5 on average.)
 * @returns {{thinkMs:number, thinkWidthMs:number}}
 */
function probeThink(o) {
  const a = Math.max(1, Math.round(o.scanMs));
  const b = Math.max(1, Math.round(o.stockCycleMs));
  const width = (a * b) / gcd(a, b);
  return { thinkMs: 5 + width / 2, thinkWidthMs: width };
}

const HELP = `Usage: npm run bench -- [options]      (npm run bench:smoke for the quick end-to-end run)

  --protocols <list>   ${BUNDLE_PROTOCOLS.join(',')} and the study's stock replicas
                       ${paths.comparisons().join(',')} (default: every available path),
                       and the ws path with its edge link over a broker, ${paths.links().join(',')}
                       (only when named: each runs in a system of its own, with its broker)
  --profiles <list>    network profiles from the profile file (default local,wan)
  --profile-file <f>   JSON profiles (default bench/profiles.json)
  --users <list>       load levels (default 1,5,10,20,40,60,80,200,500,1000)
  --samples <n>        Table 1 samples per protocol and profile (default 300)
  --probe-samples <n>  probe round trips per protocol and profile (default 1000)
  --floor-samples <n>  network floor echoes per profile (default 500)
  --load-seconds <s>   seconds per load level and protocol (default 10)
  --think <ms>         mean think time between a virtual twin's probes (default 500)
  --boxes <n>          boxes per production (default 10)
  --tuning <t>         protocol intervals: tuned (default) or study (Modbus 80 ms, OPC UA polled 50 ms)
  --scan <ms>          PLC scan cycle (default 10)
  --stock-cycle <ms>   stock replica's S7 read cycle (default 50, the node's minimum)
  --encoding <e>       WebSocket–S7 frames, twin and edge links: compact (default) or json
  --stock-opcua-sampling <ms|study>  the stock OPC UA server's minimum sampling interval instead of
                       the 500 ms its node hard-codes: the study's edit of 104-opcuaserver.js
                       (study = ${STUDY_OPCUA_SAMPLING_MS}), by preload; default: the node as installed
  --browser-seconds <s> the browser twin's twin-side cost per protocol and profile (default 20)
  --no-productions, --no-load, --no-probes, --no-browser   skip a section
  --faults <list|all>  also run the fault suite on its own system, Toxiproxy in both links:
                       ${Object.keys(faults.FAULTS).join(', ')}
  --fleet              also run the fleet section on a fleet of its own: redis-server,
                       2 cloud instances, 2 plants (backplane cost, load, failover, watch-only twins)
  --fleet-twins <l>    probing twins per plant, per load level (default ${fleetBench.DEFAULTS.twinsPerPlant.join(',')}; failover under the first)
  --fleet-watchers <l> watch-only twin levels (default ${fleetBench.DEFAULTS.watchers.join(',')})
  --out <dir>          results folder (default results/<timestamp>)
  --smoke              few samples, levels 1 and 5, our paths and the WS replica: the whole pipeline
                       in about two minutes
  -h, --help
`;

/** Parse argv into options. */
function parseCli(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      protocols: { type: 'string' }, profiles: { type: 'string' }, 'profile-file': { type: 'string' },
      users: { type: 'string' }, samples: { type: 'string' }, 'probe-samples': { type: 'string' },
      'floor-samples': { type: 'string' }, 'load-seconds': { type: 'string' }, think: { type: 'string' },
      boxes: { type: 'string' }, tuning: { type: 'string' }, scan: { type: 'string' }, 'stock-cycle': { type: 'string' }, out: { type: 'string' },
      'stock-opcua-sampling': { type: 'string' }, encoding: { type: 'string' },
      'no-productions': { type: 'boolean' }, 'no-load': { type: 'boolean' }, 'no-probes': { type: 'boolean' },
      'browser-seconds': { type: 'string' }, 'no-browser': { type: 'boolean' },
      faults: { type: 'string' },
      fleet: { type: 'boolean' }, 'fleet-twins': { type: 'string' }, 'fleet-watchers': { type: 'string' },
      smoke: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    },
  });
  const list = (s) => (s ? s.split(',').map((x) => x.trim()).filter(Boolean) : undefined);
  const num = (s) => (s === undefined ? undefined : Number(s));
  return {
    help: values.help,
    smoke: values.smoke,
    protocols: list(values.protocols),
    profiles: list(values.profiles),
    profileFile: values['profile-file'],
    users: list(values.users) && list(values.users).map(Number),
    samples: num(values.samples),
    probeSamples: num(values['probe-samples']),
    floorSamples: num(values['floor-samples']),
    loadSeconds: num(values['load-seconds']),
    thinkMs: num(values.think),
    boxes: num(values.boxes),
    tuning: values.tuning,
    scanMs: num(values.scan),
    stockCycleMs: num(values['stock-cycle']),
    stockOpcuaSamplingMs: values['stock-opcua-sampling'] === 'study' ? STUDY_OPCUA_SAMPLING_MS : num(values['stock-opcua-sampling']),
    out: values.out,
    encoding: values.encoding,
    productions: !values['no-productions'],
    load: !values['no-load'],
    probes: !values['no-probes'],
    browser: !values['no-browser'],
    browserSeconds: num(values['browser-seconds']),
    faults: values.faults === undefined ? undefined : (values.faults === 'all' ? Object.keys(faults.FAULTS) : list(values.faults)),
    fleet: values.fleet || values['fleet-twins'] !== undefined || values['fleet-watchers'] !== undefined,
    fleetTwins: list(values['fleet-twins']) && list(values['fleet-twins']).map(Number),
    fleetWatchers: list(values['fleet-watchers']) && list(values['fleet-watchers']).map(Number),
  };
}

function versions() {
  const v = { node: process.version };
  const modules = ['node-red', 'ws', 'aedes', 'node-opcua', 'modbus-serial', 'node-snap7', 'nodes7', 'node-red-contrib-s7', 'node-red-contrib-opcua',
    'node-red-contrib-modbus', 'amqplib', '@platformatic/kafka', 'mqtt', 'zeromq', 'hdr-histogram-js', 'simple-statistics', 'vega', 'vega-lite'];
  for (const m of modules) {
    try { v[m] = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', m, 'package.json'), 'utf8')).version; } catch { /* not installed */ }
  }
  try { v.toxiproxy = fs.readFileSync(path.join(ROOT, '.tools', 'bin', '.toxiproxy-version'), 'utf8').trim(); } catch { v.toxiproxy = 'not built'; }
  try {
    const commit = require('node:child_process').execSync('git rev-parse --short HEAD', { cwd: ROOT, encoding: 'utf8' }).trim();
    v.bundle = `${require('../package.json').version} (${commit})`;
  } catch { /* not a git checkout */ }
  return v;
}

function machine() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length, cpuModel: cpus[0] ? cpus[0].model : '?', memGB: os.totalmem() / 2 ** 30,
    os: `${os.type()} ${os.release()} ${os.arch()}`, loadavg: os.loadavg(), hostname: os.hostname(),
  };
}

/**
 * The cloud's own flow-timer CSVs (cloud → PLC → cloud, per protocol and variable), read before
 * the runtime's temporary folder goes: they show how much of the twin's round trip is the
 * twin ↔ cloud leg.
 * @returns {Object<string, Object<string, number[]>>} protocol → variable → ms
 */
function collectFlowTimers(dir) {
  const out = {};
  let files;
  try { files = fs.readdirSync(dir).filter((f) => /^flow-timer-.*\.csv$/.test(f)); } catch { return out; }
  for (const f of files) {
    const lines = fs.readFileSync(path.join(dir, f), 'utf8').trim().split('\n');
    const head = lines.shift().split(',');
    const ip = head.indexOf('protocol');
    const iv = head.indexOf('variable');
    const im = head.indexOf('ms');
    for (const line of lines) {
      const c = line.split(',');
      const ms = Number(c[im]);
      if (!Number.isFinite(ms)) continue;
      const proto = c[ip] || f.replace(/^flow-timer-|\.csv$/g, '');
      const v = /^probe:/.test(c[iv]) ? 'probe' : c[iv];
      ((out[proto] = out[proto] || {})[v] = out[proto][v] || []).push(ms);
    }
  }
  return out;
}

/** Merge a block of load results (users 1) into an accumulator. */
function mergeProbe(acc, r) {
  if (!acc) return { ...r, samples: [...(r.samples || [])], blocks: 1 };
  for (const k of ['sent', 'ok', 'timeouts', 'wrong', 'warmup', 'connectErrors', 'late', 'errors', 'durationMs']) acc[k] = (acc[k] || 0) + (r[k] || 0);
  acc.samples.push(...(r.samples || []));
  acc.hist.add(r.hist);
  acc.summary = acc.hist.summary();
  acc.bytes = { in: acc.bytes.in + r.bytes.in, out: acc.bytes.out + r.bytes.out };
  acc.blocks += 1;
  const attempts = acc.ok + acc.warmup + acc.errors;
  acc.errorPct = attempts ? (100 * acc.errors) / attempts : 0;
  acc.throughput = acc.durationMs > 0 ? (1000 * (acc.ok + acc.warmup)) / acc.durationMs : 0;
  return acc;
}

/**
 * Run the benchmark.
 * @param {object} [cli] parseCli() output (or the same keys)
 * @returns {Promise<{dir:string, files:string[], plots:string[], summary:object}>}
 */
async function runBench(cli = {}) {
  const base = cli.smoke ? DEFAULTS.smoke : DEFAULTS.full;
  const o = {
    smoke: Boolean(cli.smoke),
    profiles: cli.profiles || base.profiles,
    users: cli.users || base.users,
    samples: cli.samples ?? base.samples,
    probeSamples: cli.probeSamples ?? base.probeSamples,
    floorSamples: cli.floorSamples ?? base.floorSamples,
    loadSeconds: cli.loadSeconds ?? base.loadSeconds,
    thinkMs: cli.thinkMs ?? base.thinkMs,
    boxes: cli.boxes ?? base.boxes,
    probeBlock: base.probeBlock,
    warmupBoxes: base.warmupBoxes,
    failLimit: base.failLimit,
    pathReadyMs: base.pathReadyMs,
    tuning: cli.tuning || 'tuned',
    scanMs: cli.scanMs ?? DEFAULTS.scanMs,
    stockCycleMs: cli.stockCycleMs ?? DEFAULTS.stockCycleMs,
    stockOpcuaSamplingMs: cli.stockOpcuaSamplingMs ?? null,
    encoding: cli.encoding || 'compact',
    productions: cli.productions !== false,
    load: cli.load !== false,
    probes: cli.probes !== false,
    browser: cli.browser !== false,
    browserSeconds: cli.browserSeconds ?? base.browserSeconds,
    browserProfiles: base.browserProfiles || null, // null: every profile
    faults: cli.faults || null,
    fleet: cli.fleet ? {
      twinsPerPlant: cli.fleetTwins || (cli.smoke ? [5] : fleetBench.DEFAULTS.twinsPerPlant),
      watchers: cli.fleetWatchers || (cli.smoke ? [10, 50] : fleetBench.DEFAULTS.watchers),
      loadSeconds: cli.loadSeconds ?? (cli.smoke ? 3 : fleetBench.DEFAULTS.loadSeconds),
      ...(cli.smoke ? { backplaneProbes: 100, backplaneBlock: 50, watchSeconds: 3 } : {}),
    } : null,
  };
  if (o.stockOpcuaSamplingMs !== null && !(Number.isFinite(o.stockOpcuaSamplingMs) && o.stockOpcuaSamplingMs >= 0)) {
    const why = `--stock-opcua-sampling wants a number of ms ≥ 0 or "study" (${STUDY_OPCUA_SAMPLING_MS}), not "${cli.stockOpcuaSamplingMs}"`;
    throw Object.assign(new Error(why), { code: 'E_BENCH_ARGS' });
  }
  if (!['compact', 'json'].includes(o.encoding)) {
    throw Object.assign(new Error(`--encoding is compact or json, not "${o.encoding}"`), { code: 'E_BENCH_ARGS' });
  }
  if (o.fleet) {
    const bad = [...o.fleet.twinsPerPlant, ...o.fleet.watchers].find((n) => !(Number.isInteger(n) && n > 0));
    if (bad !== undefined) {
      throw Object.assign(new Error(`--fleet-twins and --fleet-watchers take whole numbers above 0 (got ${bad})`), { code: 'E_BENCH_ARGS' });
    }
    const most = Math.max(...o.fleet.twinsPerPlant);
    if (most > 1000) throw Object.assign(new Error(`--fleet-twins: at most 1000 per plant (the PLC's probe slots; got ${most})`), { code: 'E_BENCH_ARGS' });
  }
  for (const f of o.faults || []) {
    if (!faults.FAULTS[f]) throw Object.assign(new Error(`unknown fault "${f}" (have: ${Object.keys(faults.FAULTS).join(', ')})`), { code: 'E_BENCH_ARGS' });
  }
  const profileDefs = JSON.parse(fs.readFileSync(cli.profileFile || path.join(__dirname, 'profiles.json'), 'utf8'));
  for (const p of o.profiles) {
    if (profileDefs[p]) continue;
    const have = Object.keys(profileDefs).filter((k) => k[0] !== '$').join(', ');
    throw Object.assign(new Error(`unknown profile "${p}" (have: ${have})`), { code: 'E_BENCH_ARGS' });
  }
  const avail = availablePaths();
  const asked = cli.protocols || base.protocols || DEFAULT_PROTOCOLS;
  for (const p of asked) if (!ALL_PROTOCOLS.includes(p)) throw Object.assign(new Error(`unknown protocol "${p}"`), { code: 'E_BENCH_ARGS' });
  o.protocols = asked;
  o.probeThink = probeThink(o);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const outDir = path.resolve(cli.out || path.join(ROOT, 'results', stamp));
  const log = cli.log || ((line) => process.stderr.write(`${line}\n`));

  const results = {
    startedAt: new Date().toISOString(),
    command: cli.command || `node bench/run.js ${process.argv.slice(2).join(' ')}`.trim(),
    options: o,
    machine: machine(),
    versions: versions(),
    profiles: {},
  };

  const protocolsFor = () => asked.filter((p) => avail[p]);
  const running = protocolsFor();
  // One system per edge link: the paths over the WebSocket link together, each link path alone.
  const groups = [running.filter((p) => paths.get(p).kind !== 'link'), ...running.filter((p) => paths.get(p).kind === 'link').map((p) => [p])]
    .filter((g) => g.length);
  const bundleProtos = running.filter(carriesProductions);
  const probing = running.filter(hasProbe);
  const pageProtos = PAGE_PROTOCOLS.filter((p) => running.includes(p));
  // Progress in weighted steps: 1 per 10 echoes/probes, 1 per production, 1 per load second.
  const steps = o.profiles.length * (
    Math.ceil(o.floorSamples / 10)
    + (o.probes ? probing.length * Math.ceil(o.probeSamples / 10) : 0)
    + (o.productions ? bundleProtos.length * Math.max(1, Math.ceil(o.samples / (o.boxes * 2))) : 0)
    + (o.load ? probing.length * o.users.length * o.loadSeconds : 0)
    + (o.browser ? pageProtos.length * (o.browserSeconds + 3) * (o.browserProfiles ? o.browserProfiles.length : 1) : 0));
  const progress = createProgress(Math.max(1, steps), { log });

  try {
    for (const profileName of o.profiles) {
      const def = profileDefs[profileName];
      const pr = {
        links: def.links, available: { ...avail }, notes: [], errors: [],
        probe: {}, productions: {}, load: {}, loadStopped: {}, loadCapped: {}, browser: {},
      };
      results.profiles[profileName] = pr;
      for (const p of asked) if (!avail[p]) pr.notes.push(`${p}: path not available in this checkout (flows or twin transport missing); not measured`);
      for (const p of running) {
        if (!hasProbe(p)) {
          pr.notes.push(`${p}: its twin client offers no probes (no probe variables on that path), so it has no probe or load figures; productions only`);
        }
      }
      for (const group of groups) {
        const link = paths.linkOf(group[0]);
        // A link path is named by its id: one transport may run on several brokers (MQTT on the
        // bundle's and on Mosquitto).
        const linkId = link === 'ws' ? 'ws' : group[0];
        const tag = link === 'ws' ? '' : ` (${paths.get(linkId).label.replace(/^WebSocket–S7, /, '')})`;
        const probing = group.filter(hasProbe);
        const pageProtos = PAGE_PROTOCOLS.filter((p) => group.includes(p));
        progress.phase(`${profileName}${tag}: starting PLC, cloud and edge Node-RED${def.links ? ', Toxiproxy' : ''}`);
        let sys;
        try {
          sys = await startSystem({
            profileName, links: def.links, protocols: group, tuning: o.tuning, scanMs: o.scanMs,
            stockCycleMs: o.stockCycleMs, stockOpcuaSamplingMs: o.stockOpcuaSamplingMs, log: (l) => progress.log(l),
            env: { S7T_LINK_ENCODING: o.encoding },
          });
        } catch (err) {
          pr.errors.push(`system${tag} did not start: ${err.code || ''} ${err.message.split('\n')[0]}`);
          log(err.message);
          continue;
        }
        // The WebSocket–S7 twins speak the run's encoding (the edge's link: S7T_LINK_ENCODING).
        if (sys.endpoints.ws) sys.endpoints.ws = { ...sys.endpoints.ws, encoding: o.encoding };
        try {
          // Short unique ids: the MQTT client truncates `s7twin-twin-<id>` to 23 characters, so a long
          // common prefix would give every virtual twin the same client id (each login kicking out
          // the one before).
          const mk = (p) => (k) => createTransport(p, sys.endpoints, { id: `${k}x${Math.random().toString(36).slice(2, 7)}` });
          // Paths connect asynchronously after start: wait until a probe makes it through each.
          const live = [];
          for (const p of probing) {
            progress.phase(`${profileName}: waiting for the ${p} path`);
            try {
              const ms = await waitPathReady(mk(p), o.pathReadyMs, firstProbeSlot(p));
              pr.notes.push(`${p}: first probe through after ${Math.round(ms)} ms`);
              live.push(p);
            } catch (err) {
              pr.errors.push(`${p}: ${err.code || ''} ${err.message}`);
            }
          }

          // Network floor through a twin of the same links.
          progress.phase(`${profileName}: network floor (${o.floorSamples} TCP echoes)`);
          let done = 0;
          if (!pr.floor) pr.floor = await measureFloor({
            toxiproxy: sys.toxiproxy, links: def.links, samples: o.floorSamples, warmup: 5,
            onProgress: (n) => { if (Math.floor(n / 10) > done) { progress.tick(Math.floor(n / 10) - done); done = Math.floor(n / 10); } },
          });

          // Probe series, interleaved blocks: ours beside the stock replicas, every path.
          if (o.probes) {
            const acc = {};
            for (let got = 0, b = 0; got < o.probeSamples; b++) {
              const n = Math.min(o.probeBlock, o.probeSamples - got);
              const order = live.map((_, i) => live[(i + b) % live.length]);
              for (const p of order) {
                progress.phase(`${profileName}: probe round trips, ${p} (${got + n}/${o.probeSamples})`);
                const r = await runLoad({
                  protocol: p, users: 1, makeTransport: mk(p), probesPerUser: n, ...o.probeThink, slotBase: firstProbeSlot(p),
                  keepSamples: true, warmupPerUser: b === 0 ? 3 : 0,
                });
                acc[p] = mergeProbe(acc[p], r);
                progress.tick(Math.ceil(n / 10));
              }
              got += n;
              if (!live.length) break;
            }
            Object.assign(pr.probe, acc);
          }

          // Twin productions: Table 1, 5, 3 and cycle time.
          // Productions for every bundle path that is up: probing paths proved it with a probe,
          // the others (OPC UA) are checked by runTwin itself (it waits for the PLC's snapshot).
          const prodProtos = group.filter((p) => carriesProductions(p) && (live.includes(p) || !hasProbe(p)));
          if (o.productions && prodProtos.length) {
            progress.phase(`${profileName}: twin productions (${prodProtos.join(', ')})`);
            // What the link costs while it carries the productions: both ends and its broker.
            const linkMeter = prodProtos.length === 1
              ? createCostMeter({ cloud: sys.pids.cloud, edge: sys.pids.edge, broker: sys.link.broker && sys.link.broker.pid }) : null;
            if (linkMeter) linkMeter.start();
            const prods = await runProductions({
              protocols: prodProtos, endpoints: sys.endpoints, createTransport: (p, extra) => createTransport(p, sys.endpoints, extra),
              // The link's own bytes, where the run has one link path (a group of its own) or the ws path alone.
              linkBytes: (p) => (paths.inTable('links').includes(p) && prodProtos.length === 1
                ? linkBytesSampler(() => sys.pids.edge, sys.link.edgePorts) : null),
              samplesWanted: o.samples, boxes: o.boxes, warmupBoxes: o.warmupBoxes, failLimit: o.failLimit,
              maxBlocks: Math.max(3, Math.ceil(o.samples / o.boxes) * 2),
              onProgress: (ev) => {
                if (ev.phase !== 'block') return;
                progress.tick(1);
                progress.phase(`${profileName}: production block ${ev.block + 1}, ${ev.protocol} (${ev.samples}/${o.samples} samples)`);
              },
            });
            const linkCost = linkMeter ? linkMeter.end() : null;
            for (const [p, r] of Object.entries(prods)) {
              pr.productions[p] = { ...r, boxes: o.boxes, ...(linkCost && r.link ? { link: { ...r.link, cost: linkCost } } : {}) };
            }
          }

          // The browser twin in a real browser: the twin-side cost per protocol the page speaks
          // (the study measured its Unity twin with the Unity Profiler).
          if (o.browser && pageProtos.length && (!o.browserProfiles || o.browserProfiles.includes(profileName))) {
            let browser = null;
            try {
              browser = await launchChromium();
              for (const p of pageProtos) {
                progress.phase(`${profileName}: browser twin over ${p} (${o.browserSeconds} s)`);
                const ep = sys.endpoints.page;
                const url = `${ep.url}?profile=fast&mqtt=${encodeURIComponent(ep.mqttUrl)}`;
                try {
                  pr.browser[p] = await measureTwinPage(browser, { url, token: ep.token, protocol: p, mqtt: ep.mqtt, seconds: o.browserSeconds });
                } catch (err) {
                  pr.errors.push(`browser twin over ${p}: ${err.code || ''} ${err.message.split('\n')[0]}`);
                }
                progress.tick(o.browserSeconds + 3);
              }
            } catch (err) {
              pr.notes.push(`browser twin not measured: ${err.code || ''} ${err.message}`);
            } finally {
              if (browser) await browser.close().catch(() => {});
            }
          }

          // Load levels: Table 4 and server cost.
          if (o.load) {
            const holding = new Set(live);
            // The load generator (this process: every virtual twin) and Toxiproxy share the machine
            // with the system under test; their cost is measured too, to show where the time goes.
            const meter = createCostMeter({
              cloud: sys.pids.cloud, edge: sys.pids.edge, plc: sys.pids.plc, toxiproxy: sys.toxiproxy && sys.toxiproxy.pid, load: process.pid,
            });
            for (const users of o.users) {
              const order = [...holding];
              for (const p of order) {
                const slotBase = firstProbeSlot(p);
                if (slotBase + users > PROBE_SLOTS[p]) { holding.delete(p); pr.loadCapped[p] = PROBE_SLOTS[p]; continue; }
                progress.phase(`${profileName}: load ${users} twins, ${p} (${o.loadSeconds} s)`);
                meter.start();
                let r;
                try {
                  r = await runLoad({
                    protocol: p, users, makeTransport: mk(p), durationMs: o.loadSeconds * 1000, thinkMs: o.thinkMs, slotBase, keepSamples: true,
                  });
                } catch (err) {
                  r = { protocol: p, users, errors: users, errorPct: 100, summary: { n: 0 }, failure: `${err.code || ''} ${err.message}` };
                }
                r.cost = meter.end();
                (pr.load[p] = pr.load[p] || {})[users] = r;
                progress.tick(o.loadSeconds);
                const held = r.errorPct <= DEFAULTS.holdMaxErrorPct && r.summary.n > 0 && r.summary.p99 < DEFAULTS.holdMaxP99Ms;
                if (!held && (users >= DEFAULTS.holdBeyond || r.errorPct > 50)) { holding.delete(p); pr.loadStopped[p] = users; }
              }
            }
            meter.stop();
          }
        } finally {
          progress.phase(`${profileName}: stopping`);
          pr.flowTimers = { ...(pr.flowTimers || {}), ...collectFlowTimers(sys.procs.cloud.timerDir) };
          // Process logs (tails) go into the results: a runtime that fell over under load says why.
          // One system per link: its logs and its exits named after it (ws: the profile's own).
          const who = `${profileName}${linkId === 'ws' ? '' : `-${linkId.replace(/^ws-/, '')}`}`;
          for (const [name, proc] of Object.entries(sys.procs)) {
            pr.exited = pr.exited || {};
            (results.logs = results.logs || {})[`${who}-${name}.log`] = proc.logs().slice(-200000);
            if (!proc.child || proc.child.exitCode === null) continue;
            pr.exited[`${who}-${name}`] = proc.child.exitCode;
            pr.errors.push(`${name} process exited during the run (code ${proc.child.exitCode}); see logs/${who}-${name}.log`);
          }
          await sys.stop();
        }
      }
    }
    if (o.faults && o.faults.length) {
      // The WebSocket link's suite beside every bundle path, then each link path named, alone.
      if (groups.some((g) => paths.linkOf(g[0]) === 'ws')) results.faults = await runFaultSection(o, profileDefs, progress);
      for (const p of running.filter((id) => paths.get(id).kind === 'link')) {
        (results.linkFaults = results.linkFaults || {})[p] = await runFaultSection(o, profileDefs, progress, p);
      }
    }
    if (o.fleet) results.fleet = await runFleetSection(o, progress);
  } finally {
    progress.stop();
  }
  results.finishedAt = new Date().toISOString();
  const out = await writeReport(results, outDir);
  log(`results: ${path.relative(process.cwd(), outDir) || outDir}/report.md`);
  return out;
}

/**
 * The fault suite on a system of its own (Toxiproxy in both links with no latency: the 'proxied'
 * profile), so the measured sections above never see a fault: every bundle path over the
 * WebSocket link, or one link path (the edge↔cloud link over its transport) alone.
 * @param {string} [linkPath] a link path id (ws-amqp…): its suite instead of the WebSocket link's
 * @returns {Promise<{profile: string, options: object, results: object[], link?: string}|{error: string}>}
 */
async function runFaultSection(o, profileDefs, progress, linkPath) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-faults-'));
  const inputLog = faults.inputLogFile(dir);
  const over = linkPath ? `, link over ${paths.linkOf(linkPath)}` : '';
  progress.phase(`faults${over}: starting PLC, cloud and edge Node-RED, Toxiproxy (${o.faults.join(', ')})`);
  let sys;
  try {
    sys = await startSystem({
      profileName: 'proxied', links: profileDefs.proxied.links, protocols: linkPath ? [linkPath] : BUNDLE_PROTOCOLS, tuning: o.tuning,
      scanMs: o.scanMs, plcInputLog: inputLog, log: (l) => progress.log(l),
    });
    const list = await faults.runFaults(sys, { faults: o.faults, inputLog, protocol: linkPath, log: (l) => progress.phase(l) });
    return { profile: 'proxied', options: { ...faults.DEFAULTS }, results: list, ...(linkPath ? { link: linkPath } : {}) };
  } catch (err) {
    return { error: `${err.code || ''} ${err.message.split('\n')[0]}` };
  } finally {
    if (sys) await sys.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The fleet section on a fleet of its own (bench/lib/fleet-bench.js).
 * @returns {Promise<object>}
 */
async function runFleetSection(o, progress) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-fleet-'));
  try {
    return await fleetBench.runFleetBench({ ...o.fleet, scanMs: o.scanMs, dir, log: (l) => progress.phase(l) });
  } catch (err) {
    return { errors: [`${err.code || ''} ${err.message.split('\n')[0]}`] };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  let cli;
  try {
    cli = parseCli(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${err.message}\n\n${HELP}`);
    process.exit(2);
  }
  if (cli.help) { process.stdout.write(HELP); return; }
  const out = await runBench(cli);
  process.stdout.write(`${out.dir}\n`);
}

if (require.main === module) {
  // A benchmark stops by itself: on Ctrl-C the finally blocks stop every child process.
  let interrupted = false;
  process.on('SIGINT', () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    process.stderr.write('\ninterrupted: stopping (Ctrl-C again to force)\n');
    setTimeout(() => process.exit(130), 20000).unref();
  });
  // Terminated (a CI timeout, `kill`): exit at once; the children stop themselves when our end of
  // their IPC lifeline closes (system/exit-with-parent.js).
  process.on('SIGTERM', () => {
    process.stderr.write('\nterminated: the PLC and Node-RED children stop with this process\n');
    process.exit(143);
  });
  main().catch((err) => {
    process.stderr.write(`bench failed: ${err.code || ''} ${err.stack || err.message}\n`);
    process.exit(1);
  });
}

module.exports = { runBench, parseCli, probeThink, machine, versions, DEFAULTS, HELP };
