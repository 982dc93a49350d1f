'use strict';
/**
 * The benchmark's results folder: raw samples (CSV), a summary (JSON), a Markdown report with
 * each of our tables beside the study's (same rows, same columns: cells read "ours (study)"),
 * ratios, targets, machine/versions/settings, and the plots as SVG files.
 */
const fs = require('node:fs');
const path = require('node:path');
const { summarise } = require('../../nodes/lib/core/stats');
// The benchmark's productions run the demo box-sorting plant: its table.
const tags = require('../../nodes/lib/core/io-table').demoTable();
const plots = require('./plots');
const STUDY = require('../study-figures.json');
const paths = require('../../nodes/lib/core/paths');
const { TUNINGS } = require('./system');
const { whereLines } = require('./where-bytes');

/**
 * The study's protocol a row compares with (nodes/lib/core/paths.js bench.study): a stock replica
 * is the study's own stack for its protocol, so its cells carry the study's figures of that
 * protocol, as our path's do. A path the study did not measure compares with nothing.
 */
const studyKey = (p) => (paths.get(p) && paths.get(p).bench.study) || p;
/** What each bundle path's twin transport counts as bytes on the wire (Table 3). */
const BYTES_COUNTED = Object.fromEntries(paths.PATHS.filter((p) => p.bench.bytes).map((p) => [p.id, p.bench.bytes]));
const VAR_LABEL = {
  c1: 'Conveyor Belt', p1bw: 'Piston1 Backward', p2fw: 'Piston2 Forward', p3fw: 'Piston3 Forward', red: 'Red Lamp', overall: 'Overall Average',
};
const STUDY_PROFILE = { local: 'local', wan: 'wan' }; // which of the study's Table 5 columns a profile compares with

/** The benchmark's targets (ms): beat the study's WAN figures, hold 1,000 twins, loopback within a scan or so. */
const TARGETS = {
  // Half the study's WAN WebSocket–S7 mean (Table 1 overall, 87 ms), whole milliseconds down.
  wanWsMean: Math.floor(STUDY.table1.rows.ws.overall.mean / 2),
  wanWsP99: 60,
  loadUsers: 1000,
  loadP99: 100,
  loopbackWsMean: 10,
  loopbackWsP99: 15,
};

const fmt = (v, d = 1) => {
  if (v === undefined || v === null || Number.isNaN(v)) return '–';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(d);
  return String(v);
};
const cell = (ours, study, d = 1) => (study === undefined || study === null ? fmt(ours, d) : `${fmt(ours, d)} (${fmt(study, d)})`);
const label = (p) => (paths.get(p) ? paths.get(p).label : p);

/** A Markdown table. */
function table(head, rows) {
  const esc = (s) => String(s).replace(/\|/g, '\\|');
  return [`| ${head.map(esc).join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`)].join('\n');
}

/** Our Table 1 statistics for a sample array (the study's columns plus ours). */
function t1stats(samples, expired = 0) {
  const s = summarise(samples);
  return { ...s, count: s.n, expired };
}

/**
 * Summaries of everything (no raw arrays): what summary.json holds and the report reads.
 * @param {object} results
 */
function summarize(results) {
  const { logs, ...rest } = results;
  const out = { ...rest, logs: logs ? Object.keys(logs).map((n) => `logs/${n}`) : [], profiles: {} };
  for (const [name, pr] of Object.entries(results.profiles)) {
    const p = {
      links: pr.links, available: pr.available, notes: pr.notes || [], errors: pr.errors || [],
      loadStopped: pr.loadStopped || {}, loadCapped: pr.loadCapped || {},
    };
    if (pr.floor) p.floor = { ...summarise(pr.floor.samples), warmup: pr.floor.warmup, errors: pr.floor.errors };
    p.probe = {};
    for (const [proto, r] of Object.entries(pr.probe || {})) {
      p.probe[proto] = { ...stripLoad(r), stats: r.samples ? summarise(r.samples) : r.summary };
    }
    p.productions = {};
    for (const [proto, r] of Object.entries(pr.productions || {})) {
      const vars = {};
      for (const [v, arr] of Object.entries(r.samples)) vars[v] = t1stats(arr, r.expired[v]);
      const expiredAll = Object.values(r.expired).reduce((a, b) => a + b, 0);
      vars.overall = { ...t1stats(r.all, expiredAll) };
      const dur = r.bytes.durationMs / 1000;
      const frames = r.bytes.framesIn + r.bytes.framesOut;
      const total = r.bytes.in + r.bytes.out;
      p.productions[proto] = {
        variables: vars,
        errors: r.errors,
        warmupSamples: r.warmupSamples,
        productions: r.productions,
        failed: r.failed,
        gaveUp: Boolean(r.gaveUp),
        reasons: r.reasons.slice(0, 10),
        cycle: r.cycleMs.length ? { ...summarise(r.cycleMs.map((ms) => ms / 1000)), boxes: r.boxes } : null,
        bytes: {
          ...perUnit(r.bytes),
          bytesPerSec: dur > 0 ? total / dur : null,
          inPerSec: dur > 0 ? r.bytes.in / dur : null,
          outPerSec: dur > 0 ? r.bytes.out / dur : null,
          frames,
          totalKB: total / 1024,
          meanSize: frames ? total / frames : null,
          seconds: dur,
        },
        where: r.where || null,
        link: r.link && r.link.boxes ? linkPerBox(r.link) : null,
      };
    }
    p.browser = {};
    for (const [proto, r] of Object.entries(pr.browser || {})) p.browser[proto] = browserSummary(r);
    p.flowTimers = {};
    for (const [proto, vars] of Object.entries(pr.flowTimers || {})) {
      p.flowTimers[proto] = {};
      for (const [v, arr] of Object.entries(vars)) p.flowTimers[proto][v] = summarise(arr);
    }
    p.load = {};
    for (const [proto, levels] of Object.entries(pr.load || {})) {
      p.load[proto] = {};
      for (const [users, r] of Object.entries(levels)) p.load[proto][users] = stripLoad(r);
    }
    out.profiles[name] = p;
  }
  return out;
}

/**
 * Bytes per unit of work, both directions: per box sorted, per input change the twin sent (one
 * frame or message per plant tick with changes) and per PLC state update it received.
 */
function perUnit(b) {
  const per = (bytes, n) => (n > 0 ? bytes / n : null);
  return {
    boxes: b.boxes || 0,
    inputChanges: b.inputChanges || 0,
    stateChanges: b.stateChanges || 0,
    outPerBox: per(b.out, b.boxes),
    inPerBox: per(b.in, b.boxes),
    bothPerBox: per(b.in + b.out, b.boxes),
    outPerInputChange: per(b.out, b.inputChanges),
    inPerStateChange: per(b.in, b.stateChanges),
  };
}

/**
 * The edge↔cloud link over each transport: its bytes per box (Table 3 for the link), beside the
 * round trip the twin saw (Table 1's overall mean).
 */
function linkLines(s) {
  const rows = [];
  for (const [name, p] of Object.entries(s.profiles)) {
    for (const proto of paths.inTable('links')) {
      const r = p.productions[proto];
      if (!r || !r.link) continue;
      const o = r.variables.overall;
      const c = r.link.cost || {};
      const cpu = (k) => fmt(c[k] && c[k].cpuPct);
      rows.push([name, label(proto), r.link.boxes, fmt(r.link.upPerBox, 0), fmt(r.link.downPerBox, 0), fmt(r.link.bothPerBox, 0), fmt(o.mean), fmt(o.p99),
        cpu('cloud'), cpu('edge'), cpu('broker'), fmt(c.broker && c.broker.rssPeakMB, 0)]);
    }
  }
  if (!rows.length) return [];
  const out = ['## The edge↔cloud link: bytes per box', ''];
  out.push([
    'The same productions, seen on the edge↔cloud link rather than the twin\'s connection: TCP payload of the edge\'s connections',
    'to the link (the cloud\'s edge endpoint, the broker, the ZeroMQ router), from the kernel\'s counters (`ss`; bench/lib/link-bytes.js),',
    'over every measured production, per box sorted. ↑ edge → cloud (states, answers, syncs), ↓ cloud → edge (commands, sync answers,',
    'and for a broker its acknowledgements). Everything a transport puts around a frame is in it; TCP/IP headers are not. Beside it the',
    'twin\'s round trip (Table 1, overall), and what the link\'s ends cost over the productions: CPU % of one core of the cloud\'s and the',
    'edge\'s Node-RED and of the broker\'s process (RabbitMQ\'s Erlang VM, Kafka\'s JVM; MQTT\'s broker runs in the cloud\'s process,',
    'ZeroMQ has none), from /proc like Table 4.',
  ].join(' '), '');
  const head = ['profile', 'link', 'boxes', 'B/box ↑', 'B/box ↓', 'B/box both', 'round trip mean (ms)', 'p99 (ms)',
    'cloud CPU %', 'edge CPU %', 'broker CPU %', 'broker RSS MB'];
  out.push(table(head, rows), '');
  for (const name of Object.keys(s.profiles)) {
    const p = s.profiles[name];
    const have = paths.inTable('links').filter((k) => p.productions[k] && p.productions[k].link);
    const r = ratios(have.map((k) => [k, p.productions[k].link.bothPerBox]), 'B/box');
    if (r) out.push(`- ${name}, link bytes per box: leanest ${r}`);
  }
  out.push('');
  return out;
}

