'use strict';
/**
 * The TLS files of a deployment, read in one place:
 *
 *   S7T_TLS_KEY, S7T_TLS_CERT  PEM key and certificate this host serves: the Node-RED editor and
 *                              its WebSocket endpoints (https, wss; settings.js) and the MQTT
 *                              broker node (mqtts on its TCP port, wss on its WebSocket port)
 *   S7T_CA_FILE                PEM CA certificate(s) the clients here verify the servers they dial
 *                              with: the edge's link to the cloud, the virtual PLC's MQTT client,
 *                              the headless twin
 *
 * Half a setting is an error, never a silent fallback to plain text: a key without its certificate
 * (or the reverse), or a file that cannot be read or holds no PEM block, throws E_TLS_CONFIG.
 */
const fs = require('node:fs');
const { codedError } = require('../core/errors');

/** Error with a stable `code` (E_TLS_CONFIG). */
const TlsConfigError = codedError('TlsConfigError');

const set = (v) => v !== undefined && v !== null && String(v).trim() !== '';

/** Read a PEM file named by an environment variable, or throw saying which variable is wrong. */
function readPem(name, file, what) {
  let text;
  try {
    text = fs.readFileSync(file);
  } catch (err) {
    throw new TlsConfigError('E_TLS_CONFIG', `${name}=${file}: cannot read the ${what} (${err.code || err.message})`);
  }
  if (!/-----BEGIN [A-Z0-9 ]+-----/.test(text.toString('latin1'))) {
    throw new TlsConfigError('E_TLS_CONFIG', `${name}=${file}: not a PEM file (no -----BEGIN ...----- block)`);
  }
  return text;
}

/**
 * The key and certificate this host serves, or null when TLS is off (neither variable set).
 * @param {object} [env] default process.env
 * @returns {{key: Buffer, cert: Buffer, keyFile: string, certFile: string}|null}
 * @throws {TlsConfigError} E_TLS_CONFIG when only one is set or a file is unusable
 */
function serverTls(env = process.env) {
  const keyFile = env.S7T_TLS_KEY;
  const certFile = env.S7T_TLS_CERT;
  if (!set(keyFile) && !set(certFile)) return null;
  if (!set(keyFile) || !set(certFile)) {
    throw new TlsConfigError('E_TLS_CONFIG', `set both S7T_TLS_KEY and S7T_TLS_CERT (only ${set(keyFile) ? 'S7T_TLS_KEY' : 'S7T_TLS_CERT'} is set)`);
  }
  return {
    key: readPem('S7T_TLS_KEY', keyFile, 'private key'),
    cert: readPem('S7T_TLS_CERT', certFile, 'certificate'),
    keyFile,
    certFile,
  };
}

/**
 * The CA certificate(s) clients here verify servers with, or undefined when S7T_CA_FILE is not
 * set (then Node's own CA list, plus NODE_EXTRA_CA_CERTS, applies).
 * @param {object} [env] default process.env
 * @returns {Buffer|undefined}
 * @throws {TlsConfigError} E_TLS_CONFIG when the file is unusable
 */
function caFile(env = process.env) {
  if (!set(env.S7T_CA_FILE)) return undefined;
  return readPem('S7T_CA_FILE', env.S7T_CA_FILE, 'CA certificate');
}

module.exports = { serverTls, caFile, TlsConfigError };
