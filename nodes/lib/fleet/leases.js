'use strict';
/**
 * The plants one member holds: one edge per plant across the fleet. The HOLDER is the instance
 * the plant's edge is connected to. It holds the plant's lease (a key with a TTL of the edge
 * endpoint's link timeout, 3 s, renewed on every sync of the edge, 500 ms), so a second edge of the
 * plant on another instance is refused (HTTP 409) while the first is alive, as on one instance;
 * and it listens on the plant's request channel while it holds it.
 *
 * Plain module; lib/fleet/member.js keeps one.
 */
const clock = require('../core/clock');
const { KEYS } = require('./keys');

/**
 * @param {object} o
 * @param {object} o.bp the backplane (lib/fleet/backplane.js)
 * @param {string} o.id this member's id
 * @param {number} o.leaseMs the lease's TTL
 * @param {number} o.leaseDriftPpm this host's clock vs the backplane's: a lease is trusted this much less long
 * @param {object} o.counters the member's: leaseLost
 * @param {(err: Error) => void} o.fail a backplane command failed
 * @param {(plant: string, text: string) => void} o.onRequest a message on a held plant's request channel
 * @param {(plant: string) => void} [o.onLost] another instance took the lease of a plant held here
 * @param {() => boolean} o.closed the member is closing: take no plant
 */
function createLeases(o) {
  const { bp, id, counters } = o;
  const held = new Map(); // plant -> {validUntil, fn}

  /** Trusted until: the lease was set before `sentAt`, so it lasts at least until sentAt + TTL on the backplane's clock. */
  const trustUntil = (sentAt) => sentAt + o.leaseMs * (1 - o.leaseDriftPpm / 1e6) - 1;

  /** Give the plant up (its edge left): stop taking its requests first, then free the lease. */
  async function release(plant) {
    const h = held.get(plant);
    if (!h) return;
    held.delete(plant);
    await bp.unsubscribe(KEYS.req(plant), h.fn).catch(o.fail);
    await bp.unlease(KEYS.lease(plant), id).catch(o.fail);
  }

  return {
    release,
    /**
     * Take the plant's lease for this instance's edge (and listen for its requests).
     * @returns {Promise<boolean>} false: another instance holds it (its edge is alive)
     * @throws {BackplaneError} the backplane is unreachable
     */
    async claim(plant) {
      const sentAt = clock.now();
      const ok = await bp.lease(KEYS.lease(plant), id, o.leaseMs);
      if (!ok || o.closed()) return false;
      const had = held.get(plant);
      if (had) { had.validUntil = trustUntil(sentAt); return true; } // held here already: renewed
      const h = { validUntil: trustUntil(sentAt), fn: (text) => o.onRequest(plant, text) };
      held.set(plant, h);
      try {
        await bp.subscribe(KEYS.req(plant), h.fn);
      } catch (err) {
        await release(plant);
        throw err;
      }
      return true;
    },
    /**
     * Renew the lease (the edge is alive: it just synced). Resolves true if renewed, false if
     * another instance took it (onLost is called), null if the backplane did not answer (the lease
     * lapses by itself here when it would have on the backplane).
     */
    async renew(plant) {
      const h = held.get(plant);
      if (!h) return false;
      const sentAt = clock.now();
      let ok;
      try {
        ok = await bp.lease(KEYS.lease(plant), id, o.leaseMs);
      } catch (err) {
        o.fail(err);
        return null;
      }
      if (held.get(plant) !== h) return false;
      if (ok) { h.validUntil = trustUntil(sentAt); return true; }
      counters.leaseLost += 1;
      held.delete(plant);
      bp.unsubscribe(KEYS.req(plant), h.fn).catch(o.fail);
      if (o.onLost) o.onLost(plant);
      return false;
    },
    /** Does this instance hold the plant, surely (its lease cannot have passed to another yet)? */
    holds(plant) {
      const h = held.get(plant);
      return Boolean(h && clock.now() < h.validUntil);
    },
    /** Plants held here. */
    plants: () => [...held.keys()],
  };
}

module.exports = { createLeases };
