'use strict';
/**
 * The high-frequency stream benchmark's results folder: report.md (every table, the study's
 * figures beside ours with their tables cited, its guideline rerun with our numbers), summary.json
 * (everything measured), cells.csv (one row per measured cell) and plots/*.svg
 * (bench/lib/plots.js renders them).
 */
const fs = require('node:fs');
const path = require('node:path');
const plots = require('../lib/plots');
const { table, fmt } = require('../lib/report');
const STUDY = require('../study-figures.json').stream;
const { TRANSPORTS } = require('./system');
const { rerun } = require('./guideline');
const { ceilingRule, ceilingOf } = require('./run');

/** Where a profile stands in the study's two scenarios. */
const LOCATION = { local: 'edge', wan: 'cloud' };
const LOCATION_LABEL = { edge: 'edge/fog (our loopback)', cloud: 'cloud (our WAN profile)' };
const TRANSPORT_OF_STUDY = { AMQP: 'amqp', KAFKA: 'kafka', MQTT: 'mosquitto', ZEROMQ: 'zmq' };
const STUDY_OF = Object.fromEntries(Object.entries(TRANSPORT_OF_STUDY).map(([k, v]) => [v, k]));

const label = (t) => (TRANSPORTS[t] ? TRANSPORTS[t].label : t);
const pct = (v) => fmt(v, 1);
const mb = (bytesPerS) => (bytesPerS === null || bytesPerS === undefined ? null : bytesPerS / 1e6);

/** One measured cell as a flat row (cells.csv, the tables). */
function flat(profile, transport, source, c) {
  const r = c.cloud || {};
  const cost = c.cost || {};
  const lat = r.latency || {};
  const ps = r.perSample || {};
  const rx = r.receiver || {};
  const lost = (rx.lost || 0) + (c.tailLost || 0);
  return {
    profile, transport, source,
    cell: source === 'plc' ? `${c.rateHz} Hz` : `${c.kb}x${c.rate}`,
    mbps: source === 'plc' ? null : c.mbps, kb: source === 'plc' ? null : c.kb, rate: source === 'plc' ? null : c.rate,
    hz: source === 'plc' ? c.rateHz : c.hz,
    frames: r.frames, framesPerS: r.windowMs ? (1000 * r.frames) / r.windowMs : null, samplesPerS: r.samplesPerS,
    mbpsAchieved: r.samplesPerS ? (4 * r.samplesPerS) / 1e6 : null,
    wireMbps: r.endpoint && r.windowMs ? mb((1000 * r.endpoint.bytesIn) / r.windowMs) : null,
    latency: lat.mean ?? null, latencySd: lat.sd ?? null, latencyP99: lat.p99 ?? null, jitter: r.jitter ?? null, jitterSd: r.jitterSd ?? null,
    perSample: ps.mean ?? null, perSampleP99: ps.p99 ?? null, plcPart: r.plcPart ? r.plcPart.mean : null,
    lost, outOfOrder: rx.outOfOrder || 0, wrong: rx.wrong || 0, dropped: c.edge && c.edge.dialer ? c.edge.dropped || 0 : 0,
    cpuBroker: cost.broker ? cost.broker.cpuPct : null, cpuCloud: cost.cloud ? cost.cloud.cpuPct : null,
    cpuEdge: cost.edge ? cost.edge.cpuPct : null, cpuPlc: cost.plc ? cost.plc.cpuPct : null, cpuProxy: cost.toxiproxy ? cost.toxiproxy.cpuPct : null,
    cpuMachine: cost.machine ? cost.machine.cpuPct : null,
    rssBroker: cost.broker ? cost.broker.rssPeakMB : null, rssCloud: cost.cloud ? cost.cloud.rssPeakMB : null, rssEdge: cost.edge ? cost.edge.rssPeakMB : null,
    error: c.error || null,
  };
}

/** Every measured cell, flat. */
function rowsOf(s) {
  const out = [];
  for (const [profile, byT] of Object.entries(s.profiles || {})) {
    for (const [transport, r] of Object.entries(byT)) {
      for (const c of r.plc || []) out.push(flat(profile, transport, 'plc', c));
      for (const c of r.grid || []) out.push(flat(profile, transport, 'grid', c));
    }
  }
  return out;
}

