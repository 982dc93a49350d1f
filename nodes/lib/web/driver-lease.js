'use strict';
/**
 * Who drives the plant physics among the browser twins of one cloud: a lease, held by one page at
 * a time and renewed by it while it lives. Two pages that both ran the plant model and both sent
 * sensor inputs would fight (one page's box at the entry, the other's empty entry, in turns), so
 * one page drives and every other page mirrors the PLC (twin/browser/session.js). A page that
 * stops renewing (closed, crashed, offline) loses the lease after ttlMs; another may take it over
 * on purpose (`force`), and the former driver learns it on its next renewal.
 *
 * Pure logic with an injectable clock; the s7twin-ui node serves it over HTTP.
 */

const DEFAULTS = {
  ttlMs: 6000, // a lease not renewed for 6 s is free (pages renew every 2 s)
};

const ID_RE = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * @param {{ttlMs?: number, now?: () => number}} [opts]
 */
function createLease(opts = {}) {
  const ttlMs = opts.ttlMs > 0 ? opts.ttlMs : DEFAULTS.ttlMs;
  const now = opts.now || Date.now;
  let holder = null; // {id, label, since, until}
  const counters = { claims: 0, granted: 0, denied: 0, takeovers: 0, expired: 0, released: 0 };

  function current() {
    if (holder && now() >= holder.until) { holder = null; counters.expired += 1; }
    return holder;
  }

  const view = (h) => (h ? { id: h.id, label: h.label, since: h.since, expiresInMs: Math.max(0, h.until - now()) } : null);

  return {
    ttlMs,
    counters,
    /**
     * Claim or renew the lease for `id`.
     * @param {string} id the page's id
     * @param {{force?: boolean, label?: string}} [o] force: take it from the current holder
     * @returns {{granted: boolean, holder: object|null}}
     * @throws {Error} E_LEASE_ID for an id that is not 1..64 of [A-Za-z0-9_.:-]
     */
    claim(id, o = {}) {
      if (typeof id !== 'string' || !ID_RE.test(id)) {
        throw Object.assign(new Error('a driver id is 1..64 characters of [A-Za-z0-9_.:-]'), { code: 'E_LEASE_ID' });
      }
      counters.claims += 1;
      const h = current();
      if (h && h.id !== id && !o.force) { counters.denied += 1; return { granted: false, holder: view(h) }; }
      if (h && h.id !== id) counters.takeovers += 1;
      const label = String(o.label || '').slice(0, 80);
      holder = h && h.id === id ? { ...h, label: label || h.label, until: now() + ttlMs } : { id, label, since: now(), until: now() + ttlMs };
      counters.granted += 1;
      return { granted: true, holder: view(holder) };
    },
    /** Give the lease up (only its holder can). @returns {boolean} */
    release(id) {
      const h = current();
      if (!h || h.id !== id) return false;
      holder = null;
      counters.released += 1;
      return true;
    },
    /** The current holder, or null. */
    holder: () => view(current()),
  };
}

module.exports = { DEFAULTS, createLease };
