'use strict';
/**
 * The conditions a measurement runs under, each started and stopped by the bench:
 *
 *   idle  nothing added
 *   cpu   stress-ng keeps every core busy (one CPU hog per core, at normal priority, as the
 *         study's `stress`; unlike the study, nothing here runs at real-time priority)
 *   net   the network loaded: the loopback of the measurement's own network namespace is shaped
 *         to a link (500 Mbit/s by default: iperf3 on two loaded cores fills it, where at the
 *         study's gigabit it ran out of CPU first) with a queue of about 1 ms, and iperf3 sends a
 *         bulk TCP transfer flat out over it, so the queue stays full and every message waits
 *         behind bulk data as on a saturated link
 *
 * Shaping touches only a namespace of our own (unshare -n): `shapeLoopback` refuses to run in
 * the machine's namespace, where it would slow every other process's loopback.
 */
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');

const BULK_PORT = 5201; // iperf3's own port, inside a namespace nothing else uses
const NET_DEFAULTS = { rateMbit: 500, queueMs: 1, bulkStreams: 2, mtu: 1500 };

/** The environment variable through which the bench tells a child the namespace it came from. */
const OUTER_ENV = 'S7T_STUDY_OUTER_NETNS';

/** This process's network namespace (`net:[inode]`), or null where /proc does not say. */
function netnsId() {
  try { return fs.readlinkSync('/proc/self/ns/net'); } catch { return null; }
}

/**
 * Is this process in a network namespace of its own? Only if the bench that started it said
 * which namespace it came from (OUTER_ENV) and this is another one: a sandbox may itself run in a
 * namespace of its own that other processes share, so "not the namespace of pid 1" proves nothing.
 */
function inOwnNetns() {
  const outer = process.env[OUTER_ENV];
  const own = netnsId();
  return Boolean(outer && own && outer !== own);
}

/**
 * Bring up the loopback of a fresh namespace (it starts down), with Ethernet's frame size: at
 * loopback's own 64 KiB a 32 KiB message is one segment, and one dropped behind bulk data waits
 * for TCP's retransmission timeout (200 ms and more) where on a real link the segments after it
 * would have it resent at once. The study's hosts were on Ethernet; so is this loopback, frames
 * and segments alike.
 * @throws {Error} E_STUDY_NETNS outside a namespace of our own
 */
function loopbackUp(o = {}) {
  if (!inOwnNetns()) throw Object.assign(new Error('refusing to change the machine\'s loopback: run in a namespace of its own (unshare ' +
    '-n)'), { code: 'E_STUDY_NETNS' });
  const mtu = String(o.mtu || NET_DEFAULTS.mtu);
  execFileSync('ip', ['link', 'set', 'lo', 'up', 'mtu', mtu]);
  // No segmentation offload either: TCP would otherwise hand the link 64 KiB super-packets that a
  // full queue drops whole, where a network card's queue drops the frames that do not fit.
  execFileSync('ip', ['link', 'set', 'lo', 'gso_max_size', mtu]);
}

/**
 * Shape this namespace's loopback to a link of `rateMbit` with a queue of at most `queueMs`.
 * @throws {Error} E_STUDY_NETNS outside a namespace of our own
 */
function shapeLoopback(o = {}) {
  if (!inOwnNetns()) throw Object.assign(new Error('refusing to shape the machine\'s loopback: run in a namespace of its own (unshare ' +
    '-n)'), { code: 'E_STUDY_NETNS' });
  const { rateMbit, queueMs } = { ...NET_DEFAULTS, ...o };
  // burst: a few frames (segmentation offload is off, so no packet is larger than one frame).
  execFileSync('tc', ['qdisc', 'replace', 'dev', 'lo', 'root', 'tbf', 'rate', `${rateMbit}mbit`, 'burst', '16kb', 'latency', `${queueMs}ms`]);
}

function startDetached(cmd, args) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let err = '';
  child.stderr.on('data', (d) => { err = (err + d).slice(-4000); });
  const exited = new Promise((r) => child.once('exit', r));
  child.once('error', (e) => { err += e.message; });
  return {
    child,
    err: () => err,
    exited,
    /** End it and whatever it forked (its own process group, started here). */
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try { process.kill(-child.pid, 'SIGTERM'); } catch { /* already gone */ }
      const t = setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }, 5000);
      await exited;
      clearTimeout(t);
    },
  };
}

/**
 * Every core busy: stress-ng, one CPU worker per online core, bounded in time by itself too.
 * @param {{seconds?:number}} [o]
 */
async function startCpuHog(o = {}) {
  const hog = startDetached('stress-ng', ['--cpu', '0', '--timeout', `${o.seconds || 3600}s`, '--quiet']);
  await new Promise((r) => setTimeout(r, 500));
  if (hog.child.exitCode !== null) throw Object.assign(new Error(`stress-ng did not run: ${hog.err()}`), { code: 'E_STUDY_LOAD' });
  return hog;
}

/**
 * A bulk TCP transfer on the loopback, flat out (iperf3 server and client), in this namespace.
 * @returns {Promise<{stop:()=>Promise<void>, port:number}>}
 */
async function startBulk(o = {}) {
  const { bulkStreams } = { ...NET_DEFAULTS, ...o };
  const server = startDetached('iperf3', ['-s', '-p', String(BULK_PORT), '-1']);
  await new Promise((r) => setTimeout(r, 300));
  const client = startDetached('iperf3', ['-c', '127.0.0.1', '-p', String(BULK_PORT), '-t', String(o.seconds || 3600), '-P', String(bulkStreams)]);
  await new Promise((r) => setTimeout(r, 1000)); // let TCP fill the link's queue
  if (client.child.exitCode !== null) throw Object.assign(new Error(`iperf3 did not run: ${client.err()}`), { code: 'E_STUDY_LOAD' });
  return { port: BULK_PORT, async stop() { await client.stop(); await server.stop(); } };
}

/**
 * Put a condition in place; returns what stops it.
 * @param {'idle'|'cpu'|'net'} load
 * @param {object} [net] NET_DEFAULTS overrides
 * @returns {Promise<{stop:()=>Promise<void>, ignorePorts:number[]}>}
 */
async function applyLoad(load, net) {
  if (load === 'idle') return { stop: async () => {}, ignorePorts: [] };
  if (load === 'cpu') { const hog = await startCpuHog(); return { stop: () => hog.stop(), ignorePorts: [] }; }
  if (load === 'net') {
    shapeLoopback(net);
    const bulk = await startBulk(net);
    return { stop: () => bulk.stop(), ignorePorts: [bulk.port] };
  }
  throw Object.assign(new Error(`unknown load "${load}" (idle, cpu, net)`), { code: 'E_STUDY_ARGS' });
}

module.exports = { OUTER_ENV, netnsId, inOwnNetns, loopbackUp, shapeLoopback, startCpuHog, startBulk, applyLoad, NET_DEFAULTS, BULK_PORT };
