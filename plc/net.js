'use strict';
/** Small network helpers for the PLC's listeners. */
const net = require('node:net');

/**
 * Ask the OS for a free TCP port on `host`. Used where a server cannot report the port it bound
 * (snap7) or would advertise port 0 in its endpoints (node-opcua). There is a short window in
 * which another process could take the port; a start-up failure then says so (E_*_START).
 * @param {string} host
 * @returns {Promise<number>}
 */
function freePort(host) {
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

module.exports = { freePort };