const CSV_COLUMNS = ['profile', 'transport', 'source', 'cell', 'mbps', 'kb', 'rate', 'hz', 'frames', 'framesPerS', 'samplesPerS', 'mbpsAchieved', 'wireMbps',
  'latency', 'latencySd', 'latencyP99', 'jitter', 'jitterSd', 'perSample', 'perSampleP99', 'plcPart', 'lost', 'outOfOrder', 'wrong', 'dropped',
  'cpuBroker', 'cpuCloud', 'cpuEdge', 'cpuPlc', 'cpuProxy', 'cpuMachine', 'rssBroker', 'rssCloud', 'rssEdge', 'error'];

function csv(rows) {
  const v = (x) => (x === null || x === undefined ? '' : typeof x === 'number' ? String(Math.round(x * 1000) / 1000) : `"${String(x).replace(/"/g, '""')}"`);
  return `${CSV_COLUMNS.join(',')}\n${rows.map((r) => CSV_COLUMNS.map((k) => v(r[k])).join(',')).join('\n')}\n`;
}

function ceilingLines(s) {
  const c = s.ceiling;
  if (!c || !c.length) return ['Not measured in this run.'];
  const rule = ceilingRule(c); // every rate up to it read whole: the run's rule for its 'ceiling' PLC stream too
  const kbs = (hz) => fmt((4 * hz) / 1000, 0);
  const lines = [
    'The virtual PLC samples its signal at each rate into its ring (a 64 KB data block), the edge reads the ring over S7 with nothing else to do ' +
    '(no link): samples read a second, samples lost (overwritten in the ring before they were read), the S7 read requests it took and the bytes read. ' +
    `${Math.round(c[0].elapsedMs / 1000)} s a rate, on loopback.`,
    '',
    table(['signal (Hz)', 'ring (blocks × samples)', 'read (samples/s)', 'lost', 'S7 requests/s', 'KB/s read', 'edge CPU %', 'PLC CPU %'], c.map((x) => [
      x.rateHz, `${x.layout.blocks} × ${x.layout.blockSamples}`, fmt(x.samplesPerS, 0), x.lost || 0, fmt((1000 * (x.pdus || 0)) / x.elapsedMs, 0),
      fmt((x.bytes || 0) / x.elapsedMs, 0), pct(x.cost.edge && x.cost.edge.cpuPct), pct(x.cost.plc && x.cost.plc.cpuPct),
    ])),
    '',
  ];
  if (!rule) return [...lines, 'Not even the lowest rate was read whole.'];
  const { rateHz: upTo, short, wholeAbove: alsoWhole } = rule;
  const lostPct = (x) => fmt((100 * (x.lost || 0)) / ((x.rateHz * x.elapsedMs) / 1000), 1);
  lines.push(`**The S7 ceiling here: every rate up to ${upTo.toLocaleString('en')} Hz was read whole** (${kbs(upTo)} KB/s of DINT samples)` +
    (short.length ? `; samples were lost at ${short.map((x) => `${x.rateHz.toLocaleString('en')} Hz (${lostPct(x)} %)`).join(', ')}` : '') +
    (alsoWhole.length ? `, while ${alsoWhole.map((x) => x.rateHz.toLocaleString('en')).join(' and ')} Hz read whole in this run` : '') + '. ' +
    'Past that the edge cannot read the ring as fast as the PLC fills it (the ring holds 32 ms of the signal at 500 kHz), and what it reads levels off. ' +
    `${4 * upTo >= 1e6 ? `That is the study's 1 MB/s on loopback; its 8 MB/s is ${fmt(8e6 / (4 * upTo), 1)} times it`
      : `The study's lowest rate, 1 MB/s, is ${fmt(1e6 / (4 * upTo), 1)} times that`}: the study's grid comes from the edge's generator.`);
  return lines;
}

/**
 * The PLC-sourced stream's table.
 * @param {object[]} rows every cell, flat
 * @param {number|null} [ceilingHz] the S7 ceiling of the run (ceilingOf), when it was measured
 */
function plcLines(rows, ceilingHz = null) {
  const plc = rows.filter((r) => r.source === 'plc');
  if (!plc.length) return ['Not measured in this run.'];
  const above = [...new Set(plc.filter((r) => ceilingHz && r.hz > ceilingHz).map((r) => r.hz))];
  return [
    'The virtual PLC samples at the rate named into its ring; the edge reads it over S7 every 10 ms (after its read of the plant\'s I/O, on the same ' +
    'connection) and sends each poll\'s new samples as one `samples` frame over the link. Per sample: receipt at the cloud minus the PLC\'s time of the ' +
    'sample (one host clock), mean and p99; "PLC + S7" is the part before the frame left the edge, for the oldest sample of each frame (its wait for the ' +
    'block to fill, the scan, the edge\'s poll). Link latency and jitter are per frame (the study\'s definitions). CPU % of one core over the window.',
    '',
    table(['profile', 'link', 'signal (Hz)', 'frames/s', 'samples/s', 'per sample: mean (p99)', 'PLC + S7 (oldest)', 'link: latency (SD)', 'jitter (SD)',
      'lost', 'out of order', 'wrong', 'CPU % broker / cloud / edge / PLC'], plc.map((r) => [
      r.profile, label(r.transport), r.hz, fmt(r.framesPerS, 0),
      fmt(r.samplesPerS, 0), `${fmt(r.perSample)} (${fmt(r.perSampleP99)})`, fmt(r.plcPart), `${fmt(r.latency, 2)} (${fmt(r.latencySd, 2)})`,
      `${fmt(r.jitter, 2)} (${fmt(r.jitterSd, 2)})`, ...(r.error ? [`failed: ${r.error}`, '–', '–'] : [r.lost, r.outOfOrder, r.wrong]),
      [r.cpuBroker, r.cpuCloud, r.cpuEdge, r.cpuPlc].map(pct).join(' / '),
    ])),
    ...(above.length ? ['', `${above.map((hz) => hz.toLocaleString('en')).join(' and ')} Hz ${above.length > 1 ? 'are' : 'is'} above the S7 ceiling ` +
      `(${ceilingHz.toLocaleString('en')} Hz, above): with no link at all the edge did not read every rate up to ${above.length > 1 ? 'them' : 'it'} ` +
      'whole, so what is lost there cannot be put down to the link.'] : []),
  ];
}

/** Our grid rows of one profile and throughput, normalized as the study's tables are (each metric by its worst). */
function normalized(rows) {
  const keys = ['latency', 'latencySd', 'jitter', 'jitterSd'];
  const worst = Object.fromEntries(keys.map((k) => [k, Math.max(...rows.map((r) => r[k]).filter(Number.isFinite))]));
  return rows.map((r) => ({ ...r, norm: Object.fromEntries(keys.map((k) => [k, Number.isFinite(r[k]) && worst[k] > 0 ? r[k] / worst[k] : null])) }));
}

function gridLines(rows, s) {
  const grid = rows.filter((r) => r.source === 'grid');
  if (!grid.length) return ['Not measured in this run.'];
  const out = [];
  const scale = s.options.scale;
  if (scale !== 1) {
    out.push(`**Scaled:** every stream ${fmt(scale * 100, 0)} % of the study's size (\`--scale ${scale}\`): this machine did not hold the study's sizes.`, '');
  }
  for (const profile of [...new Set(grid.map((r) => r.profile))]) {
    for (const mbps of [...new Set(grid.map((r) => r.mbps))]) {
      const here = normalized(grid.filter((r) => r.profile === profile && r.mbps === mbps));
      if (!here.length) continue;
      out.push(`### ${mbps} MB/s, ${profile} (${LOCATION_LABEL[LOCATION[profile]] || profile})`, '');
      out.push(table(['link', 'stream (KB × /s)', 'MB/s of samples', 'on the wire', 'latency (ms)', 'latency SD', 'jitter', 'jitter SD', 'p99', 'lost',
        'normalized: latency / SD / jitter / jitter SD', 'CPU % broker / cloud / edge'], here.map((r) => [
        label(r.transport), r.cell.replace('x', ' × '), fmt(r.mbpsAchieved, 2), fmt(r.wireMbps, 2), fmt(r.latency, 2), fmt(r.latencySd, 2), fmt(r.jitter, 2),
        fmt(r.jitterSd, 2), fmt(r.latencyP99, 1), r.error ? `failed: ${r.error}` : r.lost,
        ['latency', 'latencySd', 'jitter', 'jitterSd'].map((k) => fmt(r.norm[k], 3)).join(' / '),
        [r.cpuBroker, r.cpuCloud, r.cpuEdge].map(pct).join(' / '),
      ])));
      out.push('');
    }
  }
  return out;
}

