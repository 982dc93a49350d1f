'use strict';
/**
 * A small client for Toxiproxy (https://github.com/Shopify/toxiproxy): start the server on an
 * ephemeral API port, create TCP proxies, add latency+jitter toxics per direction, remove them,
 * stop. The launcher puts it in front of the cloud to emulate a WAN on a kernel without netem (the
 * benchmark's WAN profiles, the fault suite).
 *
 *   const tp = await startToxiproxy();
 *   const p = await tp.createProxy({ name: 'twin-cloud', upstream: '127.0.0.1:1880' });
 *   await tp.addLatency(p.name, { up: { latency: 10, jitter: 2 }, down: { latency: 10, jitter: 2 } });
 *   // connect to p.port instead of 1880 ...
 *   await tp.stop();
 *
 * Toxiproxy's "upstream" stream is client → server, "downstream" server → client. Its latency
 * toxic delays every chunk by latency ± jitter (uniform), in order per connection: it adds delay
 * but never reorders bytes, which is what TCP over a WAN looks like to the application.
 */
const { codedError } = require('../nodes/lib/core/errors');
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const { freePort } = require('../plc/net');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const DEFAULTS = {
  host: '127.0.0.1', // the API and every proxy listen on loopback only
  startTimeoutMs: 15000, // wait for the API to answer, ms
  stopTimeoutMs: 5000, // SIGTERM → SIGKILL after, ms
  requestTimeoutMs: 5000, // one API call, ms
};

/** Error with a stable `code`. */
const ToxiproxyError = codedError('ToxiproxyError');

/**
 * Path to the toxiproxy-server binary, building it with scripts/toxiproxy.sh when missing.
 * @returns {string}
 * @throws {ToxiproxyError} E_TOXIPROXY_BUILD when it cannot be built (no Go, no module proxy)
 */
function ensureBinary() {
  const bin = path.join(ROOT, '.tools', 'bin', 'toxiproxy-server');
  if (fs.existsSync(bin)) return bin;
  try {
    const out = execFileSync(path.join(ROOT, 'scripts', 'toxiproxy.sh'), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    return out.trim().split('\n').pop();
  } catch (err) {
    throw new ToxiproxyError('E_TOXIPROXY_BUILD', `could not build Toxiproxy (scripts/toxiproxy.sh): ${err.message}`);
  }
}

/**
 * One JSON call to the Toxiproxy API.
 * @returns {Promise<any>} the parsed body (or null when empty)
 */
function request(apiPort, method, urlPath, body, timeoutMs = DEFAULTS.requestTimeoutMs) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? null : Buffer.from(JSON.stringify(body));
    const req = http.request({
      host: DEFAULTS.host,
      port: apiPort,
      method,
      path: urlPath,
      headers: data ? { 'content-type': 'application/json', 'content-length': data.length } : {},
      timeout: timeoutMs,
      agent: false,
    }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode >= 300) {
          reject(new ToxiproxyError('E_TOXIPROXY_API', `${method} ${urlPath} → ${res.statusCode} ${text.trim()}`));
          return;
        }
        try {
          resolve(text ? JSON.parse(text) : null);
        } catch {
          resolve(text);
        }
      });
    });
    req.on('timeout', () => req.destroy(new ToxiproxyError('E_TOXIPROXY_TIMEOUT', `${method} ${urlPath} timed out`)));
    req.on('error', reject);
    req.end(data);
  });
}

/**
 * Start a Toxiproxy server on an ephemeral API port (loopback).
 * @param {object} [opts]
 * @param {string} [opts.bin] server binary (default: built by scripts/toxiproxy.sh)
 * @param {number} [opts.apiPort] default: a free port
 * @returns {Promise<object>} the client: createProxy, addLatency, addToxic, removeToxics,
 *   deleteProxy, reset, version, stop, apiPort, pid
 */
