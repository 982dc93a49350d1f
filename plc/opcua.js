'use strict';
/**
 * OPC UA interface of the virtual PLC (node-opcua), shaped like an S7-1500's built-in server:
 * namespace index 3 is "http://www.siemens.com/simatic-s7-opcua" and node ids are the table's
 * (`ns=3;s="DB1"."ConveyorBelt"`, an M area tag `ns=3;s="ValveOpen"`, probes
 * `ns=3;s="Probe"."Req"[i]` / `ns=3;s="Probe"."Res"[i]`); one folder per data block, the M
 * area's tags under Memory, each variable of its tag's OPC UA type (REAL as Float, STRING as
 * String, …: nodes/lib/opcua/tags.js).
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
const ot = require('../nodes/lib/opcua/tags');

const DEFAULTS = {
  host: '127.0.0.1',
  port: 4840,
  pkiDir: path.join(os.tmpdir(), 's7twin-plc-pki'),
  maxSessions: 50,
};
const NS_PADDING = 'http://opcfoundation.org/UA/DI/'; // ns=2 on a real S7-1500
const NS_S7 = 'http://www.siemens.com/simatic-s7-opcua'; // ns=3 on a real S7-1500
const RW = 'CurrentRead | CurrentWrite';
const RO = 'CurrentRead';
const toUa = (tag, v) => (tag.type === 'BOOL' ? Boolean(v) : v);

/** An error of the server's start, with the stable code E_OPCUA_START. */
function startError(message) {
  return Object.assign(new Error(message), { code: 'E_OPCUA_START' });
}

/**
 * The status of a write the PLC refused: out of range, else the wrong type.
 * @param {Error} err from setInputs / setProbe (E_RANGE, E_TYPE, ...)
 * @param {object} StatusCodes node-opcua's
 * @returns {object} BadOutOfRange or BadTypeMismatch
 */
function refusal(err, StatusCodes) {
  return err.code === 'E_RANGE' ? StatusCodes.BadOutOfRange : StatusCodes.BadTypeMismatch;
}

/**
 * The node-opcua server, not initialised: security None and anonymous, as a lab PLC is usually set
 * up, with the certificates under pkiDir.
 * @param {object} opcua node-opcua
 * @param {object} cfg startOpcua's options with defaults
 */
