#!/usr/bin/env node
'use strict';
/**
 * One measurement of the protocol study: one stack, one task, one load, in a network namespace of
 * its own (bench/study.js runs `unshare -n node bench/study/cell.js '<spec as JSON>'`), so its
 * loopback carries nothing but this measurement: the capture counts only its packets, and the
 * network load shapes only its links. Writes one JSON line: {"result": ...} or {"error": ...}.
 *
 * Tasks:
 *   rtt    round trips by payload size (the study's echo or ACK test, Table III)
 *   bytes  a capture of opening and closing alone, then one per payload size with `bytesCount`
 *          exchanges: set-up bytes and bytes per message (Table II)
 *   chain  the many-nodes test: `streams` chains of `hops` forwarding nodes, one message of
 *          `size` bytes down each at once, `rounds` times (Fig. 1i)
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { STACKS } = require('./stacks');
const { startCompanion, PASSWORD_ENV } = require('./companion');
const { startCapture, splitByWindows } = require('./capture');
const loads = require('./loads');
const { readProc, readMachine } = require('../lib/cost');
const { cycloneConfig } = require('./dds-config');
const { startRosMaster } = require('../../system/brokers/rosmaster');
const { startMosquitto } = require('../../system/brokers/mosquitto');

const READY_MS = 120000; // a companion's start (rospy and node-opcua take seconds on a loaded machine)
const RUN_MS = 30 * 60000; // one ping or chain run, bounded

/**
 * A broker's login for a companion: the username as an option, the password in its environment,
 * never on a command line (where `ps` shows it, and where a random one starting with '-', as
 * base64url may, is taken for an option: the companion then refuses its arguments).
 * @param {{username: string, password: string}} credentials
 * @returns {{args: string[], env: object}}
 */
function brokerLogin(credentials) {
  return { args: [`--username=${credentials.username}`], env: { [PASSWORD_ENV]: credentials.password } };
}

/** What a stack's processes need around them: a master, environment, the ports to dial. */
async function environment(stack, tmp, participants) {
  const env = {};
  const extra = [];
  let master = null;
  if (stack.id === 'ros') {
    const m = await startRosMaster({ timeoutMs: READY_MS });
    Object.assign(env, m.env);
    master = { name: 'rosmaster', pid: m.pid, stop: m.stop };
  } else if (stack.id === 'mqtt') {
    master = startCompanion(stack.command('broker', []), { name: 'mqtt broker' });
    const line = await master.next((l) => l.event === 'ready', READY_MS);
    extra.push('--port', String(line.port));
  } else if (stack.master === 'mosquitto') {
    const mq = await startMosquitto({});
    const login = brokerLogin(mq.credentials);
    extra.push('--port', String(mq.port), ...login.args);
    Object.assign(env, login.env);
    master = { name: 'mosquitto', pid: mq.pid, stop: mq.stop };
  } else if (stack.id === 'dds') {
    const file = path.join(tmp, 'cyclonedds.xml');
    fs.writeFileSync(file, cycloneConfig({ participants }));
    env.CYCLONEDDS_URI = `file://${file}`;
  } else if (stack.id === 'fastdds') {
    extra.push('--peers', String(Math.max(4, participants + 2)));
  }
  return { env, extra, master };
}

