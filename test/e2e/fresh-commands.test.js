'use strict';
/**
 * No path writes the PLC with anything but a fresh command (a stale image written by a bridge that
 * starts would undo what twins on other paths set). One system, kept for the
 * whole file: a virtual PLC (S7, OPC UA, Modbus), a cloud Node-RED with the OPC UA and Modbus
 * tabs, an edge Node-RED with their edge tabs (the OPC UA bridge with its probe relay, the Modbus
 * loops with their probe relay). The PLC's inputs and a probe request slot are set over S7, as the
 * WebSocket path would set them, while the cloud's OPC UA and Modbus images hold other (stale)
 * values; then the edge starts, restarts, and the cloud restarts. After each, once the edge's
 * bridges are demonstrably past their start (their /s7twin/stats counters: a baseline and reads
 * after it) and the PLC has scanned some more, no input and no probe request of the PLC changed,
 * scan by scan. Fresh commands and probes from OPC UA and Modbus twins still reach the PLC.
 * (MQTT has no edge bridge: its part is in test/nodes/lib/mqtt/server.test.js and test/plc/mqtt.test.js.)
 */
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const ModbusRTU = require('modbus-serial');
const { startNodeRed, freePort, waitFor, nodeStats } = require('../helpers/nodered');
const { s7Connect } = require('../helpers/plc');
const { pkiDir } = require('../helpers/opcua');
const { createPlc } = require('../../plc');
const { createSession } = require('../../nodes/lib/opcua/session');
const ot = require('../../nodes/lib/opcua/tags');
const tags = require('../../nodes/lib/core/io-table').demoTable();
const codec = require('../../nodes/lib/modbus/codec');
const opcuaTwin = require('../../twin/transports/opcua');
const modbusTwin = require('../../twin/transports/modbus');

const part = (name) => JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'flows', 'parts', `${name}.json`), 'utf8'));
const TWIN = { user: 'twin', password: 'twin' };
/** The OPC UA nodes have no default password: the cloud gets both accounts', the edge its own. */
const PASSWORDS = { S7T_OPCUA_TWIN_PASSWORD: TWIN.password, S7T_OPCUA_EDGE_PASSWORD: 'edge' };
const SLOTS = 16; // probe slots relayed on both paths (one Modbus block)
const SLOT = 5; // the probe slot the S7 side sets and the stale images hold
const WAIT_MS = 60000; // generous: a loaded 2-core CI machine

