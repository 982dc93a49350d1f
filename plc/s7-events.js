'use strict';
/**
 * The S7 server's events, counted for the PLC's clients only. The PLC's own S7 client
 * (plc/s7-own-client.js) shows up in the server's events like any other: its connects,
 * disconnects and writes are announced here beforehand and then not counted as clients'.
 */

/** The key of a write event: data block, start byte (or bit), size. */
const sig = (db, start, size) => `${db}:${start}:${size}`;

/**
 * @param {object} K node-snap7's S7Server event codes (evcClientAdded, ...)
 * @param {{s7Clients: number, s7Connects: number, s7Writes: number, s7WriteErrors: number,
 *   s7ClientErrors: number}} c counters incremented here
 * @returns {{handle(ev: object): void, connecting(): void, connectFailed(): void,
 *   disconnecting(): void, writing(keys: string[]): void, writeFailed(keys: string[]): void}}
 */
function createServerEvents(K, c) {
  const own = { adds: 0, drops: 0, writes: new Map() }; // writes: sig -> count expected
  /** Count expected events of the own client's writes up (+1) or down (-1); false: none expected. */
  function ownWrite(k, d) {
    const n = (own.writes.get(k) || 0) + d;
    if (n < 0) return false;
    if (n === 0) own.writes.delete(k); else own.writes.set(k, n);
    return true;
  }

  return {
    /** One event of the server (node-snap7's 'event'). */
    handle(ev) {
      switch (ev.EvtCode) {
        case K.evcClientAdded:
          if (own.adds > 0) { own.adds -= 1; break; }
          c.s7Clients += 1; c.s7Connects += 1; break;
        case K.evcClientDisconnected:
        case K.evcClientTerminated:
          if (own.drops > 0) { own.drops -= 1; break; }
          c.s7Clients = Math.max(0, c.s7Clients - 1); break;
        case K.evcDataWrite:
          if (ownWrite(sig(ev.EvtParam2, ev.EvtParam3, ev.EvtParam4), -1)) break;
          if (ev.EvtRetCode) c.s7WriteErrors += 1; else c.s7Writes += 1;
          break;
        default: c.s7ClientErrors += 1;
      }
    },
    /** The own client is about to connect. */
    connecting() { own.adds += 1; },
    /** ... and did not (no event will come). */
    connectFailed() { own.adds -= 1; },
    /** The own client is about to disconnect. */
    disconnecting() { own.drops += 1; },
    /** The own client sends a job writing these sigs. */
    writing(keys) { for (const k of keys) ownWrite(k, 1); },
    /** ... which failed (no events will come). */
    writeFailed(keys) { for (const k of keys) ownWrite(k, -1); },
  };
}

module.exports = { createServerEvents, sig };
