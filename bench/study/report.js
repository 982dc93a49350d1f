'use strict';
/**
 * The protocol study's report: pure functions from the run's results (bench/study.js) to
 * markdown tables, each beside the figures of the study it reruns (paper-figures.json). Cells
 * read **ours (study)**; a dash is a figure the study does not have or a run that did not give one.
 */
const { summarise } = require('../../nodes/lib/core/stats');
const { STACKS } = require('./stacks');
const PAPER = require('./paper-figures.json');

/**
 * The study's row for one of our stacks: both DDS stacks beside its Fast RTPS, both MQTT brokers
 * beside its MQTT (Paho C clients; the study does not name its broker).
 */
const PAPER_KEY = { tcp: 'tcp', udp: 'udp', mqtt: 'mqtt', mosquitto: 'mqtt', opcua: 'opcua', ros: 'ros', dds: 'dds', fastdds: 'dds' };
const LOAD_LABEL = { idle: 'idle', cpu: 'every core busy', net: 'network loaded' };

const fmt = (v, d = 0) => (v === null || v === undefined || !Number.isFinite(v)
  ? '–'
  : v.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }));
const cell = (ours, study, d = 0) => `${fmt(ours, d)}${study === undefined || study === null ? '' : ` (${fmt(study, d)})`}`;
/** A difference with its sign: +12, -3 (a load can leave a mean below idle: a busy core wakes faster, and idle can carry a neighbour's spike). */
const signed = (v) => (Number.isFinite(v) && v < 0 ? `-${fmt(-v)}` : `+${fmt(v)}`);
const label = (id) => (STACKS[id] ? STACKS[id].label : id);