/** The edge↔cloud link's TCP bytes per box sorted (bench/lib/link-bytes.js), each way. */
function linkPerBox(l) {
  return { boxes: l.boxes, upPerBox: l.sent / l.boxes, downPerBox: l.received / l.boxes, bothPerBox: (l.sent + l.received) / l.boxes, cost: l.cost || null };
}

/** The browser twin's cost over one protocol, without the raw arrays. */
function browserSummary(r) {
  const rtt = (r.rtt || []).map((x) => x[1]);
  return {
    seconds: r.seconds,
    frames: r.frames,
    frameInterval: summarise(r.frameIntervals || []),
    frameWork: summarise(r.frameWork || []),
    longTasks: r.longTasks,
    longTaskMs: r.longTaskMs,
    heapMB: r.heapBytes === null || r.heapBytes === undefined ? null : r.heapBytes / 2 ** 20,
    workerHeapMB: r.workerHeapBytes === null || r.workerHeapBytes === undefined ? null : r.workerHeapBytes / 2 ** 20,
    cpuPct: r.cpuPct || {},
    rtt: summarise(rtt),
    boxes: r.boxes,
    errors: (r.connection && r.connection.errors) || 0,
    reconnects: (r.connection && r.connection.reconnects) || 0,
    webgl: r.webgl,
    software: r.software,
    pixelRatio: r.pixelRatio,
    pageErrors: r.errors || [],
  };
}

function stripLoad(r) {
  const { hist, samples, ...rest } = r;
  return rest;
}

