'use strict';
/**
 * The link over Apache Kafka (@platformatic/kafka, pure JavaScript). Topics, one partition each
 * (a partition keeps its order; one link's traffic fits one easily):
 *
 *   s7twin.link.up              every plant's edges → the cloud (the hello, the states, the answers)
 *   s7twin.link.down.<plant>    the cloud → the plant's edge: the requests topic of the plant
 *
 * What Kafka does not give by itself, and how the link provides it
 * (lib/link/transports/bus-session.js):
 * - No request/response: a command goes down the plant's topic, its answer comes up the shared
 *   one, and the cloud pairs them by the request's (src, seq) as on every transport
 *   (lib/link/inflight.js: exactly one answer per command, E_OUTCOME_UNKNOWN past its deadline).
 * - A log that keeps everything: a consumer that resumed from a committed offset would read the
 *   commands of an earlier session and write them late. Neither end ever resumes: each reads its
 *   topic with plain fetch requests from the end it had when it started (the edge: when its
 *   session starts, before it says hello), in no consumer group and committing nothing, so it
 *   reads only what was written from then on; the session id in every record tells one dial from
 *   the next, and the edge never writes a command past its deadline anyway. (No group also means
 *   no group coordinator to wait for: a session opens in a few round trips.)
 * - The broker hides a dropped connection of the other side: the sync heartbeat is the liveness.
 * - Who may connect: the broker's SASL login (across a network: SASL_SSL, with ACLs per plant
 *   on the topics where the cluster is shared), then the link token in the session's hello,
 *   checked before any frame is read, and one edge per plant, as on the WebSocket.
 */
const crypto = require('node:crypto');
const { loadClient } = require('./clients');
const { keepConnected } = require('./keep-connected');

const DEFAULTS = {
  prefix: 's7twin.link',
  mechanism: 'PLAIN', // SASL mechanism of the login (SCRAM-SHA-256 and -512 are the others)
  maxWaitTime: 500, // a fetch with nothing to read returns after this (records are returned at once)
  maxFetchBytes: 4 * 1024 * 1024, // one fetch's records at most
  connectTimeoutMs: 5000,
  requestTimeoutMs: 5000,
};

/** The up topic, and a plant's down topic. */
const topicsOf = (prefix) => ({ up: `${prefix}.up`, down: (plant) => `${prefix}.down.${plant}` });

/** Options every client of one end shares. */
function baseOptions(url, o, role) {
  const u = new URL(url);
  return {
    clientId: `s7twin-${role}-${crypto.randomBytes(4).toString('hex')}`,
    bootstrapBrokers: [`${u.hostname}:${u.port || 9092}`],
    ...(o.username ? { sasl: { mechanism: o.mechanism, username: o.username, password: o.password } } : {}),
    connectTimeout: o.connectTimeoutMs,
    requestTimeout: o.requestTimeoutMs,
    timeout: o.requestTimeoutMs,
    retries: 1,
    retryDelay: 200,
    autocreateTopics: true,
  };
}

const IS_CONTROL = 0x20; // a record batch's attributes: a transaction marker, not data

/**
 * A topic's metadata once the broker has it with a leader: a topic asked for the first time is
 * created by the broker (auto-create) a moment after the request that named it.
 */