function table(head, rows) {
  return [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/** Cells of one task, keyed `${stack}/${load}`; failed ones keep their error. */
function byKey(cells, task) {
  const out = {};
  for (const c of cells) if (c.task === task) out[`${c.stack}/${c.load}`] = c;
  return out;
}

/**
 * Statistics of every round-trip cell: per stack, load and size, summarise() of the samples (µs).
 * @param {Array<{stack:string, task:string, load:string, result?:object, error?:object}>} cells
 * @returns {Object<string, Object<string, Object<number, object>>>} stack → load → size → stats (+ lost)
 */
function rttStats(cells) {
  const out = {};
  for (const c of cells) {
    if (c.task !== 'rtt' || !c.result) continue;
    const per = ((out[c.stack] = out[c.stack] || {})[c.load] = {});
    for (const [size, v] of Object.entries(c.result.bySize)) per[size] = { ...summarise(v.rttUs), lost: v.lost };
  }
  return out;
}

/** The wire overhead section: Table II beside ours. */
function bytesSection(cells) {
  const bytes = byKey(cells, 'bytes');
  const stacks = [...new Set(cells.filter((c) => c.task === 'bytes').map((c) => c.stack))];
  const payloads = PAPER.table2.payloads;
  const rows = [];
  const errors = [];
  for (const id of stacks) {
    const c = bytes[`${id}/idle`] || Object.values(bytes).find((x) => x.stack === id);
    if (!c || !c.result) { errors.push(`- ${label(id)}: ${c && c.error ? `${c.error.code}: ${c.error.message}` : 'not run'}`); continue; }
    const p = PAPER.table2.rows[PAPER_KEY[id]];
    const r = c.result;
    rows.push([
      label(id),
      ...payloads.map((size, i) => {
        const ours = r.bySize[size] ? r.bySize[size].bytesPerMessage : null;
        return cell(ours, p ? p.sizes[i] : null, ours % 1 ? 1 : 0);
      }),
      cell(r.bySize[0] ? r.bySize[0].packetsPerMessage : null, null, 2),
      cell(r.setup.payload, p ? p.connection : null),
      fmt(r.setup.packets),
      counterCheck(r),
    ]);
  }
  const hops = stacks.filter((id) => STACKS[id] && STACKS[id].hops > 1).map(label);
  const dropped = cells.filter((c) => c.task === 'bytes' && c.result && c.result.dropped > 0)
    .map((c) => `- ${label(c.stack)}${c.load === 'idle' ? '' : `, ${LOAD_LABEL[c.load] || c.load}`}: tcpdump dropped ${fmt(c.result.dropped)} ` +
      'packets: its figures are low by what they carried.');
  return [
    '## Bytes on the wire (the study\'s Table II)',
    '',
    'Transport payload (TCP segment data, UDP data) per message, one way, as the study\'s Table II counts it, for payloads of 0, 100, 1,000 and 10,000 ' +
      'bytes; counted by tcpdump on the loopback of the measurement\'s own network namespace and read back with tshark. Each message\'s share includes ' +
        'what the protocol sends because of it (acknowledgements, heartbeats) while the client sends that size. **Set-up** is everything else in the ' +
          'same capture, both directions and every process (for ROS the master\'s XML-RPC, for MQTT the broker\'s two connections): starting the echo, ' +
            'the client connecting, one 8-byte request and its answer that prove the pair connected, and closing both. The study counted one side\'s ' +
              'bytes (Section IV), so its set-up figures are smaller by construction.',
    hops.length ? `\n${hops.join(', ')}: a message crosses two links (client → broker → client); the figures are per link, as the study's.` : '',
    '',
    table(['stack', ...payloads.map((p) => `payload ${fmt(p)}`), 'packets per message (payload 0)', 'set-up bytes', 'set-up packets', 'client socket ' +
      'counter / capture'], rows),
    ...(errors.length ? ['', 'Not measured:', ...errors] : []),
    ...(dropped.length ? ['', 'Captures that lost packets:', ...dropped] : []),
    '',
    loadedBytes(cells, stacks, payloads),
  ].join('\n');
}

/**
 * Bytes per message with every core busy and with the network loaded, beside idle: the encoding
 * is the same, so what grows is what the load makes the protocol send again (retransmissions,
 * DDS repairs) or in smaller pieces.
 */
function loadedBytes(cells, stacks, payloads) {
  const loaded = cells.filter((c) => c.task === 'bytes' && c.load !== 'idle');
  if (!loaded.length) {
    return 'Counted with the host idle only in this run: `node bench/study.js --tasks bytes --loads idle,cpu,net` counts them under each load too.';
  }
  const bytes = byKey(cells, 'bytes');
  const loads = ['idle', ...new Set(loaded.map((c) => c.load))];
  const rows = [];
  for (const id of stacks) {
    for (const load of loads) {
      const c = bytes[`${id}/${load}`];
      if (!c) continue;
      if (!c.result) {
        rows.push([label(id), LOAD_LABEL[load] || load, `failed: ${c.error ? c.error.code : 'no result'}`, ...payloads.slice(1).map(() => ''), '']);
        continue;
      }
      const r = c.result;
      const per = (size) => (r.bySize[size] ? r.bySize[size].bytesPerMessage : null);
      rows.push([label(id), LOAD_LABEL[load] || load, ...payloads.map((size) => fmt(per(size), per(size) % 1 ? 1 : 0)),
        fmt(r.bySize[0] ? r.bySize[0].packetsPerMessage : null, 2)]);
    }
  }
  return ['### Under load', '', 'Bytes per message as above, with every core busy and with the network loaded (the bulk transfer\'s own packets ' +
    'left out of the capture), beside idle: the encoding does not change, so what grows is what the load makes a protocol send again.', '',
  table(['stack', 'load', ...payloads.map((p) => `payload ${fmt(p)}`), 'packets per message (payload 0)'], rows)].join('\n');
}

/** Our own counter beside the capture: the client's socket bytes (written + read) against all payload captured. */
function counterCheck(r) {
  if (!r.counters) return '–';
  const counted = r.counters.tx + r.counters.rx;
  const captured = r.setup.payload + Object.values(r.bySize).reduce((a, s) => a + s.capture.payload, 0);
  return `${fmt(counted)} / ${fmt(captured)}`;
}

/** Round trips by size, one table per load, means beside the study's Table III. */
function rttSection(cells, o = {}) {
  const stats = rttStats(cells);
  const sizes = [...new Set(cells.filter((c) => c.task === 'rtt' && c.result).flatMap((c) => Object.keys(c.result.bySize).map(Number)))].sort((a, b) => a - b);
  const loads = [...new Set(cells.filter((c) => c.task === 'rtt').map((c) => c.load))];
  const out = ['## Round trip by message size (the study\'s Table III and Fig. 1)', '',
    `Echo mode: the client sends a payload and the other side sends the same bytes back; ${o.count || 'n'} round trips per size back to back after ` +
      `${o.warmup || 0} untimed, timed in the client. Mean in µs, the study's Table III mean in brackets (its echo rows; both DDS stacks beside its ` +
        `Fast RTPS, our TCP and UDP beside its raw C echo servers).`];
  const T3 = PAPER.table3;
  for (const load of loads) {
    const rows = [];
    for (const id of Object.keys(stats)) {
      const s = stats[id][load];
      if (!s) continue;
      const paper = (T3.echo[PAPER_KEY[id]] || {})[load];
      rows.push([label(id), ...sizes.map((size) => {
        const i = T3.sizes.indexOf(size);
        return cell(s[size] ? s[size].mean : null, paper && i >= 0 ? paper[i] : null);
      })]);
    }
    out.push('', `### ${LOAD_LABEL[load] || load}`, '', table(['stack', ...sizes.map((x) => `${fmt(x)} B`)], rows));
    const tails = Object.keys(stats).filter((id) => stats[id][load]).map((id) => {
      const s = stats[id][load];
      const lost = sizes.reduce((a, size) => a + (s[size] ? s[size].lost : 0), 0);
      return [label(id), ...sizes.map((size) => (s[size] && s[size].n ? `${fmt(s[size].median)} / ${fmt(s[size].p99)}` : '–')), fmt(lost)];
    });
    out.push('', `Median / p99 (µs), ${LOAD_LABEL[load] || load}:`, '', table(['stack', ...sizes.map((x) => `${fmt(x)} B`), 'lost'], tails));
    // A rerun of some sizes only (--sizes) leaves the others out: say so, so a dash is not read as a failure.
    const notRun = Object.keys(stats).filter((id) => stats[id][load]).map((id) => [id, sizes.filter((size) => !stats[id][load][size])])
      .filter(([, missing]) => missing.length).map(([id, missing]) => `${label(id)}: ${missing.map((x) => `${fmt(x)} B`).join(', ')}`);
    if (notRun.length) out.push('', `Sizes not run, ${LOAD_LABEL[load] || load} (a dash above): ${notRun.join('; ')}.`);
  }
  const failed = cells.filter((c) => c.task === 'rtt' && !c.result);
  if (failed.length) out.push('', 'Not measured:', ...failed.map((c) => `- ${label(c.stack)}, ${c.load}: ` +
    `${c.error ? `${c.error.code}: ${c.error.message}` : 'no result'}`));
  out.push('', degradation(stats, sizes));
  return out.join('\n');
}

/** How much each load slows each stack: mean under load over mean idle, at the smallest and largest size. */
function degradation(stats, sizes) {
  if (!sizes.length || !Object.values(stats).some((s) => s.cpu || s.net)) return '';
  const picks = [sizes[0], sizes[sizes.length - 1]];
  const rows = [];
  for (const id of Object.keys(stats)) {
    const idle = stats[id].idle;
    if (!idle) continue;
    const r = [label(id)];
    for (const load of ['cpu', 'net']) {
      for (const size of picks) {
        const a = idle[size];
        const b = stats[id][load] && stats[id][load][size];
        r.push(a && b && a.n && b.n ? `${signed(b.mean - a.mean)} µs (×${fmt(b.mean / a.mean, 1)})` : '–');
      }
    }
    rows.push(r);
  }
  return ['### What each load adds', '', 'Mean round trip under the load minus idle (and the ratio), at the smallest and the largest payload:', '',
    table(['stack', ...['every core busy', 'network loaded'].flatMap((l) => picks.map((s) => `${l}, ${fmt(s)} B`))], rows)].join('\n');
}

/** The many-nodes test (Fig. 1i), scaled to this machine. */
function chainSection(cells) {
  const chains = cells.filter((c) => c.task === 'chain');
  if (!chains.length) return '';
  const rows = chains.map((c) => {
    const r = c.result;
    const shape = `${c.spec.streams} × ${c.spec.hops}`;
    if (!r || r.error || !r.rttUs.length) {
      const why = c.error ? `${c.error.code}: ${c.error.message}` : r && r.error ? r.error : 'no round came back';
      const at = (f, d) => (r ? fmt(f(r), d) : '–');
      return [label(c.stack), fmt(c.spec.streams * c.spec.hops), shape, at((x) => x.startedS, 1), '–', '–',
        at((x) => x.rssTotalMB), at((x) => x.rssPerNodeMB, 1), at((x) => x.forwardersCpuPct), `failed: ${why.split('\n')[0].slice(0, 160)}`];
    }
    const s = summarise(r.rttUs.map((us) => us / 1000));
    const machine = r.machineCpuPct === null ? '–' : `machine ${fmt(r.machineCpuPct)} % of ${r.cores} cores`;
    return [label(c.stack), fmt(r.nodes), shape, fmt(r.startedS + (r.matchedS || 0), 1), `${fmt(s.mean, 1)} / ${fmt(s.median, 1)} / ${fmt(s.max, 1)}`,
      `${fmt(s.n)} (${fmt(r.lost)} lost)`, fmt(r.rssTotalMB), fmt(r.rssPerNodeMB, 1), fmt(r.forwardersCpuPct), machine];
  });
  return ['## Many nodes on one host (the study\'s Fig. 1i, scaled)', '',
    `The study started 500 instances on one host (10 streams of 50 forwarding hops) and sent 10 packages of 10,240 bytes at once (Section V); ROS ` +
      `filled 60 GB of 64 and Fast RTPS could not start more than 100 nodes (Section VI). Here each forwarding node is its own process, as there; a ` +
        `round sends one message of ${fmt((chains[0].spec || {}).size || 10240)} bytes down every stream at once and ends when all are back. Start: ` +
          `seconds from the first forwarder's start until a message came through every chain (processes started and discovery done). Memory and CPU: ` +
            `the forwarders and the master or broker they talk through (ROS, MQTT), resident memory after the rounds and CPU time over the timed rounds ` +
              `in % of one core; machine: every process of the host, other users included.`, '',
    table(['stack', 'nodes', 'streams × hops', 'start (s)', 'round ms: mean / median / max', 'rounds', 'memory, all processes (MB)', 'per node ' +
      '(MB)', 'CPU % (one core)', 'machine'], rows)].join('\n');
}

/** Our own paths (bench/run.js) idle and under each load. */
function ownSection(own) {
  if (!own || !Object.keys(own).length) return '';
  const rows = [];
  const base = own.idle;
  for (const [load, r] of Object.entries(own)) {
    if (r.error) { rows.push([LOAD_LABEL[load] || load, `failed: ${r.error}`, '', '', '']); continue; }
    const vs = (what) => (base && base[what] && r[what] && load !== 'idle' && base[what].n && r[what].n
      ? ` (×${fmt(r[what].mean / base[what].mean, 1)})`
      : '');
    const fmtS = (s) => (s && s.n ? `${fmt(s.mean, 1)} / ${fmt(s.median, 1)} / ${fmt(s.p99, 1)}` : '–');
    rows.push([LOAD_LABEL[load] || load, `${fmtS(r.probe)}${vs('probe')}`, fmt(r.probe && r.probe.n),
      `${fmtS(r.production)}${vs('production')}`, fmt(r.production && r.production.n)]);
  }
  return ['## Our own paths under the same loads', '',
    'The WebSocket–S7 path through the whole system (twin → cloud Node-RED → edge Node-RED → virtual S7-1500 and back, `bench/run.js --protocols ws ' +
      '--profiles local`): probe round trips and the fault-free production\'s round trips (Table 1 overall: every timed variable pooled), idle, with ' +
        'stress-ng on every core, and in a network namespace whose loopback is shaped and loaded like the stacks\' (above). Mean / median / p99 in ms, ' +
          'the mean\'s ratio to idle in brackets.', '',
    table(['load', 'probe round trip (ms)', 'probes', 'production round trip (ms)', 'samples'], rows)].join('\n');
}

module.exports = { rttStats, bytesSection, rttSection, chainSection, ownSection, table, PAPER_KEY };