/** Our WAN cells beside the study's cloud Tables 15 and 17. */
function besideLines(rows) {
  const out = [];
  for (const [mbps, t] of Object.entries(STUDY.cloud)) {
    const ours = rows.filter((r) => r.source === 'grid' && r.profile === 'wan' && r.mbps === Number(mbps));
    if (!ours.length) continue;
    out.push(`### ${mbps} MB/s: our WAN profile beside the study's cloud (${t.cite})`, '');
    out.push('Cells read **ours (study)** in ms: latency / latency SD / jitter / jitter SD of each stream size × rate. '
      + 'The study\'s MQTT ran on Mosquitto.', '');
    const cells = Object.keys(Object.values(t.rows)[0]);
    const head = ['link', ...cells.map((c) => c.replace('_', ' KB × ').concat('/s'))];
    const line = (transport, studyRow) => [label(transport), ...cells.map((c) => {
      const [kb, rate] = c.split('_').map(Number);
      const r = ours.find((x) => x.transport === transport && x.kb === kb && x.rate === rate);
      const st = studyRow ? studyRow[c] : null;
      const pair = (k, sk) => (st ? `${fmt(r ? r[k] : null, 1)} (${fmt(st[sk], 1)})` : fmt(r ? r[k] : null, 1));
      return [pair('latency', 'latency'), pair('latencySd', 'latencySd'), pair('jitter', 'jitter'), pair('jitterSd', 'jitterSd')].join(' / ');
    })];
    const transports = [...new Set(ours.map((r) => r.transport))];
    out.push(table(head, transports.map((tr) => line(tr, STUDY_OF[tr] ? t.rows[STUDY_OF[tr]] : null))), '');
  }
  if (!out.length) return ['No WAN grid cells at 1 or 4 MB/s in this run.'];
  out.push(`Edge/fog and 8 MB/s: ${STUDY.illegible} The study's findings there, in its words:`, '');
  for (const [k, v] of Object.entries(STUDY.prose)) out.push(`- *${k}*: ${v}`);
  return out;
}

