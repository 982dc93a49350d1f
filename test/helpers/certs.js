'use strict';
/**
 * A throwaway CA and server certificates for the TLS tests, made with the openssl command line
 * (Debian's openssl; scripts/system-deps.sh installs it where missing). openssl rather than a
 * JavaScript generator: it is what an operator runs to make these files, Node's crypto cannot
 * sign X.509 certificates, and no extra package is needed. EC P-256 keys: made in milliseconds.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const openssl = (args, cwd) => execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * Make a CA and, signed by it, one server certificate naming `names` (DNS names and IP addresses).
 * @param {object} [opts]
 * @param {string[]} [opts.names] default ['localhost', '127.0.0.1']
 * @param {string} [opts.dir] default a new temporary folder
 * @returns {{dir:string, ca:string, key:string, cert:string, caPem:Buffer, keyPem:Buffer, certPem:Buffer, remove:()=>void}}
 *   file paths and contents
 */
function makeCerts(opts = {}) {
  const names = opts.names || ['localhost', '127.0.0.1'];
  const dir = opts.dir || fs.mkdtempSync(path.join(os.tmpdir(), 's7t-certs-'));
  fs.mkdirSync(dir, { recursive: true });
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(['req', '-x509', ...ecKey, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=s7twin test CA'], dir);
  openssl(['req', ...ecKey, '-keyout', 'key.pem', '-out', 'server.csr', '-subj', `/CN=${names[0]}`], dir);
  const san = names.map((n) => (/^[\d.]+$|:/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
  fs.writeFileSync(path.join(dir, 'ext.cnf'), `subjectAltName=${san}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n`);
  openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial',
    '-out', 'cert.pem', '-days', '2', '-extfile', 'ext.cnf'], dir);
  // Readable by a container's non-root user too (the files are throwaway).
  for (const f of ['ca.pem', 'key.pem', 'cert.pem']) fs.chmodSync(path.join(dir, f), 0o644);
  fs.chmodSync(dir, 0o755);
  const file = (f) => path.join(dir, f);
  return {
    dir,
    ca: file('ca.pem'),
    key: file('key.pem'),
    cert: file('cert.pem'),
    caPem: fs.readFileSync(file('ca.pem')),
    keyPem: fs.readFileSync(file('key.pem')),
    certPem: fs.readFileSync(file('cert.pem')),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

module.exports = { makeCerts };
