#!/usr/bin/env node
'use strict';
/**
 * The protocol study rerun (OPC UA, ROS, DDS and MQTT beside this bundle's WebSocket path): bytes
 * on the wire, round trips by message size idle / with every core busy / with the network loaded,
 * many forwarding nodes on one host, and our own WebSocket–S7 path under the same loads. Writes
 * report.md, summary.json and cells.json into --out. docs/study.md says what runs and what the
 * figures mean.
 *
 *   node bench/study.js                                   # everything (about an hour here)
 *   node bench/study.js --smoke                           # each stack once, a few messages
 *   node bench/study.js --stacks ros,dds --tasks rtt --loads idle,cpu
 *   node bench/study.js --stacks udp --tasks rtt --loads net --into bench/results/<run>   # one cell again
 *
 * Every measurement runs in a network namespace of its own (`unshare -n`, so root), which is
 * what lets a capture see only its packets and the network load shape only its loopback.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { pick, STACKS, ROOT } = require('./study/stacks');
const loads = require('./study/loads');
const report = require('./study/report');
const { summarise } = require('../nodes/lib/core/stats');

const TABLE3_SIZES = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768];
const DEFAULTS = {
  stacks: 'all', loads: 'idle,cpu,net', tasks: 'bytes,rtt,chain,own',
  sizes: TABLE3_SIZES.join(','), count: 500, warmup: 20, bytesSizes: '0,100,1000,10000', bytesCount: 100,
  chainStreams: 2, chainHops: '5,25,50,100', chainRounds: 10, chainSize: 10240, chainStacks: 'ros,dds,mqtt,mosquitto',
  ownProbes: 300, ownSamples: 30, netRate: 500, netQueueMs: 1, mtu: 1500, prewarm: 300,
};
const SMOKE = {
  stacks: 'all', loads: 'idle', tasks: 'bytes,rtt', sizes: '2,1024', count: 5, warmup: 2, bytesSizes: '0,100', bytesCount: 5,
  chainStreams: 1, chainHops: '2', chainRounds: 2, ownProbes: 20, ownSamples: 5, prewarm: 10,
};
const CELL_TIMEOUT_MS = 40 * 60000;

function parse(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      smoke: { type: 'boolean', default: false }, out: { type: 'string' }, into: { type: 'string' },
      stacks: { type: 'string' }, loads: { type: 'string' }, tasks: { type: 'string' }, sizes: { type: 'string' },
      count: { type: 'string' }, warmup: { type: 'string' }, 'bytes-sizes': { type: 'string' }, 'bytes-count': { type: 'string' },
      'chain-streams': { type: 'string' }, 'chain-hops': { type: 'string' }, 'chain-rounds': { type: 'string' }, 'chain-size': { type: 'string' },
      'chain-stacks': { type: 'string' }, 'own-probes': { type: 'string' }, 'own-samples': { type: 'string' },
      'net-rate': { type: 'string' }, 'net-queue-ms': { type: 'string' }, mtu: { type: 'string' }, prewarm: { type: 'string' },
    },
  });
  const d = { ...DEFAULTS, ...(values.smoke ? SMOKE : {}) };
  const get = (k, camel) => (values[k] !== undefined ? values[k] : d[camel]);
  const list = (v) => String(v).split(',').map((s) => s.trim()).filter(Boolean);
  const nums = (v) => list(v).map(Number);
  const o = {
    smoke: values.smoke,
    out: values.into || values.out || path.join(ROOT, 'bench', 'results', `${new Date().toISOString().slice(0, 10)}-study`),
    into: Boolean(values.into),
    stacks: pick(get('stacks', 'stacks')).map((s) => s.id),
    loads: list(get('loads', 'loads')), tasks: list(get('tasks', 'tasks')), sizes: nums(get('sizes', 'sizes')),
    count: Number(get('count', 'count')), warmup: Number(get('warmup', 'warmup')),
    bytesSizes: nums(get('bytes-sizes', 'bytesSizes')), bytesCount: Number(get('bytes-count', 'bytesCount')),
    chainStreams: Number(get('chain-streams', 'chainStreams')), chainHops: nums(get('chain-hops', 'chainHops')),
    chainRounds: Number(get('chain-rounds', 'chainRounds')), chainSize: Number(get('chain-size', 'chainSize')),
    chainStacks: pick(get('chain-stacks', 'chainStacks')).map((s) => {
      if (!s.chain) throw Object.assign(new Error(`${s.id} has no forwarding role for the many-nodes test ` +
        `(${Object.values(STACKS).filter((x) => x.chain).map((x) => x.id).join(', ')})`), { code: 'E_STUDY_ARGS' });
      return s.id;
    }),
    ownProbes: Number(get('own-probes', 'ownProbes')), ownSamples: Number(get('own-samples', 'ownSamples')),
    net: { rateMbit: Number(get('net-rate', 'netRate')), queueMs: Number(get('net-queue-ms', 'netQueueMs')), mtu: Number(get('mtu', 'mtu')) },
    prewarm: Number(get('prewarm', 'prewarm')),
  };
  for (const l of o.loads) if (!['idle', 'cpu', 'net'].includes(l)) throw Object.assign(new Error(`unknown load "${l}" (idle, cpu, ` +
    `net)`), { code: 'E_STUDY_ARGS' });
  for (const t of o.tasks) if (!['bytes', 'rtt', 'chain', 'own'].includes(t)) throw Object.assign(new Error(`unknown task "${t}" (bytes, rtt, chain, ` +
    `own)`), { code: 'E_STUDY_ARGS' });
  return o;
}

/** Run a command in a network namespace of its own; resolves with its stdout and exit code. */
function inNetns(args, o = {}) {
  return new Promise((resolve) => {
    const env = { ...process.env, ...(o.env || {}), [loads.OUTER_ENV]: loads.netnsId() || '' };
    const child = spawn('unshare', ['-n', ...args], { env, stdio: ['ignore', 'pipe', o.inherit ? 'inherit' : 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; if (o.inherit) process.stdout.write(d); });
    if (child.stderr) child.stderr.on('data', (d) => { err = (err + d).slice(-20000); });
    const timer = setTimeout(() => child.kill('SIGINT'), o.timeoutMs || CELL_TIMEOUT_MS);
    child.once('error', (e) => { err += e.message; });
    child.once('close', (code) => { clearTimeout(timer); resolve({ out, err, code }); });
  });
}

/** One measurement in its own namespace; never throws (a failure is the cell's error). */
async function runCell(spec) {
  const { out, err, code } = await inNetns([process.execPath, path.join(__dirname, 'study', 'cell.js'), JSON.stringify(spec)]);
  const line = out.trim().split('\n').filter(Boolean).pop();
  try {
    const parsed = JSON.parse(line);
    if (parsed.result) return { ...pickSpec(spec), result: parsed.result };
    return { ...pickSpec(spec), error: parsed.error };
  } catch {
    return { ...pickSpec(spec), error: { code: 'E_STUDY_CELL', message: `cell exited ${code}: ${err.slice(-2000)}` } };
  }
}

const pickSpec = (s) => ({ stack: s.stack, task: s.task, load: s.load, spec: s });

/** Our own WebSocket–S7 path through bench/run.js under one load; summarised from its samples. */
async function runOwn(o, load) {
  const dir = path.join(o.out, `own-${load}`);
  const args = [path.join(__dirname, 'run.js'), '--protocols', 'ws', '--profiles', 'local', '--no-load', '--no-browser',
    '--probe-samples', String(o.ownProbes), '--samples', String(o.ownSamples), '--floor-samples', '30', '--out', dir];
  const wrapped = [process.execPath, path.join(__dirname, 'study', 'netns-exec.js'), load, '--', process.execPath, ...args];
  const { code, err } = await inNetns(wrapped, { timeoutMs: CELL_TIMEOUT_MS, env: { S7T_STUDY_NET: JSON.stringify(o.net) } });
  if (code !== 0) return { error: `bench/run.js exited ${code}: ${err.slice(-1500)}` };
  const rows = fs.readFileSync(path.join(dir, 'samples.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
  const ms = (section) => rows.filter((r) => r[1] === section && r[2] === 'ws').map((r) => Number(r[6]));
  return { probe: summarise(ms('probe')), production: summarise(ms('production')), dir: path.relative(o.out, dir) };
}

/** MemAvailable of /proc/meminfo, MB (null where it does not say). */
function availableMB() {
  try {
    const m = /MemAvailable:\s+(\d+) kB/.exec(fs.readFileSync('/proc/meminfo', 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

function log(msg) { process.stderr.write(`[study ${new Date().toISOString().slice(11, 19)}] ${msg}\n`); }

function machine() {
  return { cpus: os.cpus().length, cpuModel: (os.cpus()[0] || {}).model, memGB: os.totalmem() / 2 ** 30, os: `${os.type()} ` +
    `${os.release()}`, loadavg: os.loadavg() };
}

/**
 * Run the study.
 * @param {ReturnType<typeof parse>} o
 * @returns {Promise<{cells:object[], own:object, summary:object, reportPath:string}>}
 */
async function runStudy(o) {
  fs.mkdirSync(o.out, { recursive: true });
  if (o.into && !fs.existsSync(path.join(o.out, 'cells.json'))) throw Object.assign(new Error(`--into ${o.out}: no earlier run there ` +
    `(cells.json)`), { code: 'E_STUDY_ARGS' });
  const startedAt = new Date().toISOString();
  const loadavg = os.loadavg();
  const cells = [];
  const skipped = {};
  for (const id of o.stacks) { const why = STACKS[id].missing(); if (why) skipped[id] = why; }
  const stacks = o.stacks.filter((id) => !skipped[id]);
  const base = { net: o.net };
  if (o.tasks.includes('bytes')) {
    // Under each load too: what a message costs is its encoding, but a full queue adds the resends.
    for (const load of o.loads) {
      for (const stack of stacks) {
        if (STACKS[stack].kind === 'baseline') continue; // raw sockets have no protocol to count
        log(`bytes: ${stack}, ${load}`);
        cells.push(await runCell({ ...base, stack, task: 'bytes', load, bytesSizes: o.bytesSizes, bytesCount: o.bytesCount }));
      }
    }
  }
  if (o.tasks.includes('rtt')) {
    for (const load of o.loads) {
      for (const stack of stacks) {
        log(`round trips: ${stack}, ${load}`);
        cells.push(await runCell({ ...base, stack, task: 'rtt', load, sizes: o.sizes, count: o.count, warmup: o.warmup, prewarm: o.prewarm, mode: 'echo' }));
      }
    }
  }
  if (o.tasks.includes('chain')) {
    for (const stack of o.chainStacks.filter((id) => !skipped[id])) {
      let perNodeMB = null;
      for (const hops of o.chainHops) {
        const nodes = o.chainStreams * hops;
        const room = availableMB();
        if (perNodeMB && room !== null && nodes * perNodeMB > room / 2) {
          const message = `not started: ${nodes} nodes at ${perNodeMB.toFixed(0)} MB would take more than half of the ${room.toFixed(0)} MB available`;
          const spec = { streams: o.chainStreams, hops, size: o.chainSize };
          cells.push({ stack, task: 'chain', load: 'idle', spec, error: { code: 'E_STUDY_MEMORY', message } });
          break;
        }
        log(`many nodes: ${stack}, ${o.chainStreams} × ${hops}`);
        const c = await runCell({ ...base, stack, task: 'chain', load: 'idle', streams: o.chainStreams, hops, rounds: o.chainRounds, size: o.chainSize });
        cells.push(c);
        if (!c.result || c.result.error || !c.result.rttUs.length) break; // more nodes will not do better
        perNodeMB = c.result.rssPerNodeMB;
      }
    }
  }
  const own = {};
  if (o.tasks.includes('own')) {
    for (const load of o.loads) { log(`our WebSocket–S7 path: ${load}`); own[load] = await runOwn(o, load); }
  }
  const command = `node bench/study.js ${process.argv.slice(2).join(' ')}`.trim();
  let summary = {
    startedAt, finishedAt: new Date().toISOString(), command,
    options: o, machine: { ...machine(), loadavgAtStart: loadavg }, skipped,
    stacks: Object.fromEntries(o.stacks.map((id) => [id, { label: STACKS[id].label, impl: STACKS[id].impl, transport: STACKS[id].transport }])),
    own,
  };
  let all = cells;
  if (o.into) ({ summary, cells: all } = mergeInto(o.out, summary, cells, own));
  summary.rtt = report.rttStats(all);
  // One cell a line: its samples stay on that line, so the file diffs and reads cell by cell.
  fs.writeFileSync(path.join(o.out, 'cells.json'), `[\n${all.map((c) => JSON.stringify(c)).join(',\n')}\n]\n`);
  fs.writeFileSync(path.join(o.out, 'summary.json'), `${JSON.stringify(summary, null, 1)}\n`);
  const reportPath = path.join(o.out, 'report.md');
  fs.writeFileSync(reportPath, renderReport(summary, all, summary.own));
  return { cells: all, own: summary.own, summary, reportPath };
}

/** What a cell measured: the same key is the same measurement, to be replaced by a rerun. */
const cellKey = (c) => [c.stack, c.task, c.load, c.task === 'chain' ? `${c.spec.streams}x${c.spec.hops}` : ''].join('/');

/**
 * Put a rerun's cells into an earlier run's results (`--into`): each replaces the earlier cell of
 * the same stack, task, load (and chain size), the rest stay; the rerun is listed in the summary.
 */
function mergeInto(dir, rerun, cells, own) {
  const before = JSON.parse(fs.readFileSync(path.join(dir, 'cells.json'), 'utf8'));
  const summary = JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8'));
  const fresh = new Map(cells.map((c) => [cellKey(c), c]));
  const merged = before.map((c) => fresh.get(cellKey(c)) || c);
  for (const c of cells) if (!before.some((b) => cellKey(b) === cellKey(c))) merged.push(c);
  summary.own = { ...(summary.own || {}), ...own };
  summary.stacks = { ...summary.stacks, ...rerun.stacks };
  // The link settings the report states are the latest run's (each cell keeps its own in spec.net).
  summary.options = { ...summary.options, net: rerun.options.net };
  summary.skipped = { ...summary.skipped, ...rerun.skipped };
  const entry = { command: rerun.command, startedAt: rerun.startedAt, finishedAt: rerun.finishedAt, cells: cells.map(cellKey), own: Object.keys(own) };
  summary.reruns = [...(summary.reruns || []), entry];
  return { summary, cells: merged };
}

/** The whole report.md. */
function renderReport(summary, cells, own) {
  const o = summary.options;
  const m = summary.machine;
  const stackRows = Object.entries(summary.stacks).map(([id, s]) => [
    STACKS[id] ? STACKS[id].label : s.label, s.impl, s.transport.toUpperCase(),
    summary.skipped[id] ? `skipped: ${summary.skipped[id]}` : 'measured',
  ]);
  const load = m.loadavgAtStart.map((x) => x.toFixed(2)).join(' ');
  const reruns = (summary.reruns || []).map((r) => {
    const what = [...r.cells, ...r.own.map((l) => `own path/${l}`)].join(', ');
    return `\nRerun into this run: \`${r.command}\` (${r.startedAt} – ${r.finishedAt}): ${what}.`;
  });
  return [
    '# Protocol study: OPC UA, ROS, DDS, MQTT and WebSocket on one host',
    '',
    `\`${summary.command}\`, ${summary.startedAt} – ${summary.finishedAt}; ${m.cpus} × ${m.cpuModel}, ${m.memGB.toFixed(1)} GB, ${m.os}, ` +
      `load average ${load} at the start.`,
    ...reruns,
    '',
    'Rerun of S. Profanter et al., "OPC UA versus ROS, DDS, and MQTT: Performance Evaluation of Industry 4.0 Protocols" ' +
      '(shared/reference/opcua-ros-dds-mqtt-study.txt); its figures in brackets. It measured C/C++ stacks between two hosts over a gigabit ' +
      'switch with a real-time kernel; here every stack runs on one 2-core host over loopback, each measurement in a network namespace of its ' +
      'own, at normal priority. ROS here is ROS 1 (rospy; ROS 2 is not installable from the registries this project uses); DDS is Cyclone DDS ' +
      '(Python binding) and eProsima Fast DDS (C++, the study\'s Fast RTPS grown up), both discovering by unicast on 127.0.0.1 with multicast off.',
    '',
    report.table(['stack', 'implementation', 'transport', ''], stackRows),
    '',
    `Every measurement's loopback has Ethernet's frame size (MTU ${o.net.mtu || 65536} bytes, no segmentation offload). ` +
      'Loads: **idle**; **every core busy**: stress-ng `--cpu 0` (one hog per core) for the whole measurement; **network loaded**: ' +
      `the namespace's loopback shaped to ${o.net.rateMbit} Mbit/s with tbf (a queue of ${o.net.queueMs} ms at that rate plus a 16 KiB ` +
      'burst) and an iperf3 bulk TCP transfer (2 streams) flat out over it, which keeps the queue full.',
    '',
    report.bytesSection(cells),
    '',
    report.rttSection(cells, o),
    '',
    report.chainSection(cells),
    '',
    report.ownSection(own),
    '',
  ].join('\n');
}

if (require.main === module) {
  let o;
  try { o = parse(process.argv.slice(2)); } catch (e) { process.stderr.write(`${e.code || ''} ${e.message}\n`); process.exit(2); }
  runStudy(o).then((r) => {
    const failed = r.cells.filter((c) => !c.result).length;
    log(`report: ${path.relative(process.cwd(), r.reportPath)} (${r.cells.length} measurements, ${failed} failed)`);
  }, (e) => { process.stderr.write(`${e.code || 'E_STUDY'} ${e.stack}\n`); process.exit(1); });
}

module.exports = { parse, runStudy, renderReport, mergeInto, DEFAULTS, SMOKE };