function costLines(rows) {
  const at = rows.filter((r) => r.source === 'grid' && r.kb === 100 && r.rate === 10);
  if (!at.length) return ['No 100 KB × 10/s cells in this run.'];
  return [
    `At the study's cost point (100 KB × 10/s, its Tables 3-7), CPU % of one core over the window and peak resident memory (MB). ${STUDY.table3.cite}: ` +
    `broker ${Object.entries(STUDY.table3.broker).map(([k, v]) => `${k} ${v} MB`).join(', ')}; its consumer ("AI service") ` +
    `${Object.entries(STUDY.table3.service).map(([k, v]) => `${k} ${v} MB`).join(', ')}.`,
    '',
    table(['profile', 'link', 'broker CPU %', 'broker MB', 'cloud CPU %', 'cloud MB', 'edge CPU %', 'edge MB', 'Toxiproxy CPU %', 'study: broker MB idle'],
      at.map((r) => [
        r.profile, label(r.transport), pct(r.cpuBroker), fmt(r.rssBroker, 0), pct(r.cpuCloud), fmt(r.rssCloud, 0), pct(r.cpuEdge), fmt(r.rssEdge, 0),
        pct(r.cpuProxy),
        STUDY_OF[r.transport] && STUDY.table3.broker[STUDY_OF[r.transport]] !== undefined ? STUDY.table3.broker[STUDY_OF[r.transport]] : '–',
      ])),
  ];
}

function guidelineLines(rows) {
  const cells = rows.filter((r) => r.source === 'grid' && !r.error);
  const ours = rerun(cells.map((r) => ({ ...r })), { location: LOCATION });
  if (!ours.length) return ['No grid cells to rerun it with.'];
  const studyPick = (g) => {
    const x = STUDY.table8.rows.find((s) => s.mbps === g.mbps && s.location === g.location && s.objective === g.objective && s.regime === g.regime);
    return x ? x.pick.map((p) => label(TRANSPORT_OF_STUDY[p])).join(', ') : '–';
  };
  return [
    `${STUDY.table8.cite}, rerun with our numbers: per throughput, location and objective, the link with the lowest mean latency (or mean jitter) ` +
    'for the throughput\'s small streams sent often (40 a second) and its large ones sent rarely (10 a second); links within 10 % of the best are named too, ' +
    'as the study names several; a link that lost samples is ranked after every one that lost none. "Edge/fog" is our loopback, "cloud" our WAN profile.',
    '',
    table(['MB/s', 'location', 'objective', 'streams', 'study picks', 'our pick', 'best (ms)', 'all, best first (ms)'], ours.map((g) => [
      g.mbps, LOCATION_LABEL[g.location], g.objective, `${g.kb} KB × ${g.rate}/s`, studyPick(g), g.best.map(label).join(', '), fmt(g.value, 2),
      g.ranked.map((x) => `${label(x.transport)} ${fmt(x.value, 2)}`).join('; '),
    ])),
  ];
}