async function topicMetadata(consumer, topic, ms) {
  const end = Date.now() + ms;
  for (;;) {
    let t = null;
    try {
      const meta = await consumer.metadata({ topics: [topic], autocreateTopics: true, forceUpdate: true });
      t = meta.topics.get(topic);
    } catch (err) {
      if (Date.now() > end) throw err;
    }
    if (t && t.partitions[0] && t.partitions[0].leader >= 0) return t;
    if (Date.now() > end) throw Object.assign(new Error(`the Kafka topic ${topic} has no leader after ${ms} ms`), { code: 'E_LINK_KAFKA_TOPIC' });
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Read one topic's partition 0 from `offset` on, record by record, until closed: fetch requests
 * straight to its leader, no consumer group (nothing to join, nothing committed).
 * @returns {{close(): void}}
 */
function readFrom(consumer, topic, offset, o, onRecord, onLost) {
  let closed = false;
  let next = offset;
  (async () => {
    const t = await topicMetadata(consumer, topic, o.connectTimeoutMs);
    const part = { partition: 0, fetchOffset: next, partitionMaxBytes: o.maxFetchBytes, currentLeaderEpoch: -1, lastFetchedEpoch: -1 };
    while (!closed) {
      part.fetchOffset = next;
      const r = await consumer.fetch({
        node: t.partitions[0].leader, topics: [{ topicId: t.id, partitions: [part] }], maxWaitTime: o.maxWaitTime, minBytes: 1, maxBytes: o.maxFetchBytes,
      });
      for (const tr of r.responses) {
        for (const p of tr.partitions) {
          if (p.errorCode) throw Object.assign(new Error(`Kafka fetch of ${topic} failed (error code ${p.errorCode})`), { code: 'E_LINK_KAFKA_FETCH' });
          for (const batch of p.records || []) {
            const last = batch.firstOffset + BigInt(batch.lastOffsetDelta);
            if (!(batch.attributes & IS_CONTROL)) {
              for (const rec of batch.records) {
                if (batch.firstOffset + BigInt(rec.offsetDelta) >= next && !closed) onRecord(rec.value);
              }
            }
            if (last + 1n > next) next = last + 1n;
          }
        }
      }
    }
  })().catch((err) => { if (!closed) onLost(err); });
  return { close() { closed = true; } };
}

/**
 * One end's clients: a producer, and a reader of `topic` from its end as it is now (records
 * written before are never read).
 * @returns {Promise<{producer, consumer, close(): Promise<void>}>}
 */
async function openEnd(kafka, base, topic, o, onRecord, onLost) {
  const producer = new kafka.Producer({ ...base, acks: 1 });
  // A consumer client for its fetch and offset requests only: it joins no group.
  const consumer = new kafka.Consumer({ ...base, groupId: `${base.clientId}-unused`, autocommit: false });
  const closeAll = async () => {
    await Promise.allSettled([consumer.close(true), producer.close()]);
  };
  for (const c of [producer, consumer]) c.on('client:broker:disconnect', () => onLost(new Error('the Kafka broker connection dropped')));
  try {
    await topicMetadata(consumer, topic, o.connectTimeoutMs);
    const offsets = await consumer.listOffsets({ topics: [topic] });
    const reader = readFrom(consumer, topic, (offsets.get(topic) || [0n])[0], o, onRecord, onLost);
    return { producer, consumer, close: async () => { reader.close(); await closeAll(); } };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/** Produce one record; a failure ends what it was for. */
function produce(end, topic, buf, onLost) {
  end.producer.send({ messages: [{ topic, partition: 0, value: buf }] }).catch((err) => onLost(err));
}

/**
 * The cloud's carrier: reads the up topic, writes each plant's down topic.
 * @param {object} o
 * @param {string} o.url kafka://host:port (a bootstrap broker)
 * @param {string} [o.username] SASL login
 * @param {string} [o.password]
 * @param {string} [o.prefix] topic names' prefix (default s7twin.link)
 * @param {object} [o.backoff] reconnect back-off
 * @returns {object} a cloud carrier (lib/link/transports/bus-session.js)
 */
function cloudCarrier(o) {
  const kafka = loadClient('kafka');
  const opts = { ...DEFAULTS, ...o };
  const topics = topicsOf(opts.prefix);
  let downFn = () => {};
  let upFn = () => {};
  let keeper = null;
  let end = null;
  return {
    async start(onMessage) {
      keeper = keepConnected({
        backoff: opts.backoff,
        onDown: (err) => { end = null; downFn(err); },
        onUp: () => upFn(),
        async connect(lost) {
          const e = await openEnd(kafka, baseOptions(opts.url, opts, 'cloud'), topics.up, opts, (buf) => onMessage(buf, {}), lost);
          end = e;
          return e;
        },
      });
      await keeper.first;
    },
    send(to, buf) {
      if (!end) throw new Error('the Kafka broker is not connected');
      const e = end;
      produce(e, topics.down(to), buf, (err) => { if (end === e) e.close().catch(() => {}); downFn(err); });
    },
    onDown(fn) { downFn = fn; },
    onUp(fn) { upFn = fn; },
    async close() { if (keeper) await keeper.close(); end = null; },
  };
}

/**
 * The edge's carrier for one session: a producer and a consumer of the plant's down topic.
 * @param {string} url kafka://host:port
 * @param {object} o
 * @param {string} o.plant
 * @param {string} [o.username] SASL login
 * @param {string} [o.password]
 * @param {string} [o.prefix]
 * @returns {object} an edge carrier (lib/link/transports/bus-session.js)
 */
function edgeCarrier(url, o) {
  const kafka = loadClient('kafka');
  const opts = { ...DEFAULTS, ...o };
  const topics = topicsOf(opts.prefix);
  let messageFn = () => {};
  let downFn = () => {};
  let end = null;
  let closed = false;
  const lost = (err) => { if (!closed) downFn(err); };
  return {
    async open() {
      const e = await openEnd(kafka, baseOptions(url, opts, 'edge'), topics.down(opts.plant), opts, (buf) => messageFn(buf), lost);
      if (closed) { await e.close(); return; }
      end = e;
    },
    send(buf) {
      if (!end) throw new Error('the Kafka broker is not connected');
      produce(end, topics.up, buf, lost);
    },
    onMessage(fn) { messageFn = fn; },
    onDown(fn) { downFn = fn; },
    async close() {
      closed = true;
      if (end) await end.close();
    },
  };
}

module.exports = { DEFAULTS, topicsOf, cloudCarrier, edgeCarrier };
