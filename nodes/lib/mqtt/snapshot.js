'use strict';
/**
 * The last-known state of each plant, handed to every new state subscriber. The PLC publishes
 * only changes, and a full image only when it (re)connects, so a twin connecting later would not
 * know whether the plant runs. The PLC's state messages are merged per plant, and the merge is
 * sent, flagged retained, to each new subscriber of that state topic; a twin reads a retained
 * state message as its snapshot.
 *
 * In a fleet (lib/mqtt/cluster.js) the merge also takes the states arriving through the
 * cluster's emitter (from a PLC on any instance), is stored in Redis by the instance the PLC
 * publishes to, and is read from there for a plant this instance has not seen a state of yet.
 */
const auth = require('./auth');
const payloads = require('./payload');

const STATE_FILTER = auth.TOPICS.stateTopic.replace('{plant}', '+');

/**
 * @param {object} s
 * @param {{store: {merge(plant, values): void, load(plant): Promise<object>}}|null} s.cluster
 * @param {{snapshots: number}} s.counters
 * @param {() => boolean} s.isClosed the broker is closing: nothing more is sent
 * @param {(plant: string) => object} [s.tableOf] each plant's I/O table (default: the demo plant's)
 * @returns {{merge(packet: object, store?: boolean): void, attach(broker: object): void,
 *   onSubscribe(subs: object[], client: object): void, get(plant: string): object|undefined}}
 */
function createSnapshots(s) {
  const state = new Map(); // plant -> merged last-known PLC outputs

  /** Merge a state publish (a payload that is not a state is the PLC's own business). */
  function merge(packet, store = true) {
    let values;
    const plant = auth.plantOf(packet.topic);
    try { values = payloads.decodeState(packet.payload, s.tableOf ? s.tableOf(plant) : undefined); } catch { return; }
    state.set(plant, { ...(state.get(plant) || {}), ...values });
    if (s.cluster && store) s.cluster.store.merge(plant, values);
  }
  function send(client, topic, values) {
    s.counters.snapshots += 1;
    client.publish({ cmd: 'publish', topic, payload: Buffer.from(JSON.stringify(values)), qos: 0, retain: true }, () => {});
  }

  return {
    merge,
    /**
     * Listen to the cluster's emitter: a PLC publishing to another instance's broker reaches this
     * one there (its own publishes too: merging them twice changes nothing).
     */
    attach(broker) {
      if (s.cluster) broker.mq.on(STATE_FILTER, (packet, cb) => { merge(packet, false); cb(); });
    },
    /** aedes' 'subscribe' event: each granted filter gets the merge of every plant it matches. */
    onSubscribe(subs, client) {
      for (const sub of subs) {
        if (sub.qos === 128) continue;
        // A fleet: a plant no state of which reached this instance yet is read from Redis.
        const named = auth.plantOf(sub.topic);
        if (s.cluster && named && !state.has(named) && auth.kindOf(sub.topic) === 'state') {
          s.cluster.store.load(named).then((values) => {
            if (!Object.keys(values).length || s.isClosed()) return;
            state.set(named, { ...values, ...(state.get(named) || {}) });
            send(client, sub.topic, state.get(named));
          });
          continue;
        }
        for (const [plant, values] of state) {
          const topic = auth.TOPICS.stateTopic.replace('{plant}', plant);
          if (!auth.topicMatches(sub.topic, topic)) continue;
          send(client, topic, values);
        }
      }
    },
    /** A copy of the merged state of a plant, if any. */
    get: (plant) => (state.has(plant) ? { ...state.get(plant) } : undefined),
  };
}

module.exports = { createSnapshots };
