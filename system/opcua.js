'use strict';
/**
 * OPC UA helpers for the tools and tests that start the OPC UA path on this machine: a prepared
 * PKI folder per role (certificates are created once and reused, so nothing waits for key
 * generation twice), and a server-side count of monitored items read from the standard
 * diagnostics (Server/ServerDiagnostics/SubscriptionDiagnosticsArray, i=2290), which is how one
 * sees duplicates the clients themselves would not report.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** One PKI root, reused by every server and client started on this machine. */
const PKI_ROOT = path.join(os.tmpdir(), 's7twin-test-opcua-pki');

/**
 * A PKI folder for one role (created if missing).
 * @param {string} name e.g. 'cloud-server', 'client'
 */
function pkiDir(name) {
  const dir = path.join(PKI_ROOT, name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Monitored items the server holds, over all its subscriptions.
 * @param {string} endpointUrl
 * @param {{user:string,password:string}} [credentials] anonymous when absent
 * @returns {Promise<{items:number, subscriptions:number}>}
 */
async function countMonitoredItems(endpointUrl, credentials) {
  const { OPCUAClient, OPCUACertificateManager, UserTokenType, AttributeIds } = require('node-opcua');
  const client = OPCUAClient.create({
    endpointMustExist: false,
    connectionStrategy: { maxRetry: 0, initialDelay: 100, maxDelay: 200 },
    clientCertificateManager: new OPCUACertificateManager({ rootFolder: pkiDir('probe-client'), automaticallyAcceptUnknownCertificate: true }),
  });
  await client.connect(endpointUrl);
  try {
    const session = await client.createSession(credentials
      ? { type: UserTokenType.UserName, userName: credentials.user, password: credentials.password }
      : { type: UserTokenType.Anonymous });
    try {
      const dv = await session.read({ nodeId: 'ns=0;i=2290', attributeId: AttributeIds.Value });
      const arr = Array.isArray(dv.value.value) ? dv.value.value : [];
      return { items: arr.reduce((n, d) => n + d.monitoredItemCount, 0), subscriptions: arr.length };
    } finally {
      await session.close();
    }
  } finally {
    await client.disconnect();
  }
}

module.exports = { PKI_ROOT, pkiDir, countMonitoredItems };
