'use strict';
/**
 * The client certificates of every OPC UA client session in this process (session.js): one
 * certificate manager per PKI folder, and that folder's certificate created once. Two clients on a
 * fresh folder would both create the certificate and one would find the other's half-written
 * key: the first creates it, the others wait for that.
 */
const fs = require('node:fs');

// One application name for every client: they share the certificate of their PKI folder, and
// node-opcua wants the certificate's subjectAltName to match the client's applicationUri.
const APPLICATION_NAME = 's7twin-opcua-client';

let managers = new Map(); // pkiDir -> OPCUACertificateManager, one per folder
const ready = new Map(); // pkiDir -> promise of the client certificate existing

/**
 * The certificate manager of a PKI folder (the folder is created if missing).
 * @param {{OPCUACertificateManager: Function}} opcua node-opcua
 * @param {string} pkiDir
 * @returns {object} one manager per folder, the same for every call
 */
function certificateManager(opcua, pkiDir) {
  let cm = managers.get(pkiDir);
  if (!cm) {
    fs.mkdirSync(pkiDir, { recursive: true });
    cm = new opcua.OPCUACertificateManager({ rootFolder: pkiDir, automaticallyAcceptUnknownCertificate: true });
    managers.set(pkiDir, cm);
  }
  return cm;
}

/**
 * The folder's client certificate, created by the first client that asks (client.initializeCM);
 * a creation that failed is forgotten, so the next client tries again.
 * @param {{initializeCM(): Promise<void>}} client an OPCUAClient of that folder
 * @param {string} pkiDir
 * @returns {Promise<void>}
 */
function certificateReady(client, pkiDir) {
  let p = ready.get(pkiDir);
  if (!p) {
    p = client.initializeCM();
    ready.set(pkiDir, p);
    p.catch(() => ready.delete(pkiDir));
  }
  return p;
}

/** For tests: forget cached certificate managers. */
function resetCertificateManagers() { managers = new Map(); ready.clear(); }

module.exports = { APPLICATION_NAME, certificateManager, certificateReady, resetCertificateManagers };
