'use strict';
/**
 * Does a connection come from one of a list of sources? The list holds IP addresses, CIDR blocks
 * and host names (`10.0.0.5, 192.168.10.0/24, edge`): names are resolved (all their addresses)
 * when asked about and kept for `ttlMs`, so an edge container that comes back with a new address
 * on its compose network is recognised within seconds. IPv4-mapped IPv6 addresses
 * (`::ffff:10.0.0.5`, what a server listening on `::` sees) count as their IPv4 address.
 * Used by the cloud Modbus server (nodes/lib/modbus/server.js) for its edge-only registers.
 */
const dns = require('node:dns');
const net = require('node:net');
const { codedError } = require('../core/errors');

/** Error with a stable `code` (E_SOURCES). */
const SourceFilterError = codedError('SourceFilterError');

const DEFAULTS = {
  ttlMs: 5000, // how long a name's addresses are kept
};

/** `::ffff:1.2.3.4` → `1.2.3.4`; other addresses unchanged. */
function plainAddress(address) {
  const a = String(address || '');
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  return m ? m[1] : a;
}

const family = (a) => (net.isIPv4(a) ? 'ipv4' : net.isIPv6(a) ? 'ipv6' : null);

/**
 * Parse a source list.
 * @param {string|string[]} list comma/space separated, or an array
 * @returns {{blocks: net.BlockList, names: string[], entries: string[]}}
 * @throws {SourceFilterError} E_SOURCES for a malformed entry
 */
function parseSources(list) {
  const entries = (Array.isArray(list) ? list : String(list || '').split(/[\s,]+/)).map((s) => String(s).trim()).filter(Boolean);
  const blocks = new net.BlockList();
  const names = [];
  for (const e of entries) {
    const cidr = /^(.+)\/(\d{1,3})$/.exec(e);
    if (cidr) {
      const f = family(cidr[1]);
      const bits = Number(cidr[2]);
      if (!f || bits > (f === 'ipv4' ? 32 : 128)) throw new SourceFilterError('E_SOURCES', `"${e}" is not an address block (a.b.c.d/n)`);
      blocks.addSubnet(cidr[1], bits, f);
    } else if (family(plainAddress(e))) {
      blocks.addAddress(plainAddress(e), family(plainAddress(e)));
    } else if (/^[A-Za-z0-9]([A-Za-z0-9.-]{0,252})$/.test(e)) {
      names.push(e.toLowerCase());
    } else {
      throw new SourceFilterError('E_SOURCES', `"${e}" is neither an address, an address block nor a host name`);
    }
  }
  return { blocks, names, entries };
}

/**
 * @param {string|string[]} list see parseSources
 * @param {object} [opts]
 * @param {number} [opts.ttlMs]
 * @param {(name: string) => Promise<Array<{address: string}>>} [opts.lookup] default dns.promises.lookup(all)
 * @returns {{entries: string[], hasNames: boolean, matchesNow(address: string): boolean,
 *   matches(address: string): Promise<boolean>}}
 */
function createSourceFilter(list, opts = {}) {
  const o = { ...DEFAULTS, ...opts };
  const { blocks, names, entries } = parseSources(list);
  const lookup = o.lookup || ((name) => dns.promises.lookup(name, { all: true }));
  let resolved = new Set(); // addresses of the names, as of resolvedAt
  let resolvedAt = -Infinity;
  let pending = null;

  const inBlocks = (a) => { const f = family(a); return f ? blocks.check(a, f) : false; };

  async function refresh() {
    if (!names.length) return;
    if (Date.now() - resolvedAt < o.ttlMs) return;
    if (!pending) {
      pending = Promise.all(names.map((n) => lookup(n).then((r) => r.map((x) => plainAddress(x.address)), () => [])))
        .then((lists) => { resolved = new Set(lists.flat()); resolvedAt = Date.now(); })
        .finally(() => { pending = null; });
    }
    await pending;
  }

  return {
    entries,
    hasNames: names.length > 0,
    /** From the addresses and blocks, and the names as last resolved (no lookup). */
    matchesNow(address) {
      const a = plainAddress(address);
      return inBlocks(a) || resolved.has(a);
    },
    /** As matchesNow, resolving the names first when their addresses are older than ttlMs. */
    async matches(address) {
      const a = plainAddress(address);
      if (inBlocks(a)) return true;
      await refresh();
      return resolved.has(a);
    },
  };
}

module.exports = { createSourceFilter, parseSources, plainAddress, SourceFilterError, DEFAULTS };