async function startToxiproxy(opts = {}) {
  const bin = opts.bin || ensureBinary();
  const apiPort = opts.apiPort || await freePort(DEFAULTS.host);
  const child = spawn(bin, ['-host', DEFAULTS.host, '-port', String(apiPort)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const collect = (d) => { log += d; if (log.length > 200000) log = log.slice(-100000); };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  let dead = false;
  const exited = new Promise((resolve) => child.once('exit', () => { dead = true; resolve(); }));
  child.once('error', (err) => { dead = true; log += String(err); });

  const proxies = new Map(); // name → {name, port, listen, upstream}

  async function stop() {
    if (!dead) {
      child.kill('SIGTERM');
      const t = setTimeout(() => { if (!dead) child.kill('SIGKILL'); }, DEFAULTS.stopTimeoutMs);
      await exited;
      clearTimeout(t);
    }
    proxies.clear();
  }

  const end = Date.now() + (opts.startTimeoutMs || DEFAULTS.startTimeoutMs);
  let version;
  for (;;) {
    if (dead) throw new ToxiproxyError('E_TOXIPROXY_START', `toxiproxy-server exited: ${log.trim()}`);
    try {
      version = await request(apiPort, 'GET', '/version', undefined, 1000);
      break;
    } catch (err) {
      if (Date.now() > end) {
        await stop();
        throw new ToxiproxyError('E_TOXIPROXY_START', `toxiproxy-server did not answer on ${apiPort}: ${err.message}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * Create a proxy listening on an ephemeral loopback port in front of `upstream`.
   * @param {{name:string, upstream:string, listen?:string}} p
   * @returns {Promise<{name:string, port:number, listen:string, upstream:string}>}
   */
  async function createProxy(p) {
    if (!p || !p.name || !p.upstream) throw new ToxiproxyError('E_TOXIPROXY_ARG', 'createProxy needs {name, upstream}');
    const res = await request(apiPort, 'POST', '/proxies', {
      name: p.name, listen: p.listen || `${DEFAULTS.host}:0`, upstream: p.upstream, enabled: true,
    });
    const port = Number(String(res.listen).split(':').pop());
    if (!port) throw new ToxiproxyError('E_TOXIPROXY_API', `proxy ${p.name} got no port: ${JSON.stringify(res)}`);
    const info = { name: p.name, port, listen: res.listen, upstream: p.upstream };
    proxies.set(p.name, info);
    return info;
  }

  /**
   * Add one toxic to a proxy.
   * @param {string} proxy name
   * @param {{name?:string, type:string, stream:'upstream'|'downstream', toxicity?:number, attributes:object}} toxic
   */
  function addToxic(proxy, toxic) {
    return request(apiPort, 'POST', `/proxies/${encodeURIComponent(proxy)}/toxics`, {
      name: toxic.name || `${toxic.type}_${toxic.stream}`,
      type: toxic.type,
      stream: toxic.stream,
      toxicity: toxic.toxicity ?? 1,
      attributes: toxic.attributes || {},
    });
  }

  /**
   * Add latency ± jitter per direction (ms). `up` = client → server, `down` = server → client.
   * A direction with latency 0 and jitter 0 (or absent) gets no toxic.
   * @param {string} proxy
   * @param {{up?:{latency:number, jitter?:number}, down?:{latency:number, jitter?:number}}} dirs
   */
  async function addLatency(proxy, dirs) {
    for (const [key, stream] of [['up', 'upstream'], ['down', 'downstream']]) {
      const d = dirs && dirs[key];
      if (!d || (!d.latency && !d.jitter)) continue;
      await addToxic(proxy, {
        name: `latency_${stream}`, type: 'latency', stream, attributes: { latency: Math.round(d.latency || 0), jitter: Math.round(d.jitter || 0) },
      });
    }
  }

  /** Remove every toxic of a proxy (the proxy stays). */
  async function removeToxics(proxy) {
    const list = await request(apiPort, 'GET', `/proxies/${encodeURIComponent(proxy)}/toxics`);
    for (const t of list || []) {
      await request(apiPort, 'DELETE', `/proxies/${encodeURIComponent(proxy)}/toxics/${encodeURIComponent(t.name)}`);
    }
  }

  /** Delete a proxy (its listener closes, its connections drop). */
  async function deleteProxy(proxy) {
    await request(apiPort, 'DELETE', `/proxies/${encodeURIComponent(proxy)}`);
    proxies.delete(proxy);
  }

  /** Re-enable every proxy and remove every toxic. */
  function reset() { return request(apiPort, 'POST', '/reset'); }

  return {
    apiPort,
    pid: child.pid,
    version: typeof version === 'string' ? version.trim() : JSON.stringify(version),
    proxies,
    createProxy,
    addToxic,
    addLatency,
    removeToxics,
    deleteProxy,
    reset,
    logs: () => log,
    stop,
  };
}

module.exports = { startToxiproxy, ensureBinary, ToxiproxyError, DEFAULTS };
