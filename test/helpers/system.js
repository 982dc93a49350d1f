'use strict';
/**
 * The whole WebSocket–S7 path for end-to-end tests, from the launcher (system/single.js): a
 * virtual PLC, a cloud and an edge Node-RED running the project's own flow parts, all on ephemeral
 * ports, and the test's view of the PLC (its values over S7, inputs set as a twin would).
 */
const { startSystem } = require('../../system/single');
const { createPlcProcess } = require('../../system/plc');
const { s7Connect } = require('../../system/s7');
const { freePort } = require('../../plc/net');
const tags = require('../../nodes/lib/core/io-table').demoTable();
const { nodeStats } = require('./nodered');

const TOKENS = { twin: 'test-twin-token', edge: 'test-edge-token', viewer: 'test-viewer-token' };

/**
 * The virtual PLC as its own process (S7 only), so a test can take it off the network and bring
 * it back on the same port, as a real PLC that drops off would.
 * @returns {Promise<{ports:{s7:number}, values:()=>Promise<object>, setInputs:(v:object)=>Promise<void>, stop:()=>Promise<void>, start:()=>Promise<void>}>}
 */
async function startPlcProcess() {
  const proc = createPlcProcess({ scanMs: 10, s7: { host: '127.0.0.1', port: 0 }, opcua: false, modbus: false, mqtt: false });
  let s7 = null;
  const plc = {
    get ports() { return proc.ports; },
    get pid() { return proc.pid; },
    logs: () => proc.logs(),
    /** Start it (again, on the same port). */
    async start() { return proc.start(); },
    async stop() {
      if (s7) { await s7.close().catch(() => {}); s7 = null; }
      await proc.stop();
    },
    /** Every tag's value, read over S7 as any client would. */
    async values() {
      if (!s7) s7 = await s7Connect(proc.ports.s7);
      const raw = await s7.read(tags.tags.map((t) => t.s7));
      return Object.fromEntries(tags.tags.map((t) => [t.short, typeof raw[t.s7] === 'boolean' ? Number(raw[t.s7]) : raw[t.s7]]));
    },
    async setInputs(values) {
      if (!s7) s7 = await s7Connect(proc.ports.s7);
      await s7.write(Object.fromEntries(Object.entries(values).map(([k, v]) => [tags.get(k).s7, tags.get(k).type === 'BOOL' ? Boolean(v) : v])));
    },
  };
  await plc.start();
  return plc;
}

/**
 * Start PLC + cloud + edge for the WebSocket–S7 path.
 * @param {{cloudParts?: string[], env?: object}} [opts] cloudParts: the cloud's flow parts (default
 *   cloud-ws; the browser twin adds cloud-twin-ui); env: S7T_* for both Node-RED processes
 * @returns {Promise<{plc, cloud, edge, twinUrl: string, token: string, startCloud: () => Promise<object>,
 *   startEdge: () => Promise<object>, stop: () => Promise<void>}>}
 */
async function startWsSystem(opts = {}) {
  const plc = await startPlcProcess();
  let sys;
  try {
    sys = await startSystem({
      protocols: ['ws'],
      parts: { cloud: opts.cloudParts || ['cloud-ws'], edge: ['edge-ws'] },
      credentials: { twinToken: TOKENS.twin, viewerToken: TOKENS.viewer, edgeToken: TOKENS.edge },
      plc,
      env: opts.env,
    });
  } catch (err) {
    await plc.stop();
    throw err;
  }
  return {
    plc,
    get cloud() { return sys.cloud; },
    get edge() { return sys.edge; },
    twinUrl: sys.endpoints.ws.url,
    token: TOKENS.twin,
    /** Start the cloud again on the same port, e.g. after stopping it to test the edge's reconnect. */
    startCloud: () => sys.restart('cloud'),
    /** Start the edge again. */
    startEdge: () => sys.restart('edge'),
    async stop() {
      await sys.stop();
      await plc.stop();
    },
  };
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

/**
 * For a failed test's output: the PLC's values and every node's counters of the cloud and the
 * edge, as they are now (what could not be read says why).
 * @param {{diagnostic(line: string): void}} t the test context
 * @param {{plc: object, cloud: object, edge: object}} sys a system of startWsSystem()
 */
async function dumpSystem(t, sys) {
  t.diagnostic(`the PLC: ${JSON.stringify(await sys.plc.values().catch((e) => e.message))}`);
  for (const side of ['cloud', 'edge']) t.diagnostic(`the ${side}'s nodes: ${JSON.stringify(await nodeStats(sys[side]).catch((e) => e.message))}`);
}

module.exports = { startWsSystem, startPlcProcess, wholeFlowEnv, dumpSystem, TOKENS };