/** Start the echo (and its master), run one ping with `args`, stop everything; the ping's lines. */
async function echoPing(stack, tmp, pingArgs, mode, capture) {
  const ctx = await environment(stack, tmp, 2);
  const procs = ctx.master ? [ctx.master] : [];
  let cap = null;
  try {
    if (capture) cap = await startCapture({ filter: capture.filter });
    const echo = startCompanion(stack.command('echo', ['--mode', mode, ...ctx.extra]), { name: `${stack.id} echo`, env: ctx.env });
    procs.push(echo);
    const ready = await echo.next((l) => l.event === 'ready', READY_MS);
    const dial = ready.port ? ['--port', String(ready.port)] : ctx.extra;
    const ping = startCompanion(stack.command('ping', ['--mode', mode, ...dial, ...pingArgs]), { name: `${stack.id} ping`, env: ctx.env });
    procs.push(ping);
    await ping.next((l) => l.event === 'done' || l.event === 'error', RUN_MS);
    await ping.exited;
    for (const p of procs.slice().reverse()) await p.stop();
    const err = ping.lines.find((l) => l.event === 'error');
    if (err) throw Object.assign(new Error(`${stack.id} ping: ${err.message}`), { code: err.code });
    const captured = cap ? await cap.stop() : null;
    cap = null;
    return { lines: ping.lines, captured };
  } finally {
    for (const p of procs.slice().reverse()) await p.stop();
    if (cap) await cap.stop().catch(() => {});
  }
}

async function taskRtt(stack, tmp, spec) {
  const args = ['--sizes', spec.sizes.join(','), '--count', String(spec.count), '--warmup', String(spec.warmup), '--prewarm', String(spec.prewarm || 0)];
  const { lines } = await echoPing(stack, tmp, args, spec.mode, null);
  const bySize = {};
  for (const l of lines) if (l.size !== undefined) bySize[l.size] = { rttUs: l.rtt_us, lost: l.lost };
  return { bySize, matchedS: (lines.find((l) => l.event === 'matched') || {}).s };
}

async function taskBytes(stack, tmp, spec, ignorePorts) {
  const filter = ignorePorts.length ? ignorePorts.map((p) => `not port ${p}`).join(' and ') : undefined;
  const args = ['--sizes', spec.bytesSizes.join(','), '--count', String(spec.bytesCount), '--warmup', '0'];
  const { lines, captured } = await echoPing(stack, tmp, args, 'echo', { filter });
  const windows = lines.filter((l) => l.size !== undefined).map((l) => ({ size: l.size, t0: l.t0, t1: l.t1, messages: l.messages }));
  const split = splitByWindows(captured.packets, windows, { ignorePorts, hops: stack.hops || 1 });
  const counters = lines.find((l) => l.event === 'counters') || null;
  // Every exchange answered, or the bytes counted are not those of whole round trips.
  const answered = Object.fromEntries(lines.filter((l) => l.size !== undefined).map((l) => [l.size, { answered: l.rtt_us.length, lost: l.lost }]));
  return {
    setup: split.setup, bySize: split.bySize, messages: spec.bytesCount, answered, dropped: captured.dropped, counters, payloadSent: payloadSent(windows),
  };
}

/** What the client's messages carried (the application's bytes, requests only). */
function payloadSent(windows) {
  return windows.reduce((a, w) => a + w.size * w.messages, 0);
}

