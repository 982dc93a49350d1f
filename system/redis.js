'use strict';
/**
 * Start Debian's redis-server for a fleet (cloud instances sharing plants over Redis): `bash
 * scripts/start.sh --fleet`, the fleet tests and the benchmark's fleet section use this one starter. Loopback only, no persistence
 * (the fleet keeps nothing in Redis that outlives its instances: leases expire, the latest plant
 * state is written again by the next state frame), a private working folder, stopped with its
 * parent (system/lifeline.js is for Node children; redis-server gets SIGTERM from stop() and
 * from the exit hook below).
 *
 *   const redis = await startRedis({ port: 0 });   // 0: a free port
 *   redis.url  // redis://127.0.0.1:<port>
 *   await redis.stop();
 */
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { codedError } = require('../nodes/lib/core/errors');
const { freePort } = require('../plc/net');
const { findProgram } = require('./brokers/server');

/** Error with a stable code: E_REDIS_MISSING, E_REDIS_START. */
const RedisStartError = codedError('RedisStartError');

/** The redis-server binary on PATH (or /usr/bin, /usr/sbin), or null. */
const findRedisServer = () => findProgram('redis-server');

/**
 * @param {object} [o]
 * @param {number} [o.port] 0 or absent: a free port
 * @param {string} [o.host] default 127.0.0.1
 * @param {number} [o.timeoutMs] start-up limit
 * @returns {Promise<{url: string, port: number, pid: number, child: object, logs: () => string, stop: () => Promise<void>}>}
 * @throws {RedisStartError} E_REDIS_MISSING (not installed: scripts/system-deps.sh installs it), E_REDIS_START
 */
async function startRedis(o = {}) {
  const bin = findRedisServer();
  if (!bin) {
    throw new RedisStartError('E_REDIS_MISSING', 'redis-server is not installed: run `bash scripts/system-deps.sh` as root, or `apt-get install redis-server`');
  }
  const host = o.host || '127.0.0.1';
  const port = o.port || (await freePort(host));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-redis-'));
  const args = ['--port', String(port), '--bind', host, '--save', '', '--appendonly', 'no', '--dir', dir,
    '--daemonize', 'no', '--protected-mode', 'yes', '--loglevel', 'notice', '--databases', '1'];
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const collect = (d) => { out += d; if (out.length > 200000) out = out.slice(-100000); };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise((r) => child.once('exit', r));
  // This process dying takes redis-server with it (a test run killed outright leaves nothing).
  const onExit = () => { try { child.kill('SIGKILL'); } catch { /* gone */ } };
  process.once('exit', onExit);
  const stop = async () => {
    process.removeListener('exit', onExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const end = Date.now() + (o.timeoutMs || 15000);
  while (!/Ready to accept connections/.test(out)) {
    if (child.exitCode !== null || Date.now() > end) {
      await stop();
      throw new RedisStartError('E_REDIS_START', `redis-server did not start on ${host}:${port}:\n${out.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return { url: `redis://${host}:${port}`, port, host, pid: child.pid, child, logs: () => out, stop };
}

/** redis-server's version, or null. */
function redisVersion() {
  const bin = findRedisServer();
  if (!bin) return null;
  try { return /v=([\d.]+)/.exec(execFileSync(bin, ['--version'], { encoding: 'utf8' }))[1]; } catch { return null; }
}

module.exports = { startRedis, findRedisServer, redisVersion, RedisStartError };
