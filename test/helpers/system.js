'use strict';
/**
 * The whole WebSocket–S7 path for end-to-end tests: a virtual PLC, a cloud and an edge Node-RED
 * running the project's own flow parts, all on ephemeral ports.
 */
const fs = require('node:fs');
const path = require('node:path');
const { startNodeRed, freePort } = require('./nodered');
const { spawnWithLifeline } = require('../../scripts/lifeline');
const { s7Connect, waitFor } = require('./plc');
const tags = require('../../nodes/lib/core/tags');

const PARTS = path.join(__dirname, '..', '..', 'flows', 'parts');
const part = (name) => JSON.parse(fs.readFileSync(path.join(PARTS, `${name}.json`), 'utf8'));

const TOKENS = { twin: 'test-twin-token', edge: 'test-edge-token', viewer: 'test-viewer-token' };

/**
 * The virtual PLC as its own process (S7 only), so a test can take it off the network and bring
 * it back on the same port, as a real PLC that drops off would.
 * @param {number} [port] default: a free port
 * @returns {Promise<{ports:{s7:number}, values:()=>Promise<object>, setInputs:(v:object)=>Promise<void>, stop:()=>Promise<void>, start:()=>Promise<void>}>}
 */
async function startPlcProcess(port) {
  const s7Port = port || (await freePort());
  let child = null;
  let s7 = null;
  const plc = {
    ports: { s7: s7Port },
    async start() {
      child = spawnWithLifeline([path.join(__dirname, '..', '..', 'plc', 'cli.js'), '--s7-port', String(s7Port), '--no-opcua', '--no-modbus']);
      let out = '';
      child.stdout.on('data', (d) => { out += d; });
      child.stderr.on('data', (d) => { out += d; });
      await waitFor(() => /scanning every/.test(out) || child.exitCode !== null, 20000, 'virtual PLC up');
      if (child.exitCode !== null) throw new Error(`virtual PLC exited: ${out}`);
    },
    async stop() {
      if (s7) { await s7.close().catch(() => {}); s7 = null; }
      if (child && child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGINT');
        await exited;
      }
      child = null;
    },
    /** Every tag's value, read over S7 as any client would. */
    async values() {
      if (!s7) s7 = await s7Connect(s7Port);
      const raw = await s7.read(tags.tags.map((t) => t.s7));
      return Object.fromEntries(tags.tags.map((t) => [t.short, typeof raw[t.s7] === 'boolean' ? Number(raw[t.s7]) : raw[t.s7]]));
    },
    async setInputs(values) {
      if (!s7) s7 = await s7Connect(s7Port);
      await s7.write(Object.fromEntries(Object.entries(values).map(([k, v]) => [tags.get(k).s7, tags.get(k).type === 'BOOL' ? Boolean(v) : v])));
    },
  };
  await plc.start();
  return plc;
}

/**
 * Start PLC + cloud + edge for the WebSocket–S7 path.
 * @param {{cloudPort?: number, plc?: object, cloudParts?: string[], env?: object}} [opts] cloudParts: the
 *   cloud's flow parts (default cloud-ws; the browser twin adds cloud-twin-ui)
 * @returns {Promise<{plc, cloud, edge, env, twinUrl: string, startCloud: () => Promise<object>, stop: () => Promise<void>}>}
 */
async function startWsSystem(opts = {}) {
  const plc = opts.plc || (await startPlcProcess());
  const cloudPort = opts.cloudPort || (await freePort());
  const env = {
    S7T_TWIN_TOKEN: TOKENS.twin,
    S7T_VIEWER_TOKEN: TOKENS.viewer,
    S7T_EDGE_TOKEN: TOKENS.edge,
    S7T_CLOUD_URL: `ws://127.0.0.1:${cloudPort}/s7twin/edge`,
    S7T_PLC_HOST: '127.0.0.1',
    S7T_PLC_PORT: String(plc.ports.s7),
    ...(opts.env || {}),
  };
  const cloudFlows = () => (opts.cloudParts || ['cloud-ws']).flatMap(part);
  const sys = {
    plc,
    env,
    cloud: null,
    edge: null,
    twinUrl: `ws://127.0.0.1:${cloudPort}/s7twin/twin`,
    token: TOKENS.twin,
    /** (Re)start the cloud on the same port, e.g. after stopping it to test the edge's reconnect. */
    async startCloud() {
      sys.cloud = await startNodeRed({ role: 'cloud', port: cloudPort, flows: cloudFlows(), env });
      return sys.cloud;
    },
    async startEdge() {
      sys.edge = await startNodeRed({ role: 'edge', flows: part('edge-ws'), env });
      return sys.edge;
    },
    async stop() {
      if (sys.edge) await sys.edge.stop();
      if (sys.cloud) await sys.cloud.stop();
      if (!opts.plc) await plc.stop();
    },
  };
  try {
    await sys.startCloud();
    await sys.startEdge();
  } catch (err) {
    await sys.stop();
    throw err;
  }
  return sys;
}

/**
 * Environment on which a whole flow (flows/cloud.json or flows/edge.json) starts on this machine
 * without a counterpart: the cloud's listeners on free ports, its MQTT monitor user, and for the
 * edge addresses where nothing answers (it keeps retrying).
 * @param {'cloud'|'edge'} role
 * @returns {Promise<object>}
 */
async function wholeFlowEnv(role) {
  const env = { S7T_TWIN_TOKEN: TOKENS.twin, S7T_EDGE_TOKEN: TOKENS.edge };
  if (role === 'cloud') {
    for (const k of ['S7T_MQTT_PORT', 'S7T_MQTT_WS_PORT', 'S7T_OPCUA_PORT', 'S7T_MODBUS_PORT']) env[k] = String(await freePort());
    Object.assign(env, { S7T_MQTT_USERS: 'monitor:test-monitor-pw:monitor', S7T_MQTT_MONITOR_USER: 'monitor', S7T_MQTT_MONITOR_PASSWORD: 'test-monitor-pw' });
  } else {
    const closed = String(await freePort());
    Object.assign(env, { S7T_CLOUD_URL: `ws://127.0.0.1:${closed}/s7twin/edge`, S7T_PLC_PORT: closed, S7T_PLC_OPCUA_PORT: closed,
      S7T_PLC_MODBUS_PORT: closed, S7T_MODBUS_CLOUD_PORT: closed, S7T_OPCUA_URL: `opc.tcp://127.0.0.1:${closed}` });
  }
  return env;
}

module.exports = { startWsSystem, startPlcProcess, wholeFlowEnv, TOKENS };
