'use strict';
/**
 * OPC UA interface of the virtual PLC (node-opcua), shaped like an S7-1500's built-in server:
 * namespace index 3 is "http://www.siemens.com/simatic-s7-opcua" and node ids are the table's
 * (`ns=3;s="DB1"."ConveyorBelt"`, probes `ns=3;s="Probe"."Req"[i]` / `ns=3;s="Probe"."Res"[i]`).
 *
 * - Inputs and probe requests are writable; a write is validated and queued for the next scan
 *   (the value read back changes after that scan, as with any write to a PLC's input image).
 * - Outputs, counters and probe responses are read-only: a write gets BadNotWritable.
 * - Unknown node ids get BadNodeIdUnknown (the server's own check).
 * - Read-only values are pushed with setValueFromSource after each scan, only when they change,
 *   so monitored items report without polling. minimumSamplingInterval equals the scan time:
 *   sampling faster than the PLC can change anything would only cost CPU.
 * - Security mode None with anonymous access, as a lab PLC is usually set up; the certificate
 *   and PKI live under `pkiDir` (default os.tmpdir()/s7twin-plc-pki), created on first start and
 *   reused after, so there is never a prompt.
 */
const os = require('node:os');
const path = require('node:path');
const tags = require('../nodes/lib/core/tags');

const DEFAULTS = {
  host: '127.0.0.1',
  port: 4840,
  pkiDir: path.join(os.tmpdir(), 's7twin-plc-pki'),
  maxSessions: 50,
};
const NS_PADDING = 'http://opcfoundation.org/UA/DI/'; // ns=2 on a real S7-1500
const NS_S7 = 'http://www.siemens.com/simatic-s7-opcua'; // ns=3 on a real S7-1500

/**
 * Start the OPC UA server.
 * @param {object} image the process image
 * @param {{host?:string, port:number, pkiDir?:string, scanMs:number, counters:object,
 *   setInputs:Function, setProbe:Function}} opts port must be a real port (the caller picks a free one)
 * @returns {Promise<{port:number, endpoint:string, afterScan(ev):void, stop():Promise<void>}>}
 */
