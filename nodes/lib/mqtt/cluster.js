'use strict';
/**
 * The MQTT broker of every cloud instance of a fleet clustered over the fleet's Redis, so that
 * a PLC and its twins need not reach the same instance, the way aedes brokers cluster: `mqemitter-redis` carries every published message to the brokers
 * with a matching subscriber, `aedes-persistence-redis` keeps subscriptions, sessions and
 * retained messages in Redis. So the PLC's own MQTT client and an MQTT twin of its plant may be
 * connected to different instances.
 *
 * Plus the snapshot store lib/mqtt/server.js needs in a cluster: the merged last-known state of
 * each plant, in the hash `s7twin:<plant>:mqtt-state` (tag short name → JSON value), written by
 * the instance the PLC publishes to and read by an instance whose new subscriber asks for a
 * plant it has not seen a state of yet.
 *
 * Every Redis connection is made here, with an error listener (counted; ioredis reconnects by
 * itself), and closed by close().
 */
const { decodeState } = require('../fleet/backplane');

const stateKey = (plant) => `s7twin:${plant}:mqtt-state`;

/**
 * @param {object} o
 * @param {string} o.url redis:// URL (S7T_REDIS_URL)
 * @param {(err: Error) => void} [o.onError]
 * @returns {{mq: object, persistence: object, store: {merge(plant, values): Promise<void>, load(plant): Promise<object>},
 *   counters: object, close(): Promise<void>}}
 */
function createMqttCluster(o) {
  const Redis = require('ioredis');
  const counters = { redisErrors: 0, storeErrors: 0 };
  const conns = [];
  const conn = (name) => {
    const c = new Redis(o.url, { connectionName: `s7twin-mqtt-${name}`, retryStrategy: (n) => Math.min(2000, 50 * 2 ** Math.min(n, 10)) });
    c.on('error', (err) => { counters.redisErrors += 1; if (o.onError) o.onError(err); });
    conns.push(c);
    return c;
  };
  const mq = require('mqemitter-redis')({ subConn: conn('sub'), pubConn: conn('pub') });
  // aedes closes its emitter (QUIT on both connections) while the clients it is closing still
  // publish their $SYS unsubscribe notices; such a publish fails with "Connection is closed" and
  // the failure escaped as an unhandled rejection (which would stop Node-RED). So: publishes in
  // flight are counted, the emitter's close waits for them (at most 1 s), and a publish after
  // close began is dropped.
  let inFlight = 0;
  let closing = false;
  const emit = mq.emit.bind(mq);
  mq.emit = (msg, done) => {
    if (closing) { if (done) done(); return; }
    inFlight += 1;
    emit(msg, (err) => { inFlight -= 1; if (done) done(err); });
  };
  const close = mq.close.bind(mq);
  mq.close = (cb) => {
    closing = true;
    const end = Date.now() + 1000;
    const wait = () => (inFlight > 0 && Date.now() < end ? setTimeout(wait, 10) : close(cb));
    wait();
  };
  const store = conn('store');
  const persistence = require('aedes-persistence-redis')({ conn: conn('persistence') });
  return {
    mq,
    persistence,
    counters,
    store: {
      merge(plant, values) {
        const args = Object.entries(values).flatMap(([k, v]) => [k, JSON.stringify(v)]);
        if (!args.length) return Promise.resolve();
        return store.hset(stateKey(plant), ...args).then(() => undefined, () => { counters.storeErrors += 1; });
      },
      load(plant) {
        return store.hgetall(stateKey(plant)).then((h) => decodeState(h).values, () => { counters.storeErrors += 1; return {}; });
      },
    },
    async close() {
      // Not persistence.destroy(): it unsubscribes from the broker's emitter, which the broker's
      // own close has closed by now, and mqemitter-redis leaves that failure unhandled. Closing
      // its connection is all destroy would do besides.
      // QUIT waits for a reply that an unreachable Redis never sends: bounded, then cut.
      const bounded = (p) => Promise.race([p.catch(() => {}), new Promise((r) => setTimeout(r, 1000).unref())]);
      await Promise.allSettled(conns.map((c) => bounded(c.quit())));
      for (const c of conns) c.disconnect();
    },
  };
}

module.exports = { createMqttCluster, stateKey };