function createServer(opcua, cfg) {
  const { OPCUAServer, OPCUACertificateManager, MessageSecurityMode, SecurityPolicy } = opcua;
  const serverCertificateManager = new OPCUACertificateManager({
    rootFolder: path.join(cfg.pkiDir, 'server'), automaticallyAcceptUnknownCertificate: true,
  });
  const userCertificateManager = new OPCUACertificateManager({
    rootFolder: path.join(cfg.pkiDir, 'user'), automaticallyAcceptUnknownCertificate: true,
  });
  return new OPCUAServer({
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
}

/**
 * Register the S7 namespace, at index 3 as on an S7-1500: namespaces are indexed in registration
 * order, so the ones before it are padded (index 2 is the DI namespace on a real S7-1500).
 * @param {object} addressSpace
 * @returns {object} the namespace (its index is 3 unless more were registered before)
 */
function registerS7Namespace(addressSpace) {
  while (addressSpace.getNamespaceArray().length < 3) {
    const n = addressSpace.getNamespaceArray().length;
    addressSpace.registerNamespace(n === 2 ? NS_PADDING : `urn:s7twin:pad:${n}`);
  }
  return addressSpace.registerNamespace(NS_S7);
}

/**
 * The folder of a tag's area: one object per data block (`s="DB10"`), the M area's tags under
 * Memory, as an S7-1500 shows them.
 */
function folderOf(ns, objects, folders, tag) {
  const key = tag.addr.key;
  if (!folders.has(key)) {
    const name = key === 'M' ? 'Memory' : key;
    folders.set(key, ns.addObject({ organizedBy: objects, browseName: name, nodeId: `s="${name}"` }));
  }
  return folders.get(key);
}

/**
 * The table's variables, one per tag: inputs read the image and queue a write for the next scan,
 * outputs are read-only and pushed after each scan (returned by short name).
 * @returns {Map<string, object>} short -> output UAVariable
 * @throws {Error} E_OPCUA_START for a tag whose node id is not in the S7 namespace (ns=3)
 */
function addTagVariables(ns, objects, { opcua, image, cfg, written }) {
  const { Variant, DataType } = opcua;
  const { table } = image;
  const folders = new Map();
  const outVars = new Map();
  const values0 = image.values();
  for (const t of table.tags) {
    if (!t.opcua.startsWith('ns=3;')) throw startError(`tag "${t.short}": the virtual PLC serves node ids in ns=3 only, not ${t.opcua}`);
    const dataType = DataType[ot.dataTypeOf(t)];
    const base = { minimumSamplingInterval: cfg.scanMs, componentOf: folderOf(ns, objects, folders, t), browseName: t.name, nodeId: t.opcua, dataType };
    if (t.dir === 'in') {
      ns.addVariable({
        ...base, accessLevel: RW, userAccessLevel: RW,
        value: {
          get: () => new Variant({ dataType, value: toUa(t, table.readTag(image.bufs[t.addr.key], t)) }),
          set: (variant) => written(() => cfg.setInputs({ [t.short]: ot.fromVariant(t, variant.value) })),
        },
      });
    } else {
      outVars.set(t.short, ns.addVariable({ ...base, accessLevel: RO, userAccessLevel: RO, value: { dataType, value: toUa(t, values0[t.short]) } }));
    }
  }
  return outVars;
}

/**
 * The probe slots: Req[i] writable (queued for the next scan), Res[i] read-only and pushed after
 * each scan (returned by slot).
 * @returns {object[]} slot -> Res UAVariable
 */
function addProbeVariables(ns, objects, { opcua, image, cfg, written }) {
  const { Variant, DataType } = opcua;
  const { table } = image;
  const probe = ns.addObject({ organizedBy: objects, browseName: 'Probe', nodeId: 's="Probe"' });
  const reqFolder = ns.addObject({ componentOf: probe, browseName: 'Req', nodeId: 's="Probe"."Req"' });
  const resFolder = ns.addObject({ componentOf: probe, browseName: 'Res', nodeId: 's="Probe"."Res"' });
  const base = { minimumSamplingInterval: cfg.scanMs, dataType: DataType.UInt32 };
  const resVars = [];
  for (let i = 0; i < image.probeSlots; i++) {
    ns.addVariable({
      ...base, componentOf: reqFolder, browseName: `Req[${i}]`, nodeId: table.template(table.TABLE.probe.opcuaRequest, { i }),
      accessLevel: RW, userAccessLevel: RW,
      value: {
        get: () => new Variant({ dataType: DataType.UInt32, value: image.probeRequest(i) }),
        set: (variant) => written(() => cfg.setProbe(i, variant.value)),
      },
    });
    resVars.push(ns.addVariable({
      ...base, componentOf: resFolder, browseName: `Res[${i}]`, nodeId: table.template(table.TABLE.probe.opcuaResponse, { i }),
      accessLevel: RO, userAccessLevel: RO,
      value: { dataType: DataType.UInt32, value: image.probeResponse(i) },
    }));
  }
  return resVars;
}

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
  const opcua = require('node-opcua');
  const { Variant, DataType } = opcua;
  const { lowerFloors } = require('../nodes/lib/opcua/server');
  // A real S7-1500 samples at its cycle; node-opcua's class-wide 50 ms floors would add up to
  // 50 ms to every round trip whatever a client asks for, so lower them to the scan time.
  lowerFloors(cfg.scanMs, cfg.scanMs, opcua);
  const server = createServer(opcua, cfg);
  try {
    await server.initialize();
  } catch (err) {
    throw startError(`OPC UA server cannot initialise: ${err.message}`);
  }
  const addressSpace = server.engine.addressSpace;
  const ns = registerS7Namespace(addressSpace);
  if (ns.index !== 3) {
    await server.shutdown(0);
    throw startError(`OPC UA namespace got index ${ns.index}, expected 3`);
  }
  /** A write to an input or probe request: applied (queued for the next scan), or refused and counted. */
  const written = (apply) => {
    try {
      apply();
      c.opcuaWrites += 1;
      return opcua.StatusCodes.Good;
    } catch (err) {
      c.opcuaWriteRejected += 1;
      return refusal(err, opcua.StatusCodes);
    }
  };
  const objects = addressSpace.rootFolder.objects;
  let outVars;
  try {
    outVars = addTagVariables(ns, objects, { opcua, image, cfg, written });
  } catch (err) {
    await server.shutdown(0);
    throw err;
  }
  const resVars = addProbeVariables(ns, objects, { opcua, image, cfg, written });
  try {
    await server.start();
  } catch (err) {
    await server.shutdown(0).catch(() => {});
    throw startError(`OPC UA server cannot listen on ${cfg.host}:${cfg.port}: ${err.message}`);
  }
  let stopped = false;

  return {
    port: cfg.port,
    endpoint: `opc.tcp://${cfg.host}:${cfg.port}`,
    /** Push the outputs and probe responses that changed in this scan. */
    afterScan(ev) {
      for (const [k, v] of Object.entries(ev.changed)) {
        const variable = outVars.get(k);
        if (variable) {
          const t = image.table.get(k);
          variable.setValueFromSource(new Variant({ dataType: DataType[ot.dataTypeOf(t)], value: toUa(t, v) }));
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

module.exports = { startOpcua, DEFAULTS, NS_S7, registerS7Namespace, refusal };
