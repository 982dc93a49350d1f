'use strict';
/**
 * Plant states across a fleet. The holder of a plant (lib/fleet/leases.js) writes every state and
 * snap of its edge into the plant's latest-state hash and publishes it, in one atomic step with a
 * version number (lib/fleet/backplane.js mergeState). A WATCHER is an instance with twins of the
 * plant: it subscribes to the plant's states, reads the latest-state hash and emits it as a
 * `snap` first (a new twin's snapshot, on any instance), then every state newer than the hash's
 * version, in order; its own edge's frames it skips (its flow has them already).
 *
 * Versions count within an epoch (the hash's history). Redis restarted without persistence makes
 * the hash again from nothing: its versions start again at 1 under a new epoch, and a watcher
 * that compared them with the old epoch's (say 40) would drop every state until the new ones
 * passed it. A message or a read of another epoch starts the watcher's count afresh; one of an
 * epoch it has left is stale and dropped.
 *
 * Plain module; lib/fleet/member.js keeps one.
 */
const envelope = require('../core/envelope');
const { KEYS } = require('./keys');
const { parseStateMessage } = require('./backplane');

const OLD_EPOCHS = 8; // epochs a watcher remembers having left (one per restart of an empty Redis)

/**
 * @param {object} o
 * @param {object} o.bp the backplane (lib/fleet/backplane.js)
 * @param {string} o.id this member's id
 * @param {object} o.sender envelope sender for the snapshots made here
 * @param {object} o.counters the member's: statesPublished, statesIn, snapsFromStore, badMessages, epochs
 * @param {(err: Error) => void} o.fail a backplane command failed
 * @param {(env: object, plant: string) => void} o.onEnvelope a state or snap for this instance's flow
 * @param {() => boolean} o.closed the member is closing
 */
function createStateWatch(o) {
  const { bp, id, counters } = o;
  const watched = new Map(); // plant -> {epoch, left, lastV, loading, buffer, subscribed, fn}
  if (counters.epochs === undefined) counters.epochs = 0;

  /**
   * Is `epoch` the watcher's (a new one is taken: its count starts afresh)? False for an epoch
   * the watcher has left: what comes under it is older than what it has.
   */
  function sameEpoch(w, epoch) {
    if (epoch === w.epoch) return true;
    if (w.left.includes(epoch)) return false;
    if (w.epoch !== null) {
      counters.epochs += 1;
      w.left.push(w.epoch);
      if (w.left.length > OLD_EPOCHS) w.left.shift();
    }
    w.epoch = epoch;
    w.lastV = 0;
    return true;
  }

  function deliverState(plant, w, v, epoch, m) {
    if (!sameEpoch(w, epoch)) return;
    if (v <= w.lastV) return; // in the snapshot already, or seen
    w.lastV = v;
    if (m.o === id) return; // this instance's own edge: its flow has the frame already
    counters.statesIn += 1;
    o.onEnvelope(m.e, plant);
  }

  function onState(plant, text) {
    const w = watched.get(plant);
    if (!w) return;
    const msg = parseStateMessage(text);
    let m;
    try {
      if (!msg) throw new Error('not a state message');
      m = JSON.parse(msg.text);
      envelope.validate(m.e);
      if (m.e.k !== 'state' && m.e.k !== 'snap') throw new Error('not a state');
    } catch {
      counters.badMessages += 1;
      return;
    }
    if (w.loading) w.buffer.push([msg.version, msg.epoch, m]);
    else deliverState(plant, w, msg.version, msg.epoch, m);
  }

  /** Read the latest state: a snap of it first, then what came meanwhile and is newer. */
  async function reload(plant) {
    const w = watched.get(plant);
    if (!w) return;
    w.loading = true;
    try {
      const { epoch, version, values } = await bp.readState(KEYS.latest(plant));
      // An empty hash (no epoch yet: Redis restarted empty, no state since) tells nothing.
      if (epoch !== null && sameEpoch(w, epoch)) {
        if (version > w.lastV && Object.keys(values).length) {
          counters.snapsFromStore += 1;
          o.onEnvelope(o.sender.make('snap', { d: values }), plant);
        }
        w.lastV = Math.max(w.lastV, version);
      }
    } catch (err) {
      o.fail(err); // read again when the backplane is back ('up')
    }
    w.loading = false;
    const buffered = w.buffer.splice(0);
    for (const [v, epoch, m] of buffered) deliverState(plant, w, v, epoch, m);
  }

  async function subscribeWatch(plant, w) {
    try {
      await bp.subscribe(KEYS.states(plant), w.fn);
      w.subscribed = true;
      return true;
    } catch (err) {
      o.fail(err); // subscribed when the backplane is (back) up: up()
      // Failed though connected (no 'up' will come to retry it): try again shortly.
      if (bp.connected && !o.closed()) {
        setTimeout(() => {
          if (!o.closed() && !w.subscribed && watched.get(plant) === w) subscribeWatch(plant, w).then((ok) => ok && reload(plant));
        }, 1000).unref?.();
      }
      return false;
    }
  }

  return {
    /** A state or snap of the plant's edge (held here): into the latest-state hash, to the watchers. */
    publishState(env, plant) {
      if (!env.d) return;
      counters.statesPublished += 1;
      bp.mergeState(KEYS.latest(plant), KEYS.states(plant), env.d, JSON.stringify({ o: id, e: env })).catch(o.fail);
    },
    /**
     * Take the plant's states from now on (an instance with twins of it). Kept until close: the
     * instance's latest state then stays current, so the next twin's snapshot is never stale.
     */
    async watch(plant) {
      if (watched.has(plant) || o.closed()) return;
      const w = { epoch: null, left: [], lastV: 0, loading: true, buffer: [], subscribed: false, fn: (text) => onState(plant, text) };
      watched.set(plant, w);
      if (await subscribeWatch(plant, w)) await reload(plant);
    },
    /**
     * The backplane is up (again): what was published meanwhile was missed, the hash has it;
     * subscriptions that failed are made now.
     */
    up() {
      for (const [plant, w] of watched) {
        if (w.subscribed) reload(plant);
        else subscribeWatch(plant, w).then((ok) => ok && reload(plant));
      }
    },
    /** Plants whose states this member takes. */
    plants: () => [...watched.keys()],
    /** Stop taking states: the unsubscriptions, to await with the member's others. */
    unsubscribeAll: () => [...watched].map(([p, w]) => bp.unsubscribe(KEYS.states(p), w.fn)),
    clear() { watched.clear(); },
  };
}

module.exports = { createStateWatch };
