'use strict';
/**
 * The OPC UA transport's reading side: the PLC's outputs on the cloud server, read every `pollMs`
 * (mode 'poll', the study's 50 ms Session.Read coroutine: one Read with the outputs and the probe
 * responses of every slot probed) or from the subscription's notifications (mode 'subscribe'),
 * and a whole snapshot after every new session. What changed goes to the onValues callbacks (a
 * snapshot goes whole, as kind 'snap'); probe responses go to ./probes.js.
 */
const ot = require('../../../nodes/lib/opcua/tags');

/**
 * @param {object} o
 * @param {object} o.side nodes/lib/opcua/session.js (read, connected)
 * @param {string} o.plant
 * @param {object} o.stats received, polls, pollErrors are counted there
 * @param {(code: string, msg?: string) => void} o.countError
 * @param {{value(slot: number, v: number): void, slots(): number[], resIdOf(slot: number): string}} o.probes ./probes.js
 * @param {Function[]} o.valueCbs cb(values, kind)
 * @param {object} [o.table] the plant's I/O table (default: the demo plant's)
 */
function createOutputs(o) {
  const states = ot.cloudTags(o.table).filter((t) => t.dir === 'out');
  const stateIds = states.map((t) => ot.cloudNodeId(t, { plant: o.plant }));
  const tagOfId = new Map(states.map((t, i) => [stateIds[i], t]));
  const outputs = {}; // last output values handed to the twin
  let polling = false;

  function deliver(values, kind) {
    const changed = {};
    for (const [k, v] of Object.entries(values)) if (kind === 'snap' || outputs[k] !== v) changed[k] = v;
    Object.assign(outputs, values);
    if (!Object.keys(changed).length) return;
    o.stats.received += 1;
    for (const cb of o.valueCbs) cb(changed, kind);
  }

  function decode(results) {
    const values = {};
    for (const r of results) {
      const tag = tagOfId.get(r.nodeId);
      if (tag && r.good) values[tag.short] = ot.fromVariant(tag, r.value);
    }
    return values;
  }

  return {
    /** The outputs' node ids (monitored in mode 'subscribe'). */
    stateIds,
    /** Read every output once and hand them over whole, as a 'snap'. */
    async snapshot() {
      try {
        deliver(decode(await o.side.read(stateIds)), 'snap');
      } catch (err) {
        o.countError(err.code || 'E_READ', err.message);
      }
    },
    /** One poll: the outputs and the responses of every slot probed, in one Read (one at a time). */
    async poll() {
      if (polling || !o.side.connected) return;
      polling = true;
      o.stats.polls += 1;
      try {
        const slots = o.probes.slots();
        const results = await o.side.read(slots.length ? stateIds.concat(slots.map(o.probes.resIdOf)) : stateIds);
        for (let k = 0; k < slots.length; k++) {
          const r = results[stateIds.length + k];
          if (r.good) o.probes.value(slots[k], Number(r.value));
        }
        deliver(decode(results.slice(0, stateIds.length)), 'state');
      } catch (err) {
        o.stats.pollErrors += 1;
        o.countError(err.code || 'E_READ', err.message);
      } finally {
        polling = false;
      }
    },
    /** The subscription's notifications of one publish: outputs and probe responses. */
    notified(batch) {
      const values = {};
      for (const n of batch) {
        const tag = tagOfId.get(n.nodeId);
        if (!tag) {
          const id = ot.parseProbeNodeId(n.nodeId);
          if (id && id.kind === 'res' && n.status && n.status.isGood()) o.probes.value(id.slot, Number(n.value));
          continue;
        }
        if (n.status && n.status.isGood()) values[tag.short] = ot.fromVariant(tag, n.value);
      }
      deliver(values, 'state');
    },
  };
}

module.exports = { createOutputs };