/** Raw samples as CSV: profile,section,protocol,variable,users,seq,ms. */
function samplesCsv(results) {
  const lines = ['profile,section,protocol,variable,users,seq,ms'];
  const push = (profile, section, protocol, variable, users, arr) => {
    arr.forEach((ms, i) => lines.push(`${profile},${section},${protocol},${variable},${users},${i + 1},${ms.toFixed(3)}`));
  };
  for (const [name, pr] of Object.entries(results.profiles)) {
    if (pr.floor) push(name, 'floor', 'tcp-echo', 'echo', 1, pr.floor.samples);
    for (const [proto, r] of Object.entries(pr.probe || {})) if (r.samples) push(name, 'probe', proto, 'probe', 1, r.samples);
    for (const [proto, r] of Object.entries(pr.productions || {})) {
      for (const [v, arr] of Object.entries(r.samples)) push(name, 'production', proto, v, 1, arr);
    }
    for (const [proto, levels] of Object.entries(pr.load || {})) {
      for (const [users, r] of Object.entries(levels)) if (r.samples) push(name, 'load', proto, 'probe', users, r.samples);
    }
    for (const [proto, r] of Object.entries(pr.browser || {})) {
      for (const v of [...new Set((r.rtt || []).map((x) => x[0]))]) push(name, 'browser', proto, v, 1, r.rtt.filter((x) => x[0] === v).map((x) => x[1]));
      push(name, 'browser-frame', proto, 'interval', 1, r.frameIntervals || []);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Which protocol wins a metric (lower is better), and by how much each other is behind. */
function ratios(entries, unit = 'ms') {
  const valid = entries.filter(([, v]) => typeof v === 'number' && Number.isFinite(v) && v > 0);
  if (valid.length < 2) return null;
  valid.sort((a, b) => a[1] - b[1]);
  const [best, bv] = valid[0];
  return `${label(best)} (${fmt(bv)} ${unit}); ` + valid.slice(1).map(([p, v]) => `${label(p)} ×${(v / bv).toFixed(2)}`).join(', ');
}

function targetLine(name, ok, detail) {
  const mark = ok === null ? 'NOT MEASURED' : ok ? 'MET' : 'NOT MET';
  return `| ${name} | ${mark} | ${detail} |`;
}

/**
 * Where the time goes under load: for every WebSocket–S7 level whose p99 misses the load target,
 * the same level on loopback (what the emulated WAN adds) and the CPU of every process on the
 * machine over that level (what competes for the cores).
 * @param {object} s summarize(results)
 * @returns {string[]} Markdown list items
 */
function loadTimeLines(s) {
  const out = [];
  const cores = (s.machine || {}).cpus;
  for (const [name, p] of Object.entries(s.profiles)) {
    const levels = (p.load || {}).ws || {};
    for (const [users, r] of Object.entries(levels)) {
      if (!r.summary || !r.summary.n || r.summary.p99 < TARGETS.loadP99) continue;
      const c = r.cost || {};
      const cpu = ['cloud', 'edge', 'plc', 'toxiproxy', 'load'].filter((k) => c[k] && c[k].cpuPct !== null && c[k].cpuPct !== undefined)
        .map((k) => `${{ plc: 'PLC', load: 'load generator', toxiproxy: 'Toxiproxy' }[k] || k} ${fmt(c[k].cpuPct, 0)} %`);
      const parts = [`${name} WebSocket–S7 at ${users} twins: p99 ${fmt(r.summary.p99)} ms, mean ${fmt(r.summary.mean)} ms ` +
        `(target p99 < ${TARGETS.loadP99} ms)`];
      const fl = p.floor && p.floor.mean;
      if (fl) parts.push(`network floor ${fmt(fl)} ms`);
      const loc = name !== 'local' && s.profiles.local && s.profiles.local.load && s.profiles.local.load.ws && s.profiles.local.load.ws[users];
      if (loc && loc.summary && loc.summary.n) parts.push(`the same level on loopback: p99 ${fmt(loc.summary.p99)} ms, mean ${fmt(loc.summary.mean)} ms`);
      if (cpu.length) parts.push(`CPU over the level (% of one core): ${cpu.join(', ')}`);
      const wait = ['cloud', 'edge', 'load'].filter((k) => c[k] && typeof c[k].waitPct === 'number')
        .map((k) => `${{ load: 'load generator' }[k] || k} ${fmt(c[k].waitPct, 0)} %`);
      if (wait.length) parts.push(`event loop ready but waiting for a core (% of the level): ${wait.join(', ')}`);
      if (c.machine) {
        const saturated = c.machine.cpuPct >= 85 ? ' (saturated: queueing for a core, not the path, sets the tail)' : '';
        parts.push(`the machine was ${fmt(c.machine.cpuPct, 0)} % busy over its ${c.machine.cores || cores} cores${saturated}`);
      }
      out.push(`- ${parts.join('; ')}.`);
    }
  }
  return out;
}

/**
 * Our paths beside the study's own stacks: per protocol and profile, the bundle's path
 * and its stock replica side by side, probe and production means, failed productions, and the
 * study's figure for that protocol (Table 5 of the profile).
 * @param {object} s summarize(results)
 * @returns {string[]} markdown lines, none when no replica ran
 */
function stockLines(s) {
  const pairs = paths.inTable('stock').filter((p) => paths.get(p).kind === 'comparison').map((stock) => [studyKey(stock), stock]);
  const rows = [];
  for (const [name, p] of Object.entries(s.profiles)) {
    for (const [ours, stock] of pairs) {
      const ran = (k) => p.probe[k] || p.productions[k];
      if (!ran(ours) && !ran(stock)) continue;
      const probe = (k) => (p.probe[k] && p.probe[k].stats && p.probe[k].stats.n ? `${fmt(p.probe[k].stats.mean)} / ${fmt(p.probe[k].stats.p99)}` : '–');
      const prod = (k) => {
        const pp = p.productions[k];
        if (!pp) return '–';
        const o = pp.variables.overall;
        return `${o.n ? `${fmt(o.mean)} / ${fmt(o.p99)}` : 'no sample'}${pp.failed ? ` (${pp.failed} of ${pp.productions} failed)` : ''}`;
      };
      const st = STUDY.table5.rows[STUDY_PROFILE[name]] && STUDY.table5.rows[STUDY_PROFILE[name]][studyKey(stock)];
      rows.push([name, label(ours), probe(ours), probe(stock), prod(ours), prod(stock), st ? fmt(st.mean) : '–']);
    }
  }
  if (!rows.length) return [];
  const L = ['## Our paths beside the study\'s stock stacks', ''];
  L.push('Each protocol\'s path in this bundle beside its replica built from the nodes the study used (bench/flows/stock-*, ' +
    'docs/bench.md "The study\'s own stacks"): mean / p99 in ms of the probe round trips and of the production round trips ' +
    '(Table 1 overall), with productions that failed; the study\'s Table 5 mean for that protocol and profile last. ' +
    'A failed production names its reason in Table 1.', '');
  L.push(table(['profile', 'protocol', 'probe: ours', 'probe: stock', 'productions: ours', 'productions: stock', 'study mean'], rows), '');
  return L;
}

/**
 * Write the Markdown report body.
 * @param {object} s summarize(results)
 * @param {string[]} plotFiles relative paths
 */
function markdown(s, plotFiles) {
  const L = [];
  const o = s.options || {};
  L.push(`# Protocol benchmark report`, '');
  L.push(`Run ${s.startedAt} → ${s.finishedAt}${o.smoke ? ' (**smoke run**: few samples, figures are indicative only)' : ''}.`);
  L.push(`Command: \`${s.command}\``, '');
  L.push('Cells read **ours (study)**: our figure, then the study\'s for the same row and column (doi:10.1371/journal.pone.0342004, ' +
    'figures in `bench/study-figures.json` with their table cited). All times in ms unless named.', '');

  // Machine and settings.
  L.push('## Machine, versions, settings', '');
  const m = s.machine || {};
  L.push(table(['item', 'value'], [
    ['CPU', `${m.cpus} × ${m.cpuModel}`], ['memory', `${fmt(m.memGB)} GB`], ['OS', m.os],
    ['load average at start', (m.loadavg || []).map((x) => x.toFixed(2)).join(' ')],
    ...Object.entries(s.versions || {}).map(([k, v]) => [k, v]),
    ['PLC scan', `${o.scanMs} ms`], ['stock replica read cycle', `${o.stockCycleMs} ms`],
    ['stock OPC UA server minimum sampling', o.stockOpcuaSamplingMs === null || o.stockOpcuaSamplingMs === undefined
      ? '500 ms (node-red-contrib-opcua as installed)'
      : `${o.stockOpcuaSamplingMs} ms (the study's edit of 104-opcuaserver.js, by preload)`],
    ['protocols asked', (o.protocols || []).join(', ')], ['profiles', (o.profiles || []).join(', ')],
    ['samples per protocol (target)', o.samples], ['load levels (users)', (o.users || []).join(', ')],
    ['load think time / duration per level', `${o.thinkMs} ms / ${o.loadSeconds} s`], ['boxes per production', o.boxes],
  ]));
  L.push('');
  for (const [name, p] of Object.entries(s.profiles)) {
    const jittered = (dir) => (dir ? `${dir.latency}±${dir.jitter || 0}` : 0);
    const links = p.links
      ? Object.entries(p.links).map(([k, v]) => `${k}: up ${jittered(v.up)} ms, down ${jittered(v.down)} ms`).join('; ')
      : 'plain loopback, no proxy';
    L.push(`- profile **${name}**: ${links}. Paths available: ${Object.entries(p.available || {}).map(([k, v]) => `${k} ${v ? 'yes' : 'no'}`).join(', ')}.`);
    for (const n of p.notes) L.push(`  - note: ${n}`);
    for (const e of p.errors) L.push(`  - **error**: ${e}`);
  }
  L.push('');

  // Targets.
  L.push('## Targets', '');
  L.push('| target | result | detail |', '| --- | --- | --- |');
  const wan = s.profiles.wan;
  const loc = s.profiles.local;
  // Why a target has no figure: the profile, the path or the section was not in this run.
  const notRun = (profile, name, proto, section) => {
    if (!profile) return `profile ${name} not in this run`;
    if (!(o.protocols || []).includes(proto)) return `${label(proto)} not in this run's protocols`;
    if (!profile.available[proto]) return `${label(proto)} path not available on profile ${name}`;
    return `no ${section} in this run`;
  };
  const wsWan = wan && ((wan.productions.ws && wan.productions.ws.variables.overall.n ? wan.productions.ws.variables.overall : null)
    || (wan.probe.ws && wan.probe.ws.stats));
  L.push(targetLine(`WAN WS–S7 mean ≤ ${TARGETS.wanWsMean} ms, p99 ≤ ${TARGETS.wanWsP99} ms`,
    wsWan && wsWan.n ? wsWan.mean <= TARGETS.wanWsMean && wsWan.p99 <= TARGETS.wanWsP99 : null,
    wsWan && wsWan.n
      ? `mean ${fmt(wsWan.mean)}, p99 ${fmt(wsWan.p99)} (n ${wsWan.n}); network floor ${fmt(wan.floor && wan.floor.mean)}`
      : notRun(wan, 'wan', 'ws', 'productions or probes')));
  const wsLoc = loc && loc.probe.ws && loc.probe.ws.stats;
  L.push(targetLine(`loopback WS–S7 mean ≤ ${TARGETS.loopbackWsMean} ms, p99 ≤ ${TARGETS.loopbackWsP99} ms (probe, scan 10 ms)`,
    wsLoc && wsLoc.n ? wsLoc.mean <= TARGETS.loopbackWsMean && wsLoc.p99 <= TARGETS.loopbackWsP99 : null,
    wsLoc && wsLoc.n ? `mean ${fmt(wsLoc.mean)}, p99 ${fmt(wsLoc.p99)} (n ${wsLoc.n})` : notRun(loc, 'local', 'ws', 'probes')));
  const big = wan && wan.load.ws && wan.load.ws[TARGETS.loadUsers];
  L.push(targetLine(`${TARGETS.loadUsers} concurrent WS twins on WAN: 0 % errors, p99 < ${TARGETS.loadP99} ms`,
    big ? big.errors === 0 && big.summary.p99 < TARGETS.loadP99 : null,
    big ? `errors ${big.errors} (${fmt(big.errorPct, 2)} %), p99 ${fmt(big.summary.p99)}`
      : (wan && wan.load.ws
        ? `level not run (largest WAN ws level: ${Math.max(...Object.keys(wan.load.ws).map(Number))})`
        : notRun(wan, 'wan', 'ws', 'load levels'))));
  for (const proto of paths.inTable('targets')) {
    const pp = wan && wan.productions[proto];
    const r = pp && pp.variables.overall;
    const st = STUDY.table1.rows[proto].overall.mean;
    let detail = notRun(wan, 'wan', proto, 'productions');
    if (r && r.n) detail = `mean ${fmt(r.mean)} (n ${r.n}), tuning ${o.tuning}`;
    else if (pp && pp.failed) detail = `no sample: ${pp.failed} of ${pp.productions} productions failed (${pp.reasons[0]})`;
    L.push(targetLine(`WAN ${label(proto)} mean below the study's ${st} ms`, r && r.n ? r.mean < st : (pp && pp.failed ? false : null), detail));
  }
  L.push('');

  // Floor + probe: our bridge beside the stock-node replicas.
  L.push('## Network floor and probe round trips (our bridge beside the stock-node replica)', '');
  const pt = o.probeThink;
  const ptText = pt ? ` Each probe starts ${fmt(pt.thinkMs - pt.thinkWidthMs / 2)}–${fmt(pt.thinkMs + pt.thinkWidthMs / 2)} ms (uniform) ` +
    'after the previous answer: a whole number of scans and stock read cycles, so it lands at a random point of the scan as a ' +
    'plant event does (a probe sent right after an answer would wait a whole scan every time).' : '';
  L.push('One virtual twin, sequential probes: write a fresh UDInt to a PLC probe request slot, time until it comes back from the ' +
    `response slot (the PLC copies it every scan).${ptText} The floor is a plain TCP echo through the same emulated links ` +
    '(twin → cloud → edge and back). "adds" = mean − floor mean: what the stack costs above the network.', '');
  const prow = [];
  for (const [name, p] of Object.entries(s.profiles)) {
    if (p.floor && p.floor.n) {
      const f = p.floor;
      prow.push([name, 'TCP echo (floor)', f.n, fmt(f.mean), fmt(f.median), fmt(f.p95), fmt(f.p99), fmt(f.max), fmt(f.sd), f.errors, '–']);
    }
    for (const [proto, r] of Object.entries(p.probe)) {
      const st = r.stats || {};
      prow.push([name, label(proto), st.n || 0, fmt(st.mean), fmt(st.median), fmt(st.p95), fmt(st.p99), fmt(st.max), fmt(st.sd), r.errors,
        p.floor && st.n ? fmt(st.mean - p.floor.mean) : '–']);
    }
  }
  L.push(table(['profile', 'path', 'n', 'mean', 'median', 'p95', 'p99', 'max', 'SD', 'errors', 'adds'], prow), '');
  for (const [name, p] of Object.entries(s.profiles)) {
    const r = ratios(Object.entries(p.probe).map(([k, v]) => [k, v.stats && v.stats.mean]));
    if (r) L.push(`- ${name}, probe mean: fastest ${r}`);
  }
  L.push('');

  // Table 1 per profile.
  const t1cols = STUDY.table1.keys;
  for (const [name, p] of Object.entries(s.profiles)) {
    const protos = Object.keys(p.productions);
    if (!protos.length) continue;
    L.push(`## Table 1 — round trip per timed variable, profile ${name}`, '');
    L.push(`Twin productions (round-robin blocks), input event → matching PLC output on the twin's clock. Study figures: ${STUDY.table1.cite}. ` +
      'Plus p95, p99, jitter and expired (errors; never dropped silently).', '');
    const rows = [];
    for (const proto of protos) {
      const pp = p.productions[proto];
      for (const v of [...tags.timedPairs().map((x) => x.output), 'overall']) {
        const ours = pp.variables[v] || {};
        const st = (STUDY.table1.rows[studyKey(proto)] || {})[v] || {};
        rows.push([label(proto), VAR_LABEL[v], ...t1cols.map((c) => cell(ours[c === 'count' ? 'n' : c], st[c])),
          fmt(ours.p95), fmt(ours.p99), fmt(ours.jitter), ours.expired || 0]);
      }
      if (pp.warmupSamples) rows.push([label(proto), `(warm-up discarded: ${pp.warmupSamples} samples)`, ...t1cols.map(() => ''), '', '', '', '']);
      if (pp.failed) {
        const failed = `(${pp.failed} of ${pp.productions} productions failed: ${pp.reasons.slice(0, 2).join('; ')})`;
        rows.push([label(proto), failed, ...t1cols.map(() => ''), '', '', '', '']);
      }
    }
    L.push(table(['Protocol', 'Variable', ...STUDY.table1.columns, 'p95', 'p99', 'jitter', 'expired'], rows), '');
    const r = ratios(protos.map((k) => [k, p.productions[k].variables.overall.mean]));
    if (r) L.push(`- overall mean: fastest ${r}`, '');
  }

  // Cloud flow-timers.
  const ftRows = [];
  for (const [name, p] of Object.entries(s.profiles)) {
    for (const [proto, vars] of Object.entries(p.flowTimers || {})) {
      for (const [v, st] of Object.entries(vars)) {
        const twin = p.productions[proto] && p.productions[proto].variables[v];
        ftRows.push([name, proto, v, st.n, fmt(st.mean), fmt(st.median), fmt(st.p95), fmt(st.p99), twin && twin.n ? fmt(twin.mean - st.mean) : '–']);
      }
    }
  }
  if (ftRows.length) {
    L.push('## Cloud flow-timers (cloud → PLC → cloud)', '');
    L.push('What the flow-timer subflows in the cloud flow logged during the run (every phase). "twin leg" = the twin\'s Table 1 mean ' +
      'for the same variable minus this mean: the twin ↔ cloud part of the full loop.', '');
    L.push(table(['profile', 'protocol', 'variable', 'n', 'mean', 'median', 'p95', 'p99', 'twin leg'], ftRows), '');
  }

  // Table 5.
  // Our paths in the study's column order, then the stock replicas that carried productions in
  // this run, beside them.
  const studyOrder = Object.keys(STUDY.table5.rows.local);
  const t5ours = paths.inTable('table5').filter((p) => paths.get(p).kind !== 'comparison')
    .sort((a, b) => (studyOrder.indexOf(studyKey(a)) + 1 || 1e9) - (studyOrder.indexOf(studyKey(b)) + 1 || 1e9));
  const t5stock = paths.inTable('table5')
    .filter((p) => paths.get(p).kind === 'comparison' && Object.values(s.profiles).some((x) => x.productions[p]));
  const t5protos = [...t5ours, ...t5stock];
  const t5have = Object.values(s.profiles).some((p) => Object.keys(p.productions).length);
  if (t5have) {
    L.push('## Table 5 — local vs WAN round trip', '');
    L.push(`Study: ${STUDY.table5.cite}. Our "local" is loopback, our "wan" the emulated WAN profile; ` +
      'the floor column is the plain TCP echo of the same profile.', '');
    const head = ['Statistic'];
    const profs = Object.keys(s.profiles);
    for (const pn of profs) { head.push(`${pn} floor`); for (const pr of t5protos) head.push(`${pn} ${label(pr)}`); }
    const rows = [];
    for (const [i, stat] of STUDY.table5.keys.entries()) {
      const row = [STUDY.table5.columns[i]];
      for (const pn of profs) {
        const p = s.profiles[pn];
        row.push(fmt(p.floor && p.floor[stat === 'count' ? 'n' : stat]));
        for (const pr of t5protos) {
          const ours = p.productions[pr] && p.productions[pr].variables.overall;
          const st = STUDY.table5.rows[STUDY_PROFILE[pn]] && STUDY.table5.rows[STUDY_PROFILE[pn]][studyKey(pr)];
          row.push(ours && ours.n ? cell(ours[stat === 'count' ? 'n' : stat], st && st[stat]) : `– (${st ? fmt(st[stat]) : '–'})`);
        }
      }
      rows.push(row);
    }
    if (s.profiles.local && s.profiles.wan) {
      const row = ['Δ (wan − local)'];
      for (const pn of profs) {
        row.push(pn === 'wan' && s.profiles.local.floor && s.profiles.wan.floor ? fmt(s.profiles.wan.floor.mean - s.profiles.local.floor.mean) : '');
        for (const pr of t5protos) {
          if (pn !== 'wan') { row.push(''); continue; }
          const a = s.profiles.local.productions[pr];
          const b = s.profiles.wan.productions[pr];
          const st = STUDY.table5.rows.wan[studyKey(pr)].deltaFromLocal;
          row.push(a && b && a.variables.overall.n && b.variables.overall.n ? cell(b.variables.overall.mean - a.variables.overall.mean, st) : `– (${st})`);
        }
      }
      rows.push(row);
    }
    L.push(table(head, rows), '');
  }

  for (const line of stockLines(s)) L.push(line);

  // Table 4.
  const loadProfiles = Object.entries(s.profiles).filter(([, p]) => Object.keys(p.load).length);
  for (const [name, p] of loadProfiles) {
    L.push(`## Table 4 — load, profile ${name}`, '');
    L.push(`Each virtual twin has its own connection and PLC probe slot; one probe in flight per twin, ${o.thinkMs} ms think time, ` +
      `${o.loadSeconds} s per level, protocols interleaved per level. Study: ${STUDY.table4.cite} (its throughput is JMeter's, ` +
      'far below ours by design of its test plan). Server cost from /proc of the cloud and edge Node-RED processes (CPU % of one core, ' +
      'resident MB); beside it what else ran on the machine: Toxiproxy (the emulated WAN) and the load generator (every virtual twin, ' +
      `one process), CPU % of one core, and the machine's busy share of all its ${(s.machine || {}).cpus || '?'} cores.`, '');
    const rows = [];
    const levels = [...new Set(Object.values(p.load).flatMap((x) => Object.keys(x).map(Number)))].sort((a, b) => a - b);
    for (const u of levels) {
      for (const proto of Object.keys(p.load)) {
        const r = p.load[proto][u];
        if (!r) continue;
        const st = (STUDY.table4.rows[String(u)] || {})[studyKey(proto)] || {};
        const c = r.cost || {};
        rows.push([u, label(proto), cell(r.summary.mean, st.mean), cell(r.summary.min, st.min), cell(r.summary.max, st.max),
          cell(r.summary.sd, st.sd), fmt(r.summary.p95), fmt(r.summary.p99),
          cell(r.errorPct, st.errorPct, 2), cell(r.throughput, st.throughput, 2), r.summary.n, r.warmup,
          fmt(c.cloud && c.cloud.cpuPct), fmt(c.cloud && c.cloud.rssPeakMB, 0), fmt(c.edge && c.edge.cpuPct), fmt(c.edge && c.edge.rssPeakMB, 0),
          fmt(c.toxiproxy && c.toxiproxy.cpuPct), fmt(c.load && c.load.cpuPct), fmt(c.machine && c.machine.cpuPct)]);
      }
    }
    L.push(table(['Users', 'Protocol', 'Average', 'Min', 'Max', 'Std. Dev.', 'p95', 'p99', 'Error %', 'Throughput (req/s)', 'n', 'warm-up',
      'cloud CPU %', 'cloud RSS MB', 'edge CPU %', 'edge RSS MB', 'Toxiproxy CPU %', 'load gen. CPU %', 'machine busy %'], rows), '');
    const maxCommon = levels.filter((u) => Object.keys(p.load).every((pr) => p.load[pr][u])).pop();
    if (maxCommon !== undefined) {
      const r = ratios(Object.keys(p.load).map((pr) => [pr, p.load[pr][maxCommon].summary.p99]));
      if (r) L.push(`- p99 at ${maxCommon} users: fastest ${r}`);
      const cloudCpu = (pr) => { const cost = p.load[pr][maxCommon].cost; return cost && cost.cloud && cost.cloud.cpuPct; };
      const c = ratios(Object.keys(p.load).map((pr) => [pr, cloudCpu(pr)]), '% CPU');
      if (c) L.push(`- cloud CPU at ${maxCommon} users: lightest ${c}`);
    }
    for (const [proto, slots] of Object.entries(p.loadCapped)) {
      const path = paths.get(proto);
      if (!path || !path.probeSlotsEnv) continue; // a replica with an edge maps one probe slot by design (slot 0)
      L.push(`- ${label(proto)} was not run with more than ${slots - 1} twins: its edge relays probe slots 0..${slots - 1} only ` +
        `(the benchmark sets ${path.probeSlotsEnv} = ${slots}; each relayed slot costs the edge reads on every poll).`);
    }
    for (const [proto, stopped] of Object.entries(p.loadStopped)) {
      L.push(`- ${label(proto)} was not run beyond ${stopped} users: it did not hold there (over 1 % errors or p99 over 1 s).`);
    }
    L.push('');
  }

  // Table 3.
  const bytesRows = [];
  for (const [name, p] of Object.entries(s.profiles)) {
    for (const [proto, r] of Object.entries(p.productions)) {
      const b = r.bytes;
      const st = STUDY.table3.rows[studyKey(proto)] || {};
      bytesRows.push([name, label(proto), cell(b.bytesPerSec, st.bytesPerSec, 0), cell(b.frames, st.packets, 0), cell(b.totalKB, st.totalKB),
        cell(b.meanSize, st.meanSize, 0), fmt(b.seconds)]);
    }
  }
  if (bytesRows.length) {
    L.push('## Table 3 — bytes on the wire (twin connection)', '');
    const counted = Object.entries(BYTES_COUNTED).map(([k, v]) => `${label(k)}: ${v}`).join('; ');
    L.push('Counted by the twin transports over every production; the study captured packets with Wireshark on the end device ' +
      `(${STUDY.table3.cite}). Mean size = bytes per frame; the study's "Size" columns are per capture interval, so compare throughput first. ` +
      `What each transport counts: ${counted}.`, '');
    L.push(table(['profile', 'Protocol', 'Throughput (bytes/s)', 'Frames (Packets)', 'Total [KB]', 'Mean size (bytes)', 'seconds'], bytesRows), '');
    for (const [name, p] of Object.entries(s.profiles)) {
      const r = ratios(Object.entries(p.productions).map(([k, v]) => [k, v.bytes.bytesPerSec]), 'B/s');
      if (r) L.push(`- ${name}, bytes/s: leanest ${r}`);
    }
    L.push('');
    // Per unit of work: protocols that poll send bytes whether or not anything changed, so the
    // same plant work is the fair yardstick.
    const unitRows = [];
    for (const [name, p] of Object.entries(s.profiles)) {
      for (const [proto, r] of Object.entries(p.productions)) {
        const b = r.bytes;
        unitRows.push([name, label(proto), b.boxes, fmt(b.outPerBox, 0), fmt(b.inPerBox, 0), fmt(b.bothPerBox, 0),
          b.inputChanges, fmt(b.outPerInputChange, 0), b.stateChanges, fmt(b.inPerStateChange, 0)]);
      }
    }
    L.push('### Bytes per unit of work', '');
    L.push('The same productions, divided by the work done: boxes sorted; input changes the twin sent (one frame or message per plant ' +
      'tick with changes); PLC state updates the twin received (one per PLC read cycle or scan with changes; a poll that brings several ' +
      'counts each). ↑ twin → cloud, ↓ cloud → twin. A path that polls pays for its polls whatever changed.', '');
    L.push(table(['profile', 'Protocol', 'boxes', 'B/box ↑', 'B/box ↓', 'B/box both',
      'input changes', 'B/input change ↑', 'state updates', 'B/state update ↓'], unitRows), '');
    for (const [name, p] of Object.entries(s.profiles)) {
      const r = ratios(Object.entries(p.productions).map(([k, v]) => [k, v.bytes.bothPerBox]), 'B/box');
      if (r) L.push(`- ${name}, bytes per box sorted (both directions): leanest ${r}`);
    }
    L.push('');
    L.push(...whereLines(s, label));
  }
  for (const line of linkLines(s)) L.push(line);

  // The related study's three paths beside ours.
  const rel = STUDY.related && STUDY.related.table1;
  const relRows = [];
  for (const [name, p] of Object.entries(s.profiles)) {
    for (const proto of paths.inTable('related')) {
      const ours = p.productions[proto] && p.productions[proto].variables.overall;
      if (!ours || !ours.n) continue;
      const st = rel.rows[proto] || {};
      relRows.push([name, label(proto), ours.n, ...rel.keys.map((k) => cell(ours[k], st[k])), fmt(ours.p95), fmt(ours.p99)]);
    }
  }
  if (relRows.length) {
    L.push('## HTTP, MQTT over TCP and MQTT over WebSocket (the related study)', '');
    L.push('Our full loop per production round trip (input event → PLC output at the twin, every timed variable) beside ' +
      `${STUDY.related.title} (doi:${STUDY.related.doi}), ${rel.cite}. Theirs is one hop on a Wi-Fi LAN: an ESP32 publishing at QoS 1 ` +
      'and timing the broker\'s acknowledgement, and a Python client timing HTTP GETs to the ESP32, a new connection each; ours crosses ' +
      'cloud, edge and PLC and back, HTTP with keep-alive and a poll every 10 ms. Read the columns within each study first.', '');
    L.push(table(['profile', 'path', 'n', ...rel.columns, 'p95', 'p99'], relRows), '');
    for (const [name, p] of Object.entries(s.profiles)) {
      const r = ratios(paths.inTable('related').filter((k) => p.productions[k]).map((k) => [k, p.productions[k].variables.overall.mean]));
      if (r) L.push(`- ${name}, mean: fastest ${r} (the related study: MQTT over TCP 290.5, MQTT over WebSocket 342.0, HTTP 342.6 ms)`);
    }
    L.push('');
  }

  // The browser twin: twin-side cost.
  const brRows = [];
  const ftRows2 = [];
  for (const [name, p] of Object.entries(s.profiles)) {
    for (const [proto, b] of Object.entries(p.browser || {})) {
      const fi = b.frameInterval || {};
      const fw = b.frameWork || {};
      const rt = b.rtt || {};
      const cpu = b.cpuPct || {};
      brRows.push([name, label(proto), b.frames, fmt(fi.median), fmt(fi.p99), fmt(fw.median), fmt(fw.p99), `${b.longTasks} / ${fmt(b.longTaskMs, 0)} ms`,
        fmt(b.heapMB), fmt(b.workerHeapMB), fmt(cpu.renderer, 0), fmt(cpu.GPU, 0),
        rt.n || 0, fmt(rt.mean), fmt(rt.median), fmt(rt.p95), fmt(rt.p99), b.boxes, b.errors]);
      const st = STUDY.table2.rows[proto === 'mqttws' ? 'mqtt' : proto] || {};
      if (fi.n) ftRows2.push([name, label(proto), ...STUDY.table2.keys.map((k) => cell(fi[k], st[k]))]);
    }
  }
  if (brRows.length) {
    const any = Object.values(s.profiles).flatMap((p) => Object.values(p.browser || {}))[0];
    L.push('## The browser twin: twin-side cost', '');
    const software = any && any.software
      ? `WebGL rendered in software (SwiftShader: no GPU here), at pixel ratio ${fmt(any.pixelRatio, 2)}: ` +
        'the frame figures are this machine\'s CPU drawing 3D, not a phone\'s GPU.'
      : '';
    L.push('The browser twin (twin/browser/, served by the cloud at /s7twin/ui/) in headless Chromium, driving the plant with boxes fed ' +
      `automatically (120 a minute, fast plant profile), ${o.browserSeconds} s per protocol the page speaks after a 3 s warm-up, ` +
      'one fresh page each. Frame interval: time between two animation frames (requestAnimationFrame; the study\'s CPU frame time); ' +
      'frame work: the page\'s JavaScript in one frame (scene update and the draw call); long tasks: main-thread tasks over 50 ms ' +
      '(PerformanceObserver \'longtask\'); JS heap of the page and of its worker (CDP); CPU of Chromium\'s renderer and GPU processes, ' +
      '% of one core (CDP SystemInfo); round trips as the page\'s worker measured them (input event → PLC output). ' +
      `${software} The machine's other processes (PLC, both Node-RED, Toxiproxy) share its ${(s.machine || {}).cpus || '?'} cores.`, '');
    L.push(table(['profile', 'protocol', 'frames', 'interval median', 'interval p99', 'work median', 'work p99', 'long tasks',
      'heap MB', 'worker heap MB', 'renderer CPU %', 'GPU CPU %',
      'RTT n', 'RTT mean', 'RTT median', 'RTT p95', 'RTT p99', 'boxes', 'errors'], brRows), '');
    L.push(`Frame time beside the study's (${STUDY.table2.cite}; MQTT over WebSocket beside the study's MQTT, whose Unity client spoke MQTT over TCP):`, '');
    L.push(table(['profile', 'protocol', ...STUDY.table2.columns.map((c) => `${c} (ms)`)], ftRows2), '');
  }

  // Cycle time.
  const cyc = [];
  for (const [name, p] of Object.entries(s.profiles)) {
    for (const [proto, r] of Object.entries(p.productions)) {
      if (r.cycle) {
        const mean = cell(r.cycle.mean, STUDY.cycleTime.rows[studyKey(proto)], 2);
        cyc.push([name, label(proto), r.cycle.n, mean, fmt(r.cycle.min, 2), fmt(r.cycle.max, 2), o.boxes]);
      }
    }
  }
  if (cyc.length) {
    L.push('## Complete cycle time', '');
    L.push(`One production, first box in to last box sorted, in seconds (study: ${STUDY.cycleTime.cite}; its plant speeds and box count ` +
      'differ from our twin\'s, so compare protocols with each other first).', '');
    L.push(table(['profile', 'Protocol', 'productions', 'mean s (study min s)', 'min s', 'max s', 'boxes'], cyc), '');
  }

  // Where the time goes.
  L.push('## Where the time goes', '');
  for (const [name, p] of Object.entries(s.profiles)) {
    const fl = p.floor && p.floor.mean;
    for (const [proto, r] of Object.entries(p.probe)) {
      if (!r.stats || !r.stats.n) continue;
      const above = r.stats.mean - (fl || 0);
      const parts = [`network floor ${fmt(fl)} ms`, `${fmt(above)} ms above the network (protocol stacks, Node-RED, S7 I/O and the PLC)`];
      const within = [`the PLC scan: a write waits 0–${o.scanMs} ms for the next scan (≈ ${fmt(o.scanMs / 2)} ms on average for requests at random times)`];
      if (proto === 'stock') {
        within.push(`the polled S7 read: 0–${o.stockCycleMs} ms (node-red-contrib-s7's minimum cycle; ≈ ${fmt(o.stockCycleMs / 2)} ms on average)`);
      }
      if (proto === 'stock-mqtt') {
        within.push('no TCP_NODELAY on the stock broker\'s sockets: a small message can wait for the peer\'s delayed ACK (up to 40 ms on Linux)');
      }
      if (proto === 'stock-modbus') {
        within.push('Modbus Read nodes every 80 ms (the study\'s interval) at the edge on the cloud request and the PLC response registers, ' +
          'and the twin\'s 50 ms poll: 0–80, 0–80 and 0–50 ms (≈ 105 ms on average)');
      }
      if (proto === 'stock-opcua') {
        const ms = o.stockOpcuaSamplingMs ?? 500;
        const setting = o.stockOpcuaSamplingMs === null || o.stockOpcuaSamplingMs === undefined
          ? '; the study edited it to 50'
          : `, set to ${ms} here as the study did`;
        within.push(`the stock server samples its variables every ${ms} ms at best (minimumSamplingInterval: 500 hard-coded in ` +
          `104-opcuaserver.js${setting}): the edge's 10 ms subscription on the request is revised to ${ms} ms, 0–${ms} ms ` +
          `(≈ ${fmt(ms / 2)} ms on average); the twin polls every 50 ms (≈ 25 ms)`);
      }
      const tuning = TUNINGS[o.tuning] || TUNINGS.tuned;
      if (proto === 'modbus') {
        const ms = tuning.transport.modbus.pollMs;
        within.push('three polls in a row (edge ← cloud request registers, edge ← PLC response registers, twin ← cloud), ' +
          `each every ${ms} ms or its read time, so 0–${ms} ms each (≈ ${fmt(ms / 2)} ms on average)`);
      }
      if (proto === 'opcua') {
        const t = tuning.transport.opcua;
        within.push(t.mode === 'poll'
          ? `the twin polls the cloud server every ${t.pollMs} ms (≈ ${fmt(t.pollMs / 2)} ms on average) after the edge's subscriptions deliver`
          : `subscriptions on both sides of the edge and at the twin, each sampling and publishing every ${t.samplingIntervalMs} ms or so`);
      }
      L.push(`- ${name} ${label(proto)}: mean ${fmt(r.stats.mean)} ms = ${parts.join(' + ')}; of the latter, ${within.join('; ')}.`);
    }
  }
  for (const line of loadTimeLines(s)) L.push(line);
  L.push('');

  if (s.faults) for (const line of faultLines(s.faults)) L.push(line);
  for (const f of Object.values(s.linkFaults || {})) for (const line of faultLines(f)) L.push(line);
  if (s.fleet) for (const line of fleetLines(s.fleet)) L.push(line);

  if (plotFiles.length || (s.plotErrors || []).length) {
    L.push('## Plots', '');
    for (const e of s.plotErrors || []) L.push(`- plot not drawn: ${e}`);
    for (const f of plotFiles) L.push(`![${path.basename(f, '.svg')}](${f})`, '');
  }
  L.push('## Files', '',
    '- `samples.csv`: every timed sample (profile, section, protocol, variable, users, seq, ms); ' +
      'warm-up samples are not in it (counted in the tables).',
    '- `summary.json`: every statistic above, machine, versions and options.',
    '- `plots/*.svg`: the plots.',
    '- `logs/`: the last 200 kB of the output of each process (PLC, cloud, edge) per profile.', '');
  return `${L.join('\n')}\n`;
}

/**
 * The faults section: per fault, what the command stream got and what the PLC applied.
 * @param {{results?: object[], options?: object, error?: string}} f results.faults
 * @returns {string[]} markdown lines
 */
function faultLines(f) {
  const L = [f.link ? `## Faults, ${label(f.link)}` : '## Faults', ''];
  if (f.error) { L.push(`The fault suite did not run: ${f.error}`, ''); return L; }
  const o = f.options || {};
  const beside = f.link
    ? `with the edge↔cloud link over ${label(f.link).replace(/^.* link over /, '')} (a link fault cuts every hop it has: edge → broker and broker → cloud over a broker), alone in its system`
    : 'the MQTT, OPC UA and Modbus paths run beside it';
  L.push(`A twin sends one command every ${o.intervalMs} ms (lifetime ${o.ttlMs} ms, all ten inputs, a pattern unique to each command) ` +
    `over the WebSocket–S7 path while one fault at a time hits the system; ${beside}, ` +
    'Toxiproxy sits in both links (no latency). Every command carries an idempotency key, and one whose outcome is in doubt is sent ' +
    'again with it (docs/bridge.md): "sent again" counts those commands, "answered as a repeat" those the edge answered with the ' +
    'key\'s first outcome instead of writing again, "applied" those whose inputs reached the PLC. The columns from "applied twice" to ' +
    '"undone" come from the twin\'s answers and the virtual PLC\'s input log (one line per scan whose inputs changed), and must all ' +
    'be 0. "First non-ack answer": from the start of the fault until the twin is first told something is wrong. "Acknowledged ' +
    'again": from the end of the fault (link healed, process resumed, or the kill, whose restart is counted in) until the first ' +
    'command sent after it is acknowledged.', '');
  const codes = ['ack', 'E_OUTCOME_UNKNOWN', 'E_EDGE_DOWN', 'E_EXPIRED', 'E_PLC_DOWN'];
  const rows = (f.results || []).map((r) => {
    const other = Object.entries(r.answers).filter(([c]) => !codes.includes(c)).map(([c, n]) => `${c} ${n}`).join(', ') || '0';
    const keys = r.retried === undefined ? ['–', '–', '–', '–'] : [r.retried, r.repeats, r.applied, r.appliedTwice];
    return [r.label, r.sent, ...codes.map((c) => r.answers[c] || 0), other, ...keys, r.unanswered, r.duplicates, r.appliedLate,
      r.appliedRefused, r.notCommanded, r.wentBack, r.finalOk ? 'yes' : '**no**',
      r.detectedMs === null ? '–' : fmt(r.detectedMs / 1000), r.restartMs === null ? '–' : fmt(r.restartMs / 1000),
      r.recoveryMs === null ? '**never**' : fmt(r.recoveryMs / 1000)];
  });
  L.push(table(['fault', 'commands', 'ack', 'outcome unknown', 'edge down', 'expired', 'PLC down', 'other answers',
    'sent again (same key)', 'answered as a repeat', 'applied', 'applied twice', 'unanswered',
    'two answers', 'applied after deadline', 'applied though refused', 'inputs no command set', 'undone', 'PLC ends with the last acknowledged',
    'first non-ack answer after (s)', 'restart (s)', 'acknowledged again after (s)'], rows), '');
  const notes = (f.results || []).filter((r) => r.problems.length || r.transients);
  for (const r of notes) {
    if (r.transients) {
      L.push(`- ${r.id}: ${r.transients} scan(s) read a write request half applied (a mix of two commands' bits for one scan; ` +
        'per-item consistency, as on a real S7 PLC), not counted above.');
    }
    for (const p of r.problems.slice(0, 5)) L.push(`- ${r.id}: ${p}`);
  }
  if (notes.length) L.push('');
  return L;
}

/**
 * The fleet section: instances, plants and twins on one Redis; what the backplane adds
 * to a round trip; load with CPU and memory per process; failover under load; watch-only twins.
 * @param {object} f results.fleet (bench/lib/fleet-bench.js)
 * @returns {string[]} markdown lines
 */
function fleetLines(f) {
  const L = ['## Fleet', ''];
  const o = f.options || {};
  const ms = (v, d = 1) => (v === null || v === undefined || !Number.isFinite(v) ? '–' : fmt(v, d));
  if (!f.backplane && f.errors && f.errors.length) { L.push(`The fleet section did not run: ${f.errors.join('; ')}`, ''); return L; }
  L.push(`${f.instances} cloud instances (Node-RED, the bundle's cloud flow, WebSocket–S7 path) on one redis-server, ` +
    `${(f.plants || []).length} plants (${(f.plants || []).join(', ')}), each a virtual PLC (scan ${o.scanMs || 10} ms) with its own edge; ` +
    'plant k\'s edge dials instance k first. All on this one machine, with the load generator.', '');
  for (const e of f.errors || []) L.push(`- error: ${e}`);
  const b = f.backplane;
  if (b) {
    L.push('### What the backplane adds', '');
    L.push('One twin of plant1 probes (round trip twin → cloud → edge → PLC → back) from the instance holding plant1\'s edge (local) ' +
      `and from the other one (remote: the probe and its answer each cross Redis), ${o.backplaneBlock}-probe blocks interleaved.`, '');
    L.push(table(['twin on', 'probes', 'errors', 'p50', 'p95', 'p99', 'mean'], ['local', 'remote'].map((k) => [
      k === 'local' ? 'the edge\'s instance' : 'another instance', b[k].summary.n, b[k].errors + b[k].timeouts,
      ms(b[k].summary.median, 2), ms(b[k].summary.p95, 2), ms(b[k].summary.p99, 2), ms(b[k].summary.mean, 2)])), '');
    const target = 1;
    L.push(`Added by the backplane: **${ms(b.addedMedianMs, 2)} ms at the median** ` +
      `(target under ${target} ms: ${b.addedMedianMs < target ? 'met' : '**not met**'}), ${ms(b.addedP99Ms, 2)} ms at p99.`, '');
    if (b.redisFloor && b.redisFloor.n) {
      L.push(`Redis's own floor on this machine, a PUBLISH until a subscribed connection has it (${b.redisFloor.n} times): ` +
        `p50 ${ms(b.redisFloor.median, 2)} ms, p99 ${ms(b.redisFloor.p99, 2)} ms. The remote round trip crosses Redis twice ` +
        '(the request to the holder, its answer back), and wakes two more processes each way.', '');
    }
  }
  const costRows = (cost) => Object.entries(cost || {}).filter(([n]) => n !== 'machine').map(([n, c]) => [n, ms(c.cpuPct), ms(c.rssMeanMB), ms(c.rssPeakMB)]);
  if (f.loads && f.loads.length) {
    L.push('### Load', '');
    L.push(`Probing twins on every plant at once, twin k of a plant on instance k mod ${f.instances}; each probes, waits for the answer, ` +
      `thinks ${o.thinkMs} ms on average; ${o.loadSeconds} s per level. CPU in % of one core.`, '');
    const clouds = Object.keys(f.loads[0].cost || {}).filter((n) => /^cloud/.test(n));
    L.push(table(['twins per plant', 'twins', 'round trips', 'errors', 'p50', 'p99', 'round trips/s', ...clouds.map((n) => `${n} CPU %`),
      'Redis CPU %', 'edges CPU %', 'PLCs CPU %', 'generator CPU %', 'machine busy %'], f.loads.map((l) => {
      const t = l.total;
      const c = l.cost || {};
      const sum = (re) => Object.entries(c).filter(([n]) => re.test(n)).reduce((a, [, v]) => a + (v.cpuPct || 0), 0);
      return [l.twinsPerPlant, t.users, t.summary.n, `${ms(t.errorPct)} %`, ms(t.summary.median), ms(t.summary.p99), ms(t.throughput),
        ...clouds.map((n) => ms(c[n] && c[n].cpuPct)), ms(c.redis && c.redis.cpuPct), ms(sum(/^edge/)), ms(sum(/^plc/)),
        ms(c.load && c.load.cpuPct), ms(c.machine && c.machine.cpuPct)];
    })), '');
    const last = f.loads[f.loads.length - 1];
    L.push(`Per plant at ${last.twinsPerPlant} twins per plant:`, '');
    L.push(table(['plant', 'twins', 'round trips', 'errors', 'p50', 'p99', 'round trips/s'], last.perPlant.map((r) => [
      r.plant, r.users, r.summary.n, `${ms(r.errorPct)} %`, ms(r.summary.median), ms(r.summary.p99), ms(r.throughput)])), '');
    L.push(`Memory (MB, mean / peak) at ${last.twinsPerPlant} twins per plant:`, '');
    L.push(table(['process', 'CPU %', 'RSS mean', 'RSS peak'], costRows(last.cost)), '');
  }
  const fo = f.failover;
  if (fo) {
    L.push('### Failover', '');
    L.push(`Instance 1 killed (SIGKILL) under load (${o.twinsPerPlant[0]} probing twins per plant) while one twin per plant streams ` +
      'commands (fault-suite bookkeeping: the twin\'s answers and the PLC\'s input log). f1 drives plant1 from instance 2 ' +
      '(plant1\'s edge was on instance 1: the edge moves); f2 drives plant2 from instance 1 (the twin moves).', '');
    L.push(table(['twin', 'commands', 'answers', 'unanswered', 'two answers', 'applied after deadline', 'applied though refused', 'undone',
      'PLC ends with the last acknowledged', 'first non-ack answer (ms)', 'acknowledged again after (ms)'],
      fo.twins.map((r) => [r.id, r.sent, Object.entries(r.answers).map(([c, n]) => `${c} ${n}`).join(', '), r.unanswered, r.duplicates,
        r.appliedLate, r.appliedRefused, r.wentBack, r.finalOk ? 'yes' : '**no**', ms(r.detectedMs),
        r.recoveryMs === null ? '**never**' : ms(r.recoveryMs)])), '');
    const total = fo.load.total;
    L.push(`Failover time (the slowest twin acknowledged again): **${Number.isFinite(fo.recoveryMs) ? `${ms(fo.recoveryMs)} ms` : 'never'}**. ` +
      `The load twins over the same window: ${total.summary.n} round trips, ${total.errors} lost with the killed instance ` +
      `(${ms(total.errorPct)} %), p50 ${ms(total.summary.median)} ms, p99 ${ms(total.summary.p99)} ms.`, '');
  }
  const w = f.watchers;
  if (w && w.levels && w.levels.length) {
    L.push('### Watch-only twins', '');
    L.push(`Viewers of ${w.plant} (viewer token: they may only watch), spread over the instances, while a twin changes an input every ` +
      `${o.stateEveryMs} ms (${fmt(1000 / o.stateEveryMs)} states/s); delay from the edge sending a state to each viewer receiving it ` +
      `(one machine, one clock). A level holds when its p99 is under ${w.targetP99Ms} ms and every viewer got its states; the climb ` +
      'stops at a level far off (p99 over five times that, or viewers missing half the states).', '');
    L.push(table(['viewers', 'connected', 'states received', 'states/s each', 'p50', 'p99', 'max', 'holds',
      'CPU % (clouds)', 'CPU % (Redis)', 'CPU % (generator)', 'machine busy %'], w.levels.map((r) => {
      const c = r.cost || {};
      const clouds = Object.entries(c).filter(([n]) => /^cloud/.test(n)).map(([, v]) => ms(v.cpuPct)).join(' + ');
      const holds = r.held === undefined ? '–' : (r.held ? 'yes' : '**no**');
      return [r.watchers, r.connected, r.frames, ms(r.framesPerWatcherPerS), ms(r.summary.median), ms(r.summary.p99), ms(r.summary.max),
        holds, clouds || '–', ms(c.redis && c.redis.cpuPct), ms(c.load && c.load.cpuPct), ms(c.machine && c.machine.cpuPct)];
    })), '');
    for (const r of w.levels) if (r.error) L.push(`- ${r.watchers} viewers: ${r.error}`);
    if (w.levels.some((r) => r.error)) L.push('');
    const largest = w.reached && w.reached === w.levels[w.levels.length - 1].watchers ? ' (the largest level tried)' : '';
    L.push(`One plant's state stream reaches **${w.reached} watching twins** with p99 under ${w.targetP99Ms} ms${largest}.`, '');
  }
  return L;
}

/**
 * Write the results folder.
 * @param {object} results raw results (see bench/run.js)
 * @param {string} outDir
 * @returns {Promise<{dir:string, files:string[], plots:string[], summary:object}>}
 */
async function writeReport(results, outDir) {
  fs.mkdirSync(path.join(outDir, 'plots'), { recursive: true });
  const s = summarize(results);
  const files = [];
  const write = (name, text) => { fs.writeFileSync(path.join(outDir, name), text); files.push(name); };
  write('samples.csv', samplesCsv(results));
  if (results.logs) {
    fs.mkdirSync(path.join(outDir, 'logs'), { recursive: true });
    for (const [name, text] of Object.entries(results.logs)) write(path.join('logs', name), text);
  }

  const plotFiles = [];
  const box = [];
  for (const [name, pr] of Object.entries(results.profiles)) {
    if (pr.floor) for (const ms of plots.thin(pr.floor.samples)) box.push({ profile: name, protocol: 'floor', ms });
    for (const [proto, r] of Object.entries(pr.probe || {})) {
      if (r.samples) for (const ms of plots.thin(r.samples)) box.push({ profile: name, protocol: `${proto} probe`, ms });
    }
    for (const [proto, r] of Object.entries(pr.productions || {})) for (const ms of plots.thin(r.all)) box.push({ profile: name, protocol: proto, ms });
  }
  const users = [];
  for (const [name, p] of Object.entries(s.profiles)) {
    for (const [proto, levels] of Object.entries(p.load)) {
      for (const [u, r] of Object.entries(levels)) {
        if (!r.summary || !r.summary.n) continue;
        users.push({ profile: name, protocol: proto, users: Number(u), stat: 'mean', ms: r.summary.mean });
        users.push({ profile: name, protocol: proto, users: Number(u), stat: 'p99', ms: r.summary.p99 });
      }
    }
  }
  const bytes = [];
  for (const [name, p] of Object.entries(s.profiles)) {
    for (const [proto, r] of Object.entries(p.productions)) {
      if (r.bytes.inPerSec !== null) {
        bytes.push({ profile: name, protocol: proto, direction: 'twin → cloud', bytesPerSec: r.bytes.outPerSec });
        bytes.push({ profile: name, protocol: proto, direction: 'cloud → twin', bytesPerSec: r.bytes.inPerSec });
      }
    }
    for (const [proto, levels] of Object.entries(p.load)) {
      // Probe-only paths (the stock replica) have no production: their bytes come from the load runs.
      if (p.productions[proto]) continue;
      const r = levels[Math.max(...Object.keys(levels).map(Number))];
      if (r && r.bytes && r.durationMs > 0) {
        bytes.push({ profile: name, protocol: `${proto} (probes)`, direction: 'twin → cloud', bytesPerSec: (1000 * r.bytes.out) / r.durationMs });
        bytes.push({ profile: name, protocol: `${proto} (probes)`, direction: 'cloud → twin', bytesPerSec: (1000 * r.bytes.in) / r.durationMs });
      }
    }
  }
  const specs = [
    ['plots/round-trips.svg', box.length && plots.boxPlotSpec(box, 'Round trip per protocol and profile (ms)')],
    ['plots/users.svg', users.length && plots.usersSpec(users)],
    ['plots/bytes.svg', bytes.length && plots.bytesSpec(bytes)],
  ];
  // A plot that cannot be drawn must not cost the run its numbers: the error goes in the report.
  s.plotErrors = [];
  for (const [file, spec] of specs) {
    if (!spec) continue;
    try {
      fs.writeFileSync(path.join(outDir, file), await plots.renderSvg(spec));
      plotFiles.push(file);
      files.push(file);
    } catch (err) {
      s.plotErrors.push(`${file}: ${err.code || ''} ${err.message}`);
    }
  }
  s.plots = plotFiles;
  write('summary.json', `${JSON.stringify(s, null, 1)}\n`);
  write('report.md', markdown(s, plotFiles));
  return { dir: outDir, files, plots: plotFiles, summary: s };
}

module.exports = { writeReport, summarize, samplesCsv, markdown, loadTimeLines, faultLines, stockLines, fleetLines, table, fmt, TARGETS };