async function taskChain(stack, tmp, spec) {
  const nodes = spec.streams * spec.hops;
  const ctx = await environment(stack, tmp, nodes + 1);
  const procs = ctx.master ? [ctx.master] : [];
  const t0 = Date.now();
  try {
    const fwd = [];
    for (let s = 0; s < spec.streams; s++) {
      for (let h = 0; h < spec.hops; h++) {
        const topics = ['--in-topic', `chain_${s}_${h}`, '--out-topic', `chain_${s}_${h + 1}`];
        const p = startCompanion(stack.command('forward', [...topics, ...ctx.extra]), { name: `${stack.id} forward ${s}/${h}`, env: ctx.env });
        procs.push(p);
        fwd.push(p);
      }
    }
    for (const p of fwd) await p.next((l) => l.event === 'ready', READY_MS * 3);
    const startedS = (Date.now() - t0) / 1000;
    // Every process of the chain: the forwarders and the master or broker they talk through.
    const measured = ctx.master ? [...fwd, ctx.master] : fwd;
    const cpu0 = measured.map((p) => readProc(p.pid));
    const m0 = readMachine();
    const w0 = Date.now();
    const args = ['--streams', String(spec.streams), '--hops', String(spec.hops), '--rounds', String(spec.rounds), '--size', String(spec.size), ...ctx.extra];
    const client = startCompanion(stack.command('chain', args), { name: `${stack.id} chain`, env: ctx.env });
    procs.push(client);
    await client.next((l) => l.event === 'done' || l.event === 'error', RUN_MS);
    const wall = Date.now() - w0;
    const cpu1 = measured.map((p) => readProc(p.pid));
    const m1 = readMachine();
    const rss = cpu1.reduce((a, r) => a + (r ? r.rss : 0), 0);
    const cpuMs = cpu1.reduce((a, r, i) => a + (r && cpu0[i] ? r.cpuMs - cpu0[i].cpuMs : 0), 0);
    const err = client.lines.find((l) => l.event === 'error');
    const res = client.lines.find((l) => l.rtt_us);
    return {
      nodes, streams: spec.streams, hops: spec.hops, size: spec.size, startedS,
      matchedS: (client.lines.find((l) => l.event === 'matched') || {}).s,
      rttUs: res ? res.rtt_us : [], lost: res ? res.lost : spec.rounds, error: err ? `${err.code}: ${err.message}` : null,
      alive: cpu1.slice(0, fwd.length).filter(Boolean).length, master: ctx.master ? ctx.master.name : null,
      masterRssMB: ctx.master && cpu1[fwd.length] ? cpu1[fwd.length].rss / 1048576 : null,
      rssTotalMB: rss / 1048576, rssPerNodeMB: rss / 1048576 / nodes,
      forwardersCpuPct: (100 * cpuMs) / wall,
      machineCpuPct: m0 && m1 && m1.total > m0.total ? (100 * (m1.busy - m0.busy)) / (m1.total - m0.total) : null,
      cores: m1 ? m1.cores : os.cpus().length,
    };
  } finally {
    // All forwarders at once (hundreds, one by one, would take minutes), then the master.
    await Promise.all(procs.filter((p) => p !== ctx.master).map((p) => p.stop()));
    if (ctx.master) await ctx.master.stop();
  }
}

/**
 * Run one measurement (in this process's network namespace).
 * @param {object} spec {stack, task, load, sizes, count, warmup, mode, bytesSizes, bytesCount,
 *   streams, hops, rounds, size, net}
 */
async function runCell(spec) {
  const stack = STACKS[spec.stack];
  if (!stack) throw Object.assign(new Error(`unknown stack ${spec.stack}`), { code: 'E_STUDY_ARGS' });
  const why = stack.missing();
  if (why) throw Object.assign(new Error(why), { code: 'E_STUDY_MISSING' });
  if (loads.inOwnNetns()) loads.loopbackUp(spec.net);
  else if (spec.task === 'bytes' || spec.load === 'net') throw Object.assign(new Error('captures and network load need a namespace of their own (run as ' +
    'root: unshare -n)'), { code: 'E_STUDY_NETNS' });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-study-'));
  const load = await loads.applyLoad(spec.load, spec.net);
  // The load runs in process groups of its own: stop it when this cell is stopped, too.
  const onSignal = () => { load.stop().finally(() => process.exit(1)); };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  try {
    if (spec.task === 'rtt') return await taskRtt(stack, tmp, spec);
    if (spec.task === 'bytes') return await taskBytes(stack, tmp, spec, load.ignorePorts);
    if (spec.task === 'chain') return await taskChain(stack, tmp, spec);
    throw Object.assign(new Error(`unknown task ${spec.task}`), { code: 'E_STUDY_ARGS' });
  } finally {
    await load.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const spec = JSON.parse(process.argv[2]);
  runCell(spec).then(
    (result) => { process.stdout.write(`${JSON.stringify({ result })}\n`); process.exit(0); },
    (e) => { process.stdout.write(`${JSON.stringify({ error: { code: e.code || 'E_STUDY_CELL', message: e.message } })}\n`); process.exit(1); },
  );
}

module.exports = { runCell, brokerLogin };
