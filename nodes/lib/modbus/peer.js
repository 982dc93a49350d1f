'use strict';
/**
 * One client connection of the cloud Modbus server: its bytes framed (lib/modbus/tcp.js), each
 * request answered by the register bank (lib/modbus/registers.js), and its limits kept.
 *
 * Connections not from `edgeHosts` have a request rate and an error budget
 * (lib/access/peer-limits.js): past either the request is answered with exception 06 (server
 * busy, all the protocol can say), the connection is closed and counted (rateLimited,
 * errorBudget). The edge is exempt: its relay polls back to back under load. A host name among
 * `edgeHosts` may have a new address (a recreated container): it is looked up before the
 * connection's first request is read.
 */
const mbtcp = require('./tcp');
const peerLimits = require('../access/peer-limits');

const EX = mbtcp.EXCEPTIONS;
const CLOSE_AFTER_MS = 1000; // a limited connection gets this long to read its exception

/**
 * Serve one accepted socket until it closes.
 * @param {import('node:net').Socket} sock
 * @param {object} p
 * @param {object} p.o the server's options: maxBuffered, ratePerS, burst, errors, errorWindowMs
 * @param {{matchesNow(a: string): boolean, matches(a: string): Promise<boolean>, hasNames: boolean}} p.sources
 *   lib/access/source-filter.js over edgeHosts
 * @param {{handle(pdu: Buffer, peer: object): object}} p.bank lib/modbus/registers.js
 * @param {object} p.counters the server's counters
 * @param {(ev: string, arg: object) => void} p.emit the server's 'write' and 'limited' events
 * @param {() => void} p.onClose the socket closed
 * @param {object} [p.commands] the command log's view of requests (lib/modbus/command-log.js)
 */
function servePeer(sock, p) {
  const { o, counters } = p;
  const from = sock.remoteAddress;
  const remote = `${from}:${sock.remotePort}`; // the command log names the connection
  const peer = { from, edge: p.sources.matchesNow(from), limits: null, closing: false };
  const limitPeer = () => {
    peer.limits = peer.edge ? null : peerLimits.createPeerLimits({ ratePerS: o.ratePerS, burst: o.burst, errors: o.errors, errorWindowMs: o.errorWindowMs });
  };
  limitPeer();
  if (!peer.edge && p.sources.hasNames) {
    sock.pause();
    p.sources.matches(from).then((edge) => { peer.edge = edge; limitPeer(); }, () => {}).finally(() => { if (!sock.destroyed) sock.resume(); });
  }
  /** Past a limit: answer this request with `res`, then close the connection. */
  const cut = (head, res, counter, why) => {
    counters[counter] += 1;
    peer.closing = true;
    sock.end(mbtcp.frame(head, res));
    setTimeout(() => sock.destroy(), CLOSE_AFTER_MS).unref();
    p.emit('limited', { code: why.code, message: why.message, from });
  };
  let buf = Buffer.alloc(0);
  sock.on('data', (data) => {
    if (peer.closing) return;
    counters.bytesIn += data.length;
    buf = buf.length ? Buffer.concat([buf, data]) : data;
    if (buf.length > o.maxBuffered) { counters.badFrames += 1; sock.destroy(); return; }
    for (let f = mbtcp.takeFrame(buf); f; f = mbtcp.takeFrame(buf)) {
      if (f.bad) { counters.badFrames += 1; sock.destroy(); return; } // not Modbus TCP
      const { head, pdu } = f;
      buf = f.rest;
      counters.requests += 1;
      const over = peer.limits && peer.limits.frame();
      if (over) {
        counters.exceptions += 1;
        if (p.commands) p.commands.limited(pdu, remote, head.readUInt16BE(0), over);
        cut(head, mbtcp.exceptionPdu(pdu[0], EX.BUSY), 'rateLimited', over);
        return;
      }
      const handled = p.bank.handle(pdu, peer);
      if (p.commands) p.commands.handled(handled, remote, head.readUInt16BE(0));
      const { res, write, exception: failed } = handled;
      const spent = failed && peer.limits && peer.limits.error();
      if (spent) { cut(head, res, 'errorBudget', spent); return; }
      const out = mbtcp.frame(head, res);
      counters.bytesOut += out.length;
      sock.write(out);
      if (write) p.emit('write', write);
    }
  });
  sock.on('error', () => {}); // a reset by the client is normal; 'close' follows
  sock.on('close', p.onClose);
}

module.exports = { servePeer, CLOSE_AFTER_MS };
