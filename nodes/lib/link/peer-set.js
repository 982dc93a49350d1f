'use strict';
/**
 * The peers connected to one link endpoint: each admitted connection becomes a peer
 * (lib/link/peer.js) with an id, its frames go to the endpoint's intake, its close is cleaned up
 * after; one keepalive round looks at every peer with the role's rule; the depth of all outboxes
 * is one counter.
 *
 * Plain module (timers only); lib/link/endpoint-core.js keeps one per endpoint.
 */
const clock = require('../core/clock');
const { createPeer } = require('./peer');

/**
 * Close every peer's connection (1001) and cut those that do not answer within graceMs.
 * @param {object[]} peers lib/link/peer.js
 * @param {number} graceMs
 * @returns {Promise<void>} once every connection is closed
 */
function closePeers(peers, graceMs) {
  return new Promise((resolve) => {
    if (!peers.length) { resolve(); return; }
    let left = peers.length;
    const t = setTimeout(() => { for (const c of peers) c.conn.terminate(); }, graceMs);
    for (const c of peers) {
      c.conn.once('close', () => {
        left -= 1;
        if (left === 0) { clearTimeout(t); resolve(); }
      });
      try { c.conn.close(1001, 'endpoint closing'); } catch { c.conn.terminate(); }
    }
  });
}

/**
 * @param {object} o
 * @param {string} o.name the role: peer ids are `<name>-<n>`
 * @param {object} o.counters the endpoint's: accepted, connections, errors, tooLarge, queueDepth (and the peer's)
 * @param {object} o.limits lib/access/peer-limits.js options for each peer
 * @param {object} o.peer maxFrames, maxTags, highWaterBytes, drainPollMs, closeGraceMs (lib/link/peer.js)
 * @param {number} o.tickMs keepalive period
 * @param {(peer: object, now: number) => void} o.tick the role's keepalive rule for one peer
 * @param {(peer: object, data: Buffer, isBinary: boolean) => void} o.onFrame
 * @param {(peer: object, code: number) => void} o.onGone the peer's connection closed (it is forgotten already)
 */
function createPeerSet(o) {
  const { counters } = o;
  /** @type {Map<string, object>} peer id -> peer */
  const peers = new Map();
  let nextId = 0;

  const keepalive = setInterval(() => {
    const t = clock.now();
    for (const c of peers.values()) o.tick(c, t);
  }, o.tickMs);
  keepalive.unref?.();

  // Every peer's outbox, in one counter: each peer tells its change. Summed over every peer at
  // each change, a thousand twins leaving at once (a k6 run's end) held the cloud's event loop
  // 20 ms in these sums alone: a million outbox reads.
  const updateDepth = (delta) => { counters.queueDepth += delta; };

  return {
    get size() { return peers.size; },
    get: (id) => peers.get(id),
    has: (id) => peers.has(id),
    ids: () => [...peers.keys()],
    /** Every peer of the plant. */
    ofPlant: (plant) => [...peers.values()].filter((c) => c.plant === plant),
    /**
     * A peer for an admitted connection.
     * @param {object} conn a connection (lib/link/ws-transport.js)
     * @param {{plant: string, viewer?: boolean, who?: object, remote?: string}} info
     * @returns {object} the peer
     */
    add(conn, info) {
      nextId += 1;
      const id = `${o.name}-${nextId}`;
      const c = createPeer({
        ...o.peer, id, conn, plant: info.plant, viewer: info.viewer, who: info.who, remote: info.remote, limits: o.limits, counters, onQueue: updateDepth,
      });
      peers.set(id, c);
      counters.accepted += 1;
      counters.connections = peers.size;
      conn.on('alive', c.markHeard);
      conn.on('frame', (data, isBinary) => o.onFrame(c, data, isBinary));
      conn.on('error', (err) => {
        if (err.code === 'E_TOO_LARGE') counters.tooLarge += 1; // the transport refused it and closes (1009)
        counters.errors += 1;
      });
      conn.on('close', (code) => {
        c.dispose(); // its outbox's depth leaves the total
        peers.delete(id);
        counters.connections = peers.size;
        o.onGone(c, code);
      });
      return c;
    },
    /** Stop the keepalive and close every peer; resolves once all are gone. */
    close(graceMs) {
      clearInterval(keepalive);
      return closePeers([...peers.values()], graceMs);
    },
  };
}

module.exports = { createPeerSet, closePeers };
