'use strict';
/**
 * The MQTT transport's probes (load generator): `{"i":slot,"v":value}` on `.../probe/req`, answered
 * on `.../probe/res/<slot>` (nodes/lib/mqtt/topics.js). The transport subscribes to the response
 * topic of each slot it probes, so a twin receives its own answers only, not every twin's. The
 * first probe of a slot goes out once the broker granted that subscription (no answer can precede
 * its subscription), and every slot is subscribed again on a new connection (clean sessions: the
 * broker forgot them); probes that waited for a SUBACK of the old connection are counted dropped.
 */

/**
 * @param {object} o
 * @param {{req: string, res(slot: number): string}} o.topics the plant's topics
 * @param {0|1} o.qos
 * @param {object} o.stats probesDropped is counted there
 * @param {(code: string, msg?: string) => void} o.countError
 * @param {() => object|null} o.client the current mqtt.js client
 * @param {() => boolean} o.up whether the client is connected
 * @param {(topic: string, obj: object) => void} o.publish
 * @returns {{probe(slot: number, value: number): void, resubscribe(): void, slots: Map}}
 */
function createProbeSlots(o) {
  // slot -> true once granted on the current connection, or the probe values waiting for the SUBACK
  const slots = new Map();

  /** Subscribe to one slot's response topic; probes asked meanwhile go out on the SUBACK. */
  function subscribe(slot) {
    const waiting = [];
    slots.set(slot, waiting);
    const c = o.client();
    c.subscribe(o.topics.res(slot), { qos: o.qos }, (err) => {
      if (c !== o.client() || slots.get(slot) !== waiting) return; // a newer connection took over
      if (err) { // refused (SUBACK 0x80: mqtt.js reports it as an error) or the connection dropped
        slots.delete(slot);
        o.stats.probesDropped += waiting.length;
        o.countError('E_MQTT_SUBSCRIBE', `${o.topics.res(slot)}: ${err.message}`);
        return;
      }
      slots.set(slot, true);
      if (!o.up()) { o.stats.probesDropped += waiting.length; return; }
      for (const v of waiting) o.publish(o.topics.req, { i: slot, v });
    });
  }

  return {
    /** Probe slot `slot` with `value`. Dropped and counted while down. */
    probe(slot, value) {
      if (!o.up()) { o.stats.probesDropped += 1; return; }
      const sub = slots.get(slot);
      if (sub === true) o.publish(o.topics.req, { i: slot, v: value });
      else if (sub) sub.push(value);
      else { subscribe(slot); slots.get(slot).push(value); }
    },
    /** A new connection: every slot again; probes that waited for the old one's SUBACK are lost. */
    resubscribe() {
      for (const [slot, sub] of [...slots]) {
        if (sub !== true) o.stats.probesDropped += sub.length;
        slots.delete(slot);
        subscribe(slot);
      }
    },
    slots,
  };
}

module.exports = { createProbeSlots };