function settingsLines(s) {
  const o = s.options;
  const m = s.machine;
  return table(['item', 'value'], [
    ['CPU', `${m.cpus} × ${m.cpuModel}`], ['memory', `${fmt(m.memGB, 1)} GB`], ['OS', m.os],
    ['load average at start / end', `${s.loadavg.start.map((x) => x.toFixed(2)).join(' ')} / ${s.loadavg.end.map((x) => x.toFixed(2)).join(' ')}`],
    ...Object.entries(s.versions).map(([k, v]) => [k, v]),
    ['brokers', [...new Set(Object.values(s.profiles).flatMap((p) => Object.values(p).map((r) => r.brokerVersion).filter(Boolean)))].join(', ') || '–'],
    ['transports', o.transports.map(label).join(', ')],
    ['profiles', o.profiles.map((p) => {
      const links = s.profileDefs[p] && s.profileDefs[p].links;
      return `${p} (${links ? `${JSON.stringify(links['cloud-edge'])} ms on the plant's hop` : 'loopback'})`;
    }).join(', ')],
    ['window per cell', `${o.seconds} s after ${o.warmupS} s of warm-up (the study: 30 s, 45 times)`],
    ['PLC scan, signal rates', `${o.scanMs} ms; ${o.plcRates.join(', ')} Hz`], ['grid cells', o.grid.join(', ')], ['stream size scale', String(o.scale)],
  ]);
}

function errorLines(s) {
  const out = [];
  for (const [profile, byT] of Object.entries(s.profiles || {})) {
    for (const [t, r] of Object.entries(byT)) for (const e of r.errors || []) out.push(`- ${profile} ${label(t)}: ${e}`);
  }
  return out;
}

function markdown(s, rows, plotFiles) {
  const errs = errorLines(s);
  return [
    '# High-frequency streams over every link transport',
    '',
    `Run ${s.started} → ${s.ended}.`,
    `Command: \`${s.command}\``,
    '',
    `The study rerun: ${STUDY.title} (${STUDY.where}; figures in \`bench/study-figures.json\` \`stream\`, each with its table cited). ` +
    'The edge sends `samples` frames (a block of DINT samples, base64 in the envelope\'s JSON, the same bytes on every transport) over the link; ' +
    'the cloud stamps each on receipt. Edge, cloud, broker and PLC are processes of one host: one clock, no offset in any figure. The edge and the cloud ' +
    'are the project\'s dialer and edge endpoint in processes of their own (bench/stream/edge.js, cloud.js), set up from the same S7T_* settings as the ' +
    'Node-RED nodes, not inside Node-RED. The study\'s latency was a round trip less both ends\' processing, ours one way: compare how the links rank ' +
    'and scale within each study first, then the absolute figures.',
    '',
    ...(errs.length ? ['## Errors', '', ...errs, ''] : []),
    '## Machine, versions, settings', '', settingsLines(s), '',
    '## What S7 carries: the ceiling of a PLC-sourced stream', '', ...ceilingLines(s), '',
    '## The PLC-sourced stream over each link', '', ...plcLines(rows, ceilingOf(s.ceiling)), '',
    `## The study's grid (its ${STUDY.table2.cite.split(',')[0]}) from the edge's generator`, '',
    'Streams of the size named, sent the number of times a second named by the study\'s Algorithm 1 (the sleep\'s own overshoot counted into its carry, ' +
    'so the rate holds). Latency: receipt at the cloud minus the frame\'s sending at the edge; jitter: mean |l(i+1) − l(i)| (the study\'s equation 2); ' +
    'normalized by the worst of each column within the table, as the study\'s normalized tables. "On the wire": the frames\' bytes as the cloud\'s endpoint ' +
    'counted them (base64 in JSON and the link\'s headers: a third more than the samples).',
    '', ...gridLines(rows, s),
    '## Beside the study', '', ...besideLines(rows), '',
    '## What each end costs', '', ...costLines(rows), '',
    '## The guideline rerun with our numbers', '', ...guidelineLines(rows), '',
    ...(plotFiles.length ? ['## Plots', '', ...plotFiles.map((f) => `![${path.basename(f, '.svg')}](${f})\n`)] : []),
    ...(s.plotErrors && s.plotErrors.length ? ['Plots that could not be drawn:', '', ...s.plotErrors.map((e) => `- ${e}`), ''] : []),
    '## Files', '',
    '- `summary.json`: everything measured, per cell (the edge\'s and the cloud\'s counters, the cost of each process), machine, versions, options.',
    '- `cells.csv`: one row per measured cell.',
    '- `plots/*.svg`: the plots.',
    '',
  ].join('\n');
}

