'use strict';
/**
 * The OPC UA transport's probes (load generator): probe(slot, value) writes the cloud server's
 * probe request `ns=1;s="Probe"."Req"[slot]` (UInt32); a change of the probe response
 * `."Res"[slot]` of a slot this transport has probed is an answer, reported to the onProbe
 * callbacks. The first probe of a slot reads its response once first (the baseline), so a value
 * left from an earlier run is not reported as an answer: only a change is; in mode 'subscribe'
 * the response is then monitored (sampling interval 0: exception-based on the server), in mode
 * 'poll' the poll reads it with the outputs. Probes of one slot are written in order.
 */
const ot = require('../../../nodes/lib/opcua/tags');
const { TransportError } = require('../common');

/** The node id of a slot's probe response. */
const resIdOf = (slot) => ot.probeNodeId('res', slot);

/**
 * @param {object} o
 * @param {object} o.side nodes/lib/opcua/session.js (read, write, addMonitor, connected)
 * @param {'poll'|'subscribe'} o.mode
 * @param {number} o.maxProbeSlot
 * @param {object} o.stats probes and probeAnswers are counted there
 * @param {(code: string, msg?: string) => void} o.countError
 * @param {{after(step: () => Promise): void}} o.writes ./writes.js: probe Writes queue behind the inputs'
 */
function createProbes(o) {
  const cbs = [];
  const seen = new Map(); // slot -> last response value seen (primed by a Read on first use)
  const ready = new Map(); // slot -> promise: the slot's response primed (and monitored)

  /** A probe response value: reported only when it changed. */
  function value(slot, v) {
    if (!seen.has(slot) || seen.get(slot) === v) return;
    seen.set(slot, v);
    o.stats.probeAnswers += 1;
    for (const cb of cbs) cb(slot, v);
  }

  /** Before a slot's first probe: read its response (the baseline), then monitor it when subscribing. */
  function prime(slot) {
    let p = ready.get(slot);
    if (p) return p;
    p = (async () => {
      const [r] = await o.side.read([resIdOf(slot)]);
      if (!r.good) throw new TransportError('E_PROBE_SLOT', `probe slot ${slot}: ${r.status} (more slots than the server's S7T_OPCUA_PROBE_SLOTS?)`);
      if (!seen.has(slot)) seen.set(slot, Number(r.value));
      if (o.mode === 'subscribe') await o.side.addMonitor([resIdOf(slot)], { samplingIntervalMs: 0 });
    })();
    ready.set(slot, p);
    p.catch(() => ready.delete(slot)); // tried again by the next probe of the slot
    return p;
  }

  return {
    /**
     * Write `v` to probe request slot `slot`; the answer comes through onProbe. Errors (bad slot
     * or value, not connected, refused) are counted, never thrown.
     * @param {number} slot 0..maxProbeSlot
     * @param {number} v UInt32
     */
    probe(slot, v) {
      if (!Number.isInteger(slot) || slot < 0 || slot > o.maxProbeSlot) { o.countError('E_PROBE_SLOT', `probe slot ${slot}`); return; }
      try { ot.checkProbeValue(v); } catch (err) { o.countError(err.code, err.message); return; }
      if (!o.side.connected) { o.countError('E_NOT_CONNECTED', 'probe while disconnected'); return; }
      o.stats.probes += 1;
      const item = { nodeId: ot.probeNodeId('req', slot), dataType: 'UInt32', value: v };
      o.writes.after(() => prime(slot).then(() => o.side.write([item])));
    },
    /** @param {(slot: number, value: number) => void} cb called with every changed probe response */
    onProbe(cb) { cbs.push(cb); },
    value,
    /** Slots probed so far (their responses are read by every poll). */
    slots() { return [...seen.keys()]; },
    resIdOf,
  };
}

module.exports = { createProbes, resIdOf };