async function startOpcua(image, opts) {
  const cfg = { ...DEFAULTS, ...opts };
  const c = cfg.counters;
  Object.assign(c, { opcuaWrites: 0, opcuaWriteRejected: 0 });
  // node-opcua is heavy (about 1 s to load): only a PLC with OPC UA on pays for it.
  const {
    OPCUAServer, OPCUACertificateManager, Variant, DataType, StatusCodes, MessageSecurityMode, SecurityPolicy,
  } = require('node-opcua');
  const { lowerFloors } = require('../nodes/lib/opcua/server');
  const DT = { BOOL: DataType.Boolean, INT: DataType.Int16, DINT: DataType.Int32, UDINT: DataType.UInt32 };
  const toUa = (tag, v) => (tag.type === 'BOOL' ? Boolean(v) : v);

  const serverCertificateManager = new OPCUACertificateManager({
    rootFolder: path.join(cfg.pkiDir, 'server'), automaticallyAcceptUnknownCertificate: true,
  });
  const userCertificateManager = new OPCUACertificateManager({
    rootFolder: path.join(cfg.pkiDir, 'user'), automaticallyAcceptUnknownCertificate: true,
  });
  // A real S7-1500 samples at its cycle; node-opcua's class-wide 50 ms floors would add up to
  // 50 ms to every round trip whatever a client asks for, so lower them to the scan time.
  lowerFloors(cfg.scanMs, cfg.scanMs);
  const server = new OPCUAServer({
    host: cfg.host,
    // Bound to every interface, it advertises (and names in its certificate) the machine's host
    // name, the name clients dial (compose: plc), not 0.0.0.0.
    hostname: cfg.host === '0.0.0.0' || cfg.host === '::' ? os.hostname() : cfg.host,
    port: cfg.port,
    serverCertificateManager,
    userCertificateManager,
    securityModes: [MessageSecurityMode.None],
    securityPolicies: [SecurityPolicy.None],
    allowAnonymous: true,
    maxConnectionsPerEndpoint: cfg.maxSessions,
    buildInfo: { productName: 's7twin virtual S7-1500', manufacturerName: 's7twin', softwareVersion: '1.0.0' },
    serverInfo: { applicationName: { text: 's7twin virtual S7-1500', locale: 'en' } },
  });
  try {
    await server.initialize();
  } catch (err) {
    const e = new Error(`OPC UA server cannot initialise: ${err.message}`);
    e.code = 'E_OPCUA_START';
    throw e;
  }

  const addressSpace = server.engine.addressSpace;
  // Namespaces are indexed in registration order; pad so ours gets index 3 like on an S7-1500.
  while (addressSpace.getNamespaceArray().length < 3) {
    addressSpace.registerNamespace(addressSpace.getNamespaceArray().length === 2 ? NS_PADDING : `urn:s7twin:pad:${addressSpace.getNamespaceArray().length}`);
  }
  const ns = addressSpace.registerNamespace(NS_S7);
  if (ns.index !== 3) {
    await server.shutdown(0);
    const e = new Error(`OPC UA namespace got index ${ns.index}, expected 3`);
    e.code = 'E_OPCUA_START';
    throw e;
  }
  const objects = addressSpace.rootFolder.objects;
  const db1 = ns.addObject({ organizedBy: objects, browseName: 'DB1', nodeId: 's="DB1"' });
  const probe = ns.addObject({ organizedBy: objects, browseName: 'Probe', nodeId: 's="Probe"' });
  const reqFolder = ns.addObject({ componentOf: probe, browseName: 'Req', nodeId: 's="Probe"."Req"' });
  const resFolder = ns.addObject({ componentOf: probe, browseName: 'Res', nodeId: 's="Probe"."Res"' });
  const RW = 'CurrentRead | CurrentWrite';
  const RO = 'CurrentRead';
  const base = { minimumSamplingInterval: cfg.scanMs };

  const rejected = (err) => {
    c.opcuaWriteRejected += 1;
    return err.code === 'E_RANGE' ? StatusCodes.BadOutOfRange : StatusCodes.BadTypeMismatch;
  };

  const outVars = new Map(); // short → UAVariable
  const values0 = image.values();
  for (const t of tags.tags) {
    const dataType = DT[t.type];
    if (t.dir === 'in') {
      ns.addVariable({
        ...base, componentOf: db1, browseName: t.name, nodeId: t.opcua, dataType, accessLevel: RW, userAccessLevel: RW,
        value: {
          get: () => new Variant({ dataType, value: toUa(t, tags.readTag(image.db1, t)) }),
          set: (variant) => {
            try {
              cfg.setInputs({ [t.short]: variant.value });
              c.opcuaWrites += 1;
              return StatusCodes.Good;
            } catch (err) { return rejected(err); }
          },
        },
      });
    } else {
      outVars.set(t.short, ns.addVariable({
        ...base, componentOf: db1, browseName: t.name, nodeId: t.opcua, dataType, accessLevel: RO, userAccessLevel: RO,
        value: { dataType, value: toUa(t, values0[t.short]) },
      }));
    }
  }
  const resVars = [];
  for (let i = 0; i < image.probeSlots; i++) {
    ns.addVariable({
      ...base, componentOf: reqFolder, browseName: `Req[${i}]`, nodeId: tags.template(tags.TABLE.probe.opcuaRequest, { i }),
      dataType: DataType.UInt32, accessLevel: RW, userAccessLevel: RW,
      value: {
        get: () => new Variant({ dataType: DataType.UInt32, value: image.probeRequest(i) }),
        set: (variant) => {
          try {
            cfg.setProbe(i, variant.value);
            c.opcuaWrites += 1;
            return StatusCodes.Good;
          } catch (err) { return rejected(err); }
        },
      },
    });
    resVars.push(ns.addVariable({
      ...base, componentOf: resFolder, browseName: `Res[${i}]`, nodeId: tags.template(tags.TABLE.probe.opcuaResponse, { i }),
      dataType: DataType.UInt32, accessLevel: RO, userAccessLevel: RO,
      value: { dataType: DataType.UInt32, value: image.probeResponse(i) },
    }));
  }

  try {
    await server.start();
  } catch (err) {
    await server.shutdown(0).catch(() => {});
    const e = new Error(`OPC UA server cannot listen on ${cfg.host}:${cfg.port}: ${err.message}`);
    e.code = 'E_OPCUA_START';
    throw e;
  }
  const endpoint = `opc.tcp://${cfg.host}:${cfg.port}`;
  let stopped = false;

  return {
    port: cfg.port,
    endpoint,
    /** Push the outputs and probe responses that changed in this scan. */
    afterScan(ev) {
      for (const [k, v] of Object.entries(ev.changed)) {
        const variable = outVars.get(k);
        if (variable) {
          const t = tags.get(k);
          variable.setValueFromSource(new Variant({ dataType: DT[t.type], value: toUa(t, v) }));
        }
      }
      for (const i of ev.probes) {
        resVars[i].setValueFromSource(new Variant({ dataType: DataType.UInt32, value: image.probeResponse(i) }));
      }
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.shutdown(0);
    },
  };
}

module.exports = { startOpcua, DEFAULTS, NS_S7 };
