'use strict';
/**
 * The one subscription of a client session (session.js) and its monitored items, in groups: the
 * items the session starts with, and one group per addMonitor call. Every node id is asked for
 * once, ever: node-opcua's session repair carries the subscription across reconnects, and adding
 * an item again would duplicate it on the server.
 *
 * Notifications of one publish response arrive one by one, synchronously: they are gathered and
 * handed on as one batch (onValues), so values that changed together are written together.
 */
const { subscriptionParameters } = require('./session-options');
const { notification } = require('./data-value');

/**
 * @param {object} opts
 * @param {object} opts.o the session's options (session-options.js): monitor, samplingIntervalMs,
 *   queueSize, serverClocks and the subscription's intervals
 * @param {{notifications: number, removeErrors: number}} opts.counters the session's, counted here
 * @param {(batch: object[]) => void} opts.onValues the notifications of one publish (data-value.js)
 */
function createMonitoring({ o, counters, onValues }) {
  const first = [...(o.monitor || [])]; // the node ids of the first subscription
  const asked = new Set(first); // every node id asked for, so no id is ever added twice
  const groupIds = new Map(); // group added by add() -> its node ids (see remove)
  let subscription = null;
  let group = null; // the first group (its revised sampling interval is reported)
  let batch = null; // notifications of the publish being delivered
  let subscribing = null; // the subscription being created by add()

  async function createSubscription(session) {
    subscription = await session.createSubscription2(subscriptionParameters(o));
  }

  /** Monitor node ids on the subscription, as one group; its notifications join the batches. */
  async function monitorGroup(opcua, nodeIds, samplingIntervalMs) {
    const items = nodeIds.map((nodeId) => ({ nodeId, attributeId: opcua.AttributeIds.Value }));
    // Source timestamps tell the order of changes that arrive in one publish (node-opcua lists
    // them item by item, not in time order): the bridge needs it to replay a pulse.
    const g = await subscription.monitorItems(items, {
      samplingInterval: samplingIntervalMs, queueSize: o.queueSize, discardOldest: false,
    }, o.serverClocks ? opcua.TimestampsToReturn.Both : opcua.TimestampsToReturn.Source);
    g.on('changed', (item, dataValue) => {
      counters.notifications += 1;
      if (!batch) {
        batch = [];
        setImmediate(() => { const b = batch; batch = null; onValues(b); });
      }
      batch.push(notification(item, dataValue, o.serverClocks));
    });
    return g;
  }

  return {
    /** A session starts with items: it subscribes right after it is created. */
    get wanted() { return first.length > 0; },
    /** The session's subscription and its first items. */
    async subscribe(session, opcua) {
      await createSubscription(session);
      if (first.length) group = await monitorGroup(opcua, first.slice(), o.samplingIntervalMs);
    },
    /** The ids not asked for yet. */
    unasked(nodeIds) { return nodeIds.filter((id) => !asked.has(id)); },
    /** Before the first session: the ids become part of the first subscription. */
    askFirst(nodeIds) { for (const id of nodeIds) { asked.add(id); first.push(id); } },
    /**
     * Monitor ids on the live subscription, as one group (made first if the session started
     * without items: once, however many calls wait for it). On failure the ids are no longer
     * asked for, so a later call may try them again.
     */
    async add(session, opcua, nodeIds, samplingIntervalMs) {
      for (const id of nodeIds) asked.add(id);
      try {
        if (!subscription) {
          if (!subscribing) subscribing = createSubscription(session).finally(() => { subscribing = null; });
          await subscribing;
        }
        const g = await monitorGroup(opcua, nodeIds, samplingIntervalMs);
        groupIds.set(g, nodeIds);
        if (!group) group = g;
      } catch (err) {
        for (const id of nodeIds) asked.delete(id);
        throw err;
      }
    },
    /**
     * Delete the groups added by add() whose every id is in `nodeIds`, while `live()` holds.
     * @returns {Promise<string[]>} the ids no longer monitored
     */
    async remove(nodeIds, live) {
      const drop = new Set(nodeIds);
      const removed = [];
      for (const [g, ids] of [...groupIds]) {
        if (!live()) break;
        if (!ids.every((id) => drop.has(id))) continue;
        try {
          await g.terminate();
        } catch {
          counters.removeErrors += 1;
          continue;
        }
        groupIds.delete(g);
        for (const id of ids) asked.delete(id);
        removed.push(...ids);
        if (group === g) group = groupIds.keys().next().value || null;
      }
      return removed;
    },
    /** The subscription could not be made: the next session makes its own. */
    dropSubscription() { subscription = null; },
    /** The session closed. */
    clear() { subscription = null; group = null; },
    /** Monitored items this client holds now (client side). */
    get itemCount() { return subscription ? Object.keys(subscription.monitoredItems || {}).length : 0; },
    /** Revised intervals, as the server granted them. */
    get revised() {
      const f = group && group.monitoredItems && group.monitoredItems[0];
      return {
        publishingIntervalMs: subscription ? subscription.publishingInterval : null,
        samplingIntervalMs: f && f.result ? f.result.revisedSamplingInterval : null,
      };
    },
  };
}

module.exports = { createMonitoring };
