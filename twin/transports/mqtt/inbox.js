'use strict';
/**
 * What the MQTT transport receives: the PLC's state on `s7twin/<plant>/state` (the broker's
 * retained snapshot on subscribe is reported as kind 'snap', a live message as 'state') and the
 * answers of this twin's probes on `.../probe/res/<slot>`. A payload that fails its check
 * (nodes/lib/mqtt/payload.js) is counted and dropped.
 *
 * The PLC publishes its whole image right after it (re)connects and subscribes. If the broker
 * restarted, the twin's own resend may have gone out before the PLC was back (QoS 0, clean
 * sessions: nothing is queued for it), so a whole image from the PLC is answered with the twin's
 * whole input image. Resending values the PLC already has makes no edge; a change it missed
 * arrives now.
 */
const { demoTable } = require('../../../nodes/lib/core/io-table');
const payloads = require('../../../nodes/lib/mqtt/payload');
const { slotOfResponse } = require('../../../nodes/lib/mqtt/topics');

/**
 * @param {object} o
 * @param {{state: string}} o.topics the plant's topics
 * @param {string} o.plant
 * @param {object} o.stats received, payloadBytesIn, badFrames, snapshots, resyncs are counted there
 * @param {(code: string, msg?: string) => void} o.countError
 * @param {object} o.image the twin's input image
 * @param {() => boolean} o.up whether the client is connected
 * @param {(values: object) => void} o.resendImage publishes the whole image as one command
 * @param {Function[]} o.valueCbs cb(values, kind)
 * @param {Function[]} o.probeCbs cb(slot, value)
 * @param {object} [o.table] the plant's I/O table (default: the demo plant's)
 * @returns {(topic: string, payload: Buffer, packet: {retain?: boolean}) => void} the client's 'message' handler
 */
function createInbox(o) {
  const table = o.table || demoTable();
  const STREAMED = table.outputs.filter((t) => !t.noStream).map((t) => t.short);
  function state(payload, packet) {
    let values;
    try { values = payloads.decodeState(payload, table); } catch (err) { o.stats.badFrames += 1; o.countError(err.code, err.message); return; }
    const kind = packet.retain ? 'snap' : 'state';
    if (kind === 'snap') o.stats.snapshots += 1;
    else if (STREAMED.every((k) => k in values) && Object.keys(o.image).length && o.up()) {
      o.stats.resyncs += 1;
      o.resendImage({ ...o.image });
    }
    for (const cb of o.valueCbs) cb(values, kind);
  }

  function probeAnswer(payload) {
    let p;
    try { p = payloads.checkProbe(payload, table.PROBE_SLOTS); } catch (err) { o.stats.badFrames += 1; o.countError(err.code, err.message); return; }
    for (const { i, v } of p.items) for (const cb of o.probeCbs) cb(i, v);
  }

  return (topic, payload, packet) => {
    o.stats.received += 1;
    o.stats.payloadBytesIn += payload.length;
    if (topic === o.topics.state) state(payload, packet);
    else if (slotOfResponse(topic, o.plant, table) !== null) probeAnswer(payload);
  };
}

/** The demo plant's streamed outputs (a whole image of them is the PLC's (re)connect snapshot). */
const STREAMED = demoTable().outputs.filter((t) => !t.noStream).map((t) => t.short);

module.exports = { createInbox, STREAMED };