/** The plots: latency and jitter per grid cell (log scale, as the study's figures), per-sample latency of the PLC stream. */
function plotSpecs(rows) {
  const grid = rows.filter((r) => r.source === 'grid' && Number.isFinite(r.latency));
  const bars = (metric, title) => ({
    title,
    data: { values: grid.map((r) => ({ profile: r.profile, link: label(r.transport), stream: `${r.mbps} MB/s ${r.cell}`, value: r[metric] })) },
    width: 420,
    height: 260,
    mark: 'bar',
    encoding: {
      y: { field: 'stream', type: 'nominal', title: null, sort: null },
      // A bar on a log scale needs a base above 0: 0.01 ms, below every mean measured.
      x: { field: 'value', type: 'quantitative', scale: { type: 'log', domainMin: 0.01 }, title: `${metric} (ms, log scale)` },
      x2: { datum: 0.01 },
      color: { field: 'link', type: 'nominal', legend: { labelLimit: 220 } },
      yOffset: { field: 'link', type: 'nominal' },
      column: { field: 'profile', type: 'nominal', title: 'network profile' },
    },
  });
  const plc = rows.filter((r) => r.source === 'plc' && Number.isFinite(r.perSample));
  return [
    ['plots/grid-latency.svg', grid.length && bars('latency', 'Mean latency per stream, the study\'s grid')],
    ['plots/grid-jitter.svg', grid.length && bars('jitter', 'Mean jitter, the study\'s grid')],
    ['plots/plc-latency.svg', plc.length && {
      title: 'PLC-sourced stream: mean latency per sample, PLC → cloud',
      data: { values: plc.map((r) => ({ profile: r.profile, link: label(r.transport), signal: `${r.hz} Hz`, ms: r.perSample })) },
      width: 300, height: 220, mark: 'bar',
      encoding: {
        x: { field: 'signal', type: 'nominal', title: null }, xOffset: { field: 'link', type: 'nominal' },
        y: { field: 'ms', type: 'quantitative', title: 'ms' }, color: { field: 'link', type: 'nominal', legend: { labelLimit: 220 } },
        column: { field: 'profile', type: 'nominal', title: 'network profile' },
      },
    }],
  ];
}

/**
 * Write the folder.
 * @param {object} s bench/stream.js's summary
 * @param {string} dir
 * @returns {Promise<{dir: string, files: string[]}>}
 */
async function writeStreamReport(s, dir) {
  fs.mkdirSync(path.join(dir, 'plots'), { recursive: true });
  const rows = rowsOf(s);
  const plotFiles = [];
  s.plotErrors = [];
  for (const [file, spec] of plotSpecs(rows)) {
    if (!spec) continue;
    try {
      fs.writeFileSync(path.join(dir, file), await plots.renderSvg(spec));
      plotFiles.push(file);
    } catch (err) {
      s.plotErrors.push(`${file}: ${err.code || ''} ${err.message}`);
    }
  }
  fs.writeFileSync(path.join(dir, 'summary.json'), `${JSON.stringify(s, null, 1)}\n`);
  fs.writeFileSync(path.join(dir, 'cells.csv'), csv(rows));
  fs.writeFileSync(path.join(dir, 'report.md'), markdown(s, rows, plotFiles));
  return { dir, files: ['report.md', 'summary.json', 'cells.csv', ...plotFiles] };
}

module.exports = { writeStreamReport, rowsOf, flat, normalized, csv, markdown, ceilingLines, plcLines, LOCATION };