describe('fresh commands only: edge start and restart, cloud restart (OPC UA and Modbus paths)', () => {
  const sys = {};
  const changes = []; // every scan in which a PLC input or probe request changed
  let watching = false;

  before(async () => {
    sys.ports = { opcua: await freePort(), modbus: await freePort() };
    sys.plc = await createPlc({
      scanMs: 10,
      s7: { host: '127.0.0.1', port: await freePort() },
      opcua: { host: '127.0.0.1', port: await freePort(), pkiDir: pkiDir('plc') },
      modbus: { host: '127.0.0.1', port: 0 },
    });
    sys.plc.on('scan', (ev) => {
      const inputs = Object.keys(ev.changed).filter((k) => tags.get(k).dir === 'in');
      if (watching && (inputs.length || ev.probes.length)) {
        changes.push({ scan: ev.scans, inputs: Object.fromEntries(inputs.map((k) => [k, ev.changed[k]])), probes: ev.probes });
      }
    });
    sys.s7 = await s7Connect(sys.plc.ports.s7);
    sys.cloudOpts = {
      role: 'cloud', flows: [...part('cloud-opcua'), ...part('cloud-modbus')],
      env: {
        S7T_OPCUA_PORT: String(sys.ports.opcua), S7T_OPCUA_PKI_DIR: pkiDir('cloud-server'), S7T_OPCUA_PROBE_SLOTS: String(SLOTS),
        S7T_MODBUS_PORT: String(sys.ports.modbus), S7T_MODBUS_CLOUD_POLL_MS: '20', ...PASSWORDS,
      },
    };
    sys.edgeOpts = {
      role: 'edge', flows: [...part('edge-opcua'), ...part('edge-modbus')],
      env: {
        S7T_PLC_HOST: '127.0.0.1', S7T_PLC_OPCUA_PORT: String(sys.plc.ports.opcua), S7T_OPCUA_URL: `opc.tcp://127.0.0.1:${sys.ports.opcua}`,
        S7T_OPCUA_CLIENT_PKI_DIR: pkiDir('edge-client'), S7T_OPCUA_PROBE_SLOTS: String(SLOTS),
        S7T_MODBUS_CLOUD_PORT: String(sys.ports.modbus), S7T_PLC_MODBUS_PORT: String(sys.plc.ports.modbus),
        S7T_MODBUS_POLL_MS: '20', S7T_MODBUS_RECONNECT_MS: '500', S7T_MODBUS_PROBE_SLOTS: String(SLOTS),
        S7T_OPCUA_EDGE_PASSWORD: PASSWORDS.S7T_OPCUA_EDGE_PASSWORD,
      },
    };
    sys.cloud = await startNodeRed(sys.cloudOpts);
  });

  after(async () => {
    await Promise.allSettled([sys.edge && sys.edge.stop(), sys.cloud && sys.cloud.stop()]);
    if (sys.s7) await sys.s7.close();
    if (sys.plc) await sys.plc.stop();
  });

  /** The cloud's images as a twin left them: OPC UA command variables and Req, Modbus HR0 and a probe request. */
  async function setCloudImages(values, probe) {
    const side = createSession({ endpointUrl: `opc.tcp://127.0.0.1:${sys.ports.opcua}`, credentials: TWIN, pkiDir: pkiDir('client'), name: 'stale-twin' });
    try {
      await waitFor(() => side.connect().then(() => true), WAIT_MS, 'the cloud OPC UA server');
      const items = Object.entries(values).map(([k, v]) => {
        const tag = tags.get(k);
        const variant = ot.toVariant(tag, v);
        return { nodeId: ot.cloudNodeId(tag, { plant: 'plant1' }), dataType: variant.dataType, value: variant.value };
      });
      items.push({ nodeId: ot.probeNodeId('req', SLOT), dataType: 'UInt32', value: probe.opcua });
      const r = await side.write(items);
      assert.ok(r.every((x) => x.good), JSON.stringify(r));
    } finally {
      await side.close();
    }
    const mb = new ModbusRTU();
    await waitFor(() => mb.connectTCP('127.0.0.1', { port: sys.ports.modbus }).then(() => true), WAIT_MS, 'the cloud Modbus server');
    mb.setID(1);
    mb.setTimeout(5000);
    try {
      await mb.writeRegister(codec.COMMAND_REGISTER, tags.packRegister(codec.COMMAND_REGISTER, values));
      await mb.writeRegisters(codec.PROBE_REQUEST_BASE + 2 * SLOT, [probe.modbus >>> 16, probe.modbus & 0xffff]);
    } finally {
      await new Promise((resolve) => mb.close(resolve));
    }
  }

  /** Set the PLC's inputs and probe request SLOT over S7, as the WebSocket path does. */
  async function setPlcOverS7(values, probe) {
    const map = Object.fromEntries(tags.inputs.filter((t) => t.cloudWritable).map((t) => [t.s7, Boolean(values[t.short])]));
    map[`DB2,DWORD${4 * SLOT}`] = probe;
    await sys.s7.write(map);
    const applied = () => sys.plc.probeResponse(SLOT) === probe
      && tags.inputs.every((t) => !t.cloudWritable || sys.plc.values()[t.short] === (values[t.short] ? 1 : 0));
    await waitFor(applied, WAIT_MS, 'the S7 writes applied');
  }

  /** The edge's counters (GET /s7twin/stats): the OPC UA bridge, and the two codecs towards the PLC. */
  async function edgeStats() {
    const s = await nodeStats(sys.edge);
    return { opcua: s['OPC UA bridge'], cmd: s['commands → PLC'], probes: s['probe requests → PLC'] };
  }

  /**
   * Every bridge towards the PLC has had its baseline since `since` (counters before a start or
   * restart) and has gone on reading after it: past the moment a stale push would come.
   */
  async function bridgesPastStart(since) {
    await waitFor(async () => {
      if (changes.length) return true; // something reached the PLC: the assertion after will say what
      const s = await edgeStats();
      if (!s.opcua || !s.cmd || !s.probes) return false;
      return s.opcua.commands.baselines > since.opcua && s.opcua.probes.requests.baselines > since.opcuaProbes
        && s.opcua.commands.holding === false && s.opcua.probes.requests.holding === false
        && s.opcua.cloud.notifications >= since.notifications + 10 // the ten commands' initial values
        && s.cmd.baselines > since.cmd && s.cmd.updates >= since.cmdUpdates + 5
        && s.probes.baselines > since.probes && s.probes.updates >= since.probeUpdates + 5;
    }, WAIT_MS, 'the edge\'s bridges past their start (baselines, reads after them)');
    await sys.plc.waitScans(50); // and half a second of scans for anything late
  }

  async function counters() {
    const s = sys.edge ? await edgeStats().catch(() => ({})) : {};
    return {
      opcua: s.opcua ? s.opcua.commands.baselines : 0,
      opcuaProbes: s.opcua ? s.opcua.probes.requests.baselines : 0,
      notifications: s.opcua ? s.opcua.cloud.notifications : 0,
      cmd: s.cmd ? s.cmd.baselines : 0,
      cmdUpdates: s.cmd ? s.cmd.updates : 0,
      probes: s.probes ? s.probes.baselines : 0,
      probeUpdates: s.probes ? s.probes.updates : 0,
    };
  }

  function assertUntouched(label, expected, probe) {
    assert.deepEqual(changes, [], `${label}: the PLC's inputs or probe requests changed without a fresh command`);
    const v = sys.plc.values();
    for (const t of tags.inputs.filter((x) => x.cloudWritable)) assert.equal(v[t.short], expected[t.short] ? 1 : 0, `${label}: ${t.short}`);
    assert.equal(sys.plc.probeResponse(SLOT), probe, `${label}: probe slot ${SLOT}`);
  }

  // What the WebSocket path set in the PLC, and what the cloud's images still hold.
  const plcInputs = { se: 1, p1f: 1, sk: 1, sp: 1 };
  const stale = { st: 1, sd: 1, dmg: 1, sp: 0 };

  it('edge start: the cloud\'s stale OPC UA and Modbus images, inputs and probe requests, are not written into the PLC', async () => {
    await setCloudImages(stale, { opcua: 111, modbus: 222 });
    await setPlcOverS7(plcInputs, 0xabcd1234);
    watching = true;
    const since = await counters();
    sys.edge = await startNodeRed(sys.edgeOpts);
    await bridgesPastStart(since);
    assertUntouched('edge start', plcInputs, 0xabcd1234);
  });

  /**
   * A twin on one path (OPC UA or Modbus transport) sends a command and, optionally, a probe;
   * resolves when the PLC has the command and the probe came back.
   */
  async function twinCommand(protocol, values, probe) {
    const tr = protocol === 'opcua'
      ? opcuaTwin.createTransport({ url: `opc.tcp://127.0.0.1:${sys.ports.opcua}`, ...TWIN, mode: 'subscribe', pkiDir: pkiDir('twin-client') })
      : modbusTwin.createTransport({ url: `modbus://127.0.0.1:${sys.ports.modbus}`, pollMs: 20 });
    try {
      await tr.connect();
      tr.send(values);
      await waitFor(() => Object.entries(values).every(([k, v]) => sys.plc.values()[k] === v), WAIT_MS,
        `the ${protocol} twin's command ${JSON.stringify(values)} in the PLC`);
      if (probe) {
        const answer = new Promise((resolve) => tr.onProbe((slot, v) => { if (slot === probe.slot && v === probe.value) resolve(); }));
        tr.probe(probe.slot, probe.value);
        await answer;
      }
    } finally {
      await tr.close(); // before any restart: a transport rewrites its image when it reconnects
    }
  }

  it('fresh commands and probes from OPC UA and Modbus twins reach the PLC', async () => {
    watching = false;
    await twinCommand('opcua', { p2f: 1 }, { slot: 7, value: 70000007 });
    // HR0 carries all ten inputs (docs/modbus.md): the Modbus twin's command sets them all.
    await twinCommand('modbus', { p3f: 1, se: 1 }, { slot: 8, value: 80000008 });
    assert.equal(sys.plc.values().p2f, 0, 'HR0 is the whole input word: the OPC UA twin\'s p2f is overwritten');
  });

  it('edge restart: what the twins left in the cloud is not written over what S7 set since', async () => {
    // The cloud now holds the twins' commands (p2f on OPC UA, p3f and se on Modbus); the
    // WebSocket path then set other inputs and a fresh probe request.
    await sys.edge.stop();
    sys.edge = null;
    await setPlcOverS7({ st: 1, dmg: 1 }, 0x12345678);
    changes.length = 0;
    watching = true;
    const since = await counters(); // a new edge: its counters start from 0
    sys.edge = await startNodeRed(sys.edgeOpts);
    await bridgesPastStart(since);
    assertUntouched('edge restart', { st: 1, dmg: 1 }, 0x12345678);
  });

  it('cloud restart: the restarted cloud\'s images (zeros) are not written into the PLC', async () => {
    const since = await counters();
    await sys.cloud.stop();
    sys.cloud = await startNodeRed(sys.cloudOpts);
    await bridgesPastStart(since);
    assertUntouched('cloud restart', { st: 1, dmg: 1 }, 0x12345678);
  });

  it('after all that, fresh commands still reach the PLC on both paths', async () => {
    watching = false;
    await twinCommand('opcua', { p1b: 1 }, { slot: 10, value: 100000010 });
    await twinCommand('modbus', { sd: 1 }, { slot: 9, value: 90000009 });
  });
});
