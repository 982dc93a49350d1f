'use strict';
/**
 * Helpers for the container tests (test/containers/): Podman and docker-compose as child
 * processes, the project image (scripts/containers.sh --image builds it, cached), the services'
 * environment read from docker-compose.yml itself (so `podman run` starts exactly what compose
 * would), and the time from starting the containers to the first acknowledged twin command.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFile, spawnSync } = require('node:child_process');
const yaml = require('js-yaml');
const WebSocket = require('ws');
const envelope = require('../../nodes/lib/core/envelope');
const gen = require('../../scripts/gen-env');
const { ROOT } = require('./nodered');

/**
 * Run a command; resolves {code, stdout, stderr} (never rejects on a non-zero exit).
 * @param {string} cmd
 * @param {string[]} args
 * @param {object} [opts] execFile options (env, cwd, timeout)
 */
function run(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    execFile(cmd, args, { maxBuffer: 64 * 1024 * 1024, ...opts }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** Run and require exit 0; the error carries the command's output. */
async function must(cmd, args, opts) {
  const r = await run(cmd, args, opts);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}:\n${r.stderr.slice(-3000)}${r.stdout.slice(-2000)}`);
  return r;
}

const podman = (...args) => run('podman', args);

/**
 * The project image, built (or found in the layer cache) by scripts/containers.sh --image.
 * @returns {{image: string, log: string}}
 */
function projectImage() {
  const r = spawnSync('bash', [path.join(ROOT, 'scripts', 'containers.sh'), '--image'], { encoding: 'utf8', timeout: 20 * 60 * 1000 });
  if (r.status !== 0) throw new Error(`scripts/containers.sh --image failed:\n${r.stderr}`);
  return { image: r.stdout.trim().split('\n').pop(), log: r.stderr.trim() };
}

/**
 * A fresh deployment's .env (node scripts/gen-env.js), plus `extra` variables; returns the file
 * (quoted, as gen-env writes it, for docker-compose), its values, and the editor password.
 */
function makeEnv(dir, extra = {}) {
  const file = path.join(dir, '.env');
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'gen-env.js'), '--out', file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`gen-env failed: ${r.stderr}`);
  const password = /editor login \(cloud and edge\): \S+ \/ (\S+)/.exec(r.stderr)[1];
  fs.appendFileSync(file, Object.entries(extra).map(([k, v]) => `${k}='${v}'\n`).join(''));
  return { file, values: gen.parseEnv(fs.readFileSync(file, 'utf8')), password };
}

/**
 * A compose service's environment as docker-compose would give it, from docker-compose.yml (and
 * override files): ${VAR}, ${VAR:-default} and ${VAR:?message} against `vars`.
 * @param {string} service
 * @param {object} vars
 * @param {string[]} [files] compose files, default ['docker-compose.yml']
 * @returns {{environment: object, command?: string[], hostname?: string}}
 */
function composeService(service, vars, files = ['docker-compose.yml']) {
  const subst = (v) => String(v).replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g, (m, name, op, arg) => {
    const val = vars[name];
    if (val !== undefined && val !== '') return val;
    if (op && op.endsWith('?')) throw new Error(`${name}: ${arg}`);
    return op && op.endsWith('-') ? arg : '';
  });
  const out = { environment: {} };
  for (const f of files) {
    const svc = yaml.load(fs.readFileSync(path.join(ROOT, f), 'utf8')).services[service] || {};
    for (const [k, v] of Object.entries(svc.environment || {})) out.environment[k] = subst(v);
    if (svc.command) out.command = svc.command;
    if (svc.hostname) out.hostname = svc.hostname;
  }
  return out;
}

/** A temporary folder removed by `remove()`. */
function tempDir(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o755);
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Send a command from a fresh twin until the cloud answers it with `ack` (the edge wrote it to the
 * PLC), and resolve with the ms since `t0` (performance.now() time): the time a deployment takes
 * from `up` to its first acknowledged command. Connection failures and E_EDGE_DOWN answers are
 * retried every 250 ms until `timeoutMs`.
 * @param {{url: string, token: string, ca?: Buffer, t0: number, timeoutMs?: number}} o
 * @returns {Promise<{ms: number, attempts: number}>}
 */
async function firstAck(o) {
  const end = performance.now() + (o.timeoutMs || 180000);
  const sender = envelope.createSender(`twin-first-ack-${process.pid}`);
  let attempts = 0;
  let last = '';
  while (performance.now() < end) {
    attempts += 1;
    const answer = await new Promise((resolve) => {
      const ws = new WebSocket(o.url, { headers: { Authorization: `Bearer ${o.token}` }, ...(o.ca ? { ca: o.ca } : {}), handshakeTimeout: 5000 });
      const timer = setTimeout(() => { ws.terminate(); resolve('no answer'); }, 5000);
      let sent = null;
      ws.on('open', () => { sent = sender.make('cmd', { d: { sp: 0 } }); ws.send(JSON.stringify(sent)); });
      ws.on('message', (raw) => {
        let env;
        try { env = JSON.parse(raw); } catch { return; }
        if (!sent || !env.ref || env.ref.seq !== sent.seq || env.ref.src !== sent.src) return;
        clearTimeout(timer);
        ws.close();
        resolve(env.k === 'ack' ? 'ack' : `err ${env.e && env.e.code}`);
      });
      ws.on('error', (err) => { clearTimeout(timer); resolve(err.message); });
    });
    if (answer === 'ack') return { ms: performance.now() - o.t0, attempts };
    last = answer;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no acknowledged command within ${o.timeoutMs || 180000} ms (last: ${last})`);
}

