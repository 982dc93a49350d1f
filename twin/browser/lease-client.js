'use strict';
/**
 * The browser twin's client of the driver lease (nodes/lib/web/driver-lease.js, served by the
 * s7twin-ui node: POST/DELETE <page>/driver, GET <page>/session): one page drives the plant, the
 * others watch. Browser-safe: `fetch` is passed in (the page's own, or Node's in tests).
 */

/**
 * A driver lease over the s7twin-ui node's HTTP API.
 * @param {{fetch: Function, base?: string, token: string, id: string, label?: string}} o
 * @returns {{claim(force?: boolean): Promise<{status:number, granted:boolean, holder:object|null, code?:string}>,
 *   release(): Promise<void>, who(): Promise<object>}}
 */
function createLeaseClient(o) {
  const base = o.base ? o.base.replace(/\/?$/, '/') : ''; // '' = relative to the page
  const auth = { Authorization: `Bearer ${o.token}` };
  const json = async (r) => { try { return await r.json(); } catch { return {}; } };
  return {
    async claim(force = false) {
      const body = JSON.stringify({ id: o.id, force, label: o.label || '' });
      const r = await o.fetch(`${base}driver`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body });
      const b = await json(r);
      return { status: r.status, granted: Boolean(b.granted), holder: b.holder || null, code: b.error && b.error.code };
    },
    async release() {
      await o.fetch(`${base}driver?id=${encodeURIComponent(o.id)}`, { method: 'DELETE', headers: auth, keepalive: true });
    },
    /** Who the token is: {status, role, driver}. */
    async who() {
      const r = await o.fetch(`${base}session`, { headers: auth });
      return { status: r.status, ...(await json(r)) };
    },
  };
}

module.exports = { createLeaseClient };
