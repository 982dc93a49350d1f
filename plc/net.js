'use strict';
/**
 * Free TCP ports: the one home of this helper for the PLC, the bench and the tests (listen on
 * port 0, read the port the OS gave, close).
 */
const net = require('node:net');

/**
 * Ask the OS for a free TCP port on `host`. Used where a server cannot report the port it bound
 * (snap7) or would advertise port 0 in its endpoints (node-opcua), and by tests and the bench for
 * libraries that cannot take 0. There is a short window in which another process could take the
 * port; a start-up failure then says so (E_*_START).
 * @param {string} [host='127.0.0.1']
 * @returns {Promise<number>}
 */
function freePort(host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen({ host, port: 0, exclusive: true }, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Distinct free ports, one per name: all listeners are open at once before any closes, so the
 * kernel cannot hand the same port out twice.
 * @param {string[]} names
 * @param {string} [host='127.0.0.1']
 * @returns {Promise<Object<string, number>>}
 */
async function freePorts(names, host = '127.0.0.1') {
  const opened = await Promise.allSettled(names.map(() => new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen({ host, port: 0, exclusive: true }, () => resolve(srv));
  })));
  const servers = opened.filter((r) => r.status === 'fulfilled').map((r) => r.value);
  const ports = servers.length === names.length ? Object.fromEntries(names.map((n, i) => [n, servers[i].address().port])) : null;
  await Promise.all(servers.map((srv) => new Promise((r) => srv.close(r))));
  if (!ports) throw opened.find((r) => r.status === 'rejected').reason;
  return ports;
}

module.exports = { freePort, freePorts };