/** Poll `podman healthcheck run` until the container reports healthy. */
async function waitHealthy(name, timeoutMs = 120000) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    last = await podman('healthcheck', 'run', name);
    if (last.code === 0) return;
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(`${name} not healthy after ${timeoutMs} ms: ${last.stdout}${last.stderr}`);
}

/**
 * The SAN of the OPC UA server certificate the cloud container made (read inside it with Node).
 * @param {string} container
 */
async function opcuaCertNames(container) {
  const js = `const fs=require('fs'),p=require('path'),{X509Certificate}=require('crypto');
    const walk=(d)=>fs.readdirSync(d,{withFileTypes:true}).flatMap((e)=>e.isDirectory()?walk(p.join(d,e.name)):[p.join(d,e.name)]);
    const f=walk('/data').find((x)=>/opcua-pki\\/server\\/own\\/certs\\/.*\\.pem$/.test(x));
    process.stdout.write(new X509Certificate(fs.readFileSync(f)).subjectAltName||'');`;
  const r = await must('podman', ['exec', container, 'node', '-e', js]);
  return r.stdout;
}

/**
 * GET /s7twin/stats of a Node-RED (http or https with `ca`) with a bearer token.
 * @returns {Promise<Array<{type:string, name:string, counters:object}>>} the nodes
 */
function stats(base, token, ca) {
  const mod = base.startsWith('https') ? require('node:https') : require('node:http');
  return new Promise((resolve, reject) => {
    mod.get(`${base}/s7twin/stats`, { headers: { Authorization: `Bearer ${token}` }, ...(ca ? { ca } : {}), timeout: 10000 }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => {
        try { resolve(JSON.parse(body).nodes); } catch (err) { reject(new Error(`stats: HTTP ${res.statusCode} ${body.slice(0, 200)}`)); }
      });
    }).on('error', reject);
  });
}

/**
 * Wait until a fresh deployment has settled: every container healthy, the edge's OPC UA bridge
 * monitoring the cloud's commands (Sign & Encrypt, certificates made on first start) and its Modbus
 * writes flowing. A production started while three containers still make their OPC UA certificates
 * shares two cores with that work; the plant model times its boxes in real time.
 */
async function waitSettled({ containers, base, token, ca }) {
  for (const c of containers) await waitHealthy(c);
  const counters = async (type) => ((await stats(base, token, ca)).find((n) => n.type === type) || {}).counters || {};
  const end = Date.now() + 120000;
  while (Date.now() < end) {
    // The bridge monitors the ten commands on the cloud (then writes their values to the PLC once).
    const ua = await counters('s7twin-opcua-server');
    if (ua.sessions >= 1 && ua.monitoredItems >= 10 && (await counters('s7twin-modbus-server')).writes > 0) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the edge did not open its OPC UA session and Modbus writes on the cloud within 120 s');
}

module.exports = { stats, waitSettled, run, must, podman, projectImage, makeEnv, composeService, tempDir, firstAck, waitHealthy, opcuaCertNames };
