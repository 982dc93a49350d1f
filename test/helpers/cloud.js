'use strict';
/**
 * A cloud instance built from the libraries alone (no Node-RED): an HTTP server with a twin and an
 * edge endpoint (lib/link/endpoint.js), relayed both ways with their plants as the cloud flow
 * does (flows/parts/cloud-ws.json: link in → link out, msg.plant), and a twin endpoint's new
 * plant watched by the edge endpoint as s7twin-link-server does. Several of them on one backplane
 * (lib/fleet/backplane.js) are a fleet in one process.
 */
const http = require('node:http');
const { EventEmitter } = require('node:events');
const { createEndpoint } = require('../../nodes/lib/link/endpoint');
const clock = require('../../nodes/lib/core/clock');
const { openClient } = require('./nodes');

let edgeSeqBase = 0;

/**
 * @param {object} [opts]
 * @param {object} [opts.twin] twin endpoint options (default tokens ['tw'], viewer ['view'])
 * @param {object} [opts.edge] edge endpoint options (default tokens ['ed'])
 * @param {object} [opts.backplane] shared backplane (default: the edge endpoint's own, local)
 * @param {object} [opts.fleet] lib/fleet/member.js options for the edge endpoint
 */
async function startCloud(opts = {}) {
  const twins = createEndpoint({ path: '/t', role: 'twin', tokens: ['tw'], viewerTokens: ['view'], src: 'cloud-t', ...opts.twin });
  const edge = createEndpoint({ path: '/e', role: 'edge', tokens: ['ed'], src: 'cloud-e', backplane: opts.backplane, fleet: opts.fleet, ...opts.edge });
  const server = http.createServer((req, res) => { res.statusCode = 404; res.end(); });
  server.on('upgrade', (req, socket, head) => {
    if (!twins.handleUpgrade(req, socket, head) && !edge.handleUpgrade(req, socket, head)) socket.destroy();
  });
  const toEdge = [];
  twins.on('envelope', (env, id, plant) => {
    toEdge.push(env);
    if (edge.send(env, undefined, plant) === 0) twins.send(twins.errorFor(env, 'E_EDGE_DOWN', 'no edge'), undefined, plant);
  });
  edge.on('envelope', (env, id, plant) => twins.send(env, undefined, plant));
  twins.on('plant', (plant) => edge.watch(plant));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `ws://127.0.0.1:${server.address().port}`;
  const q = (plant) => (plant ? `?plant=${plant}` : '');
  return {
    twins, edge, toEdge, base, server,
    twin: (token = 'tw', plant) => openClient(`${base}/t${q(plant)}`, { token }),
    /** A raw edge that sends syncs only when told to. */
    async edgePeer(token = 'ed', plant) {
      const c = await openClient(`${base}/e${q(plant)}`, { token });
      let seq = 0;
      edgeSeqBase += 1000;
      const frameBase = edgeSeqBase;
      c.sync = async () => {
        c.send({ v: 1, k: 'sync', src: 'edge-link', seq: ++seq, ts: clock.now() });
        await c.next((f) => f.k === 'sync-res' && f.ref.seq === seq);
      };
      /** Keep syncing every `ms` (the edge's heartbeat) until stop() or the socket closes. */
      c.beat = (ms = 200) => {
        const timer = setInterval(() => { if (c.ws.readyState === 1) c.sync().catch(() => {}); else clearInterval(timer); }, ms);
        return () => clearInterval(timer);
      };
      c.frame = (k, fields) => ({ v: 1, k, src: 'edge-s7', seq: ++seq + frameBase, ts: Date.now(), ...fields });
      return c;
    },
    async stop() {
      await twins.close();
      await edge.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/**
 * An in-memory link connection (the seam lib/link/ws-transport.js describes), for unit tests of
 * the endpoints' and the dialer's parts without sockets. What was sent is in `sent` (texts) and
 * `frames()` (parsed); `receive(x)` delivers a frame from the peer; `close()` is answered with a
 * 'close' on a later turn unless `hangOnClose` is set (a peer that never answers the close
 * handshake), `terminate()` always closes.
 * @returns {EventEmitter & object}
 */
function fakeConnection() {
  const conn = new EventEmitter();
  let gone = false;
  const shut = (code, reason) => {
    conn.open = false;
    if (gone) return;
    gone = true;
    setImmediate(() => { conn.closed = true; conn.emit('close', code, reason); });
  };
  return Object.assign(conn, {
    open: true,
    closed: false,
    buffered: 0,
    hangOnClose: false,
    sent: [],
    closes: [],
    pings: 0,
    terminated: false,
    frames: () => conn.sent.map((t) => JSON.parse(t)),
    send(text) {
      if (!conn.open) throw new Error('connection not open');
      conn.sent.push(text);
    },
    close(code, reason) {
      conn.closes.push({ code, reason: String(reason) });
      if (conn.hangOnClose) { conn.open = false; return; }
      shut(code, reason);
    },
    terminate() { conn.terminated = true; shut(1006, ''); },
    ping() { conn.pings += 1; },
    /** A frame from the peer: an object (sent as JSON), a string, or a Buffer. */
    receive(x, isBinary = false) {
      const data = Buffer.isBuffer(x) ? x : Buffer.from(typeof x === 'string' ? x : JSON.stringify(x));
      conn.emit('frame', data, isBinary);
    },
  });
}

module.exports = { startCloud, fakeConnection };
