'use strict';
/**
 * An in-memory message bus with the carriers lib/link/transports/bus-session.js runs on (as the
 * broker carriers amqp.js, kafka.js, mqtt.js and zmq.js give them), for unit tests of the link's
 * sessions without a broker: every message is delivered on a later turn, as over a socket.
 *
 * The cloud side listens on one channel; an edge carrier sends there and gets the cloud's messages
 * on its plant's channel (as over Kafka or MQTT: every session of a plant sees them) unless the
 * cloud answers to its own reply address (`replyTo: true`, as over AMQP or ZeroMQ). `down()` cuts
 * the broker off both sides (each carrier's onDown), `hold()` keeps every message back (a black
 * hole) until `release()`.
 */
function memoryBus(o = {}) {
  let cloud = null; // {onMessage, onDown}
  const edges = new Set(); // {plant, box, onMessage, onDown}
  let held = null;
  const log = [];
  const later = (fn) => { if (held) held.push(fn); else setImmediate(fn); };

  function cloudCarrier() {
    const c = {
      address: o.cloudAddress,
      sent: [],
      async start(onMessage) { cloud = { onMessage, onDown: c.downFn || (() => {}) }; },
      send(to, buf, dl) {
        if (!cloud) throw new Error('bus down');
        c.sent.push({ to, buf, dl });
        log.push({ dir: 'down', to, buf, dl });
        for (const e of edges) if (e.plant === to || e.box === to) later(() => e.onMessage(buf));
      },
      onDown(fn) { c.downFn = fn; if (cloud) cloud.onDown = fn; },
      async close() { cloud = null; },
    };
    return c;
  }

  let boxes = 0;
  function edgeCarrier(plant, eo = {}) {
    const e = { plant, box: `box-${++boxes}`, onMessage: () => {}, onDown: () => {}, opened: false, closed: false, routed: null };
    const from = () => ({ ...(o.replyTo ? { replyTo: e.box } : {}), ...(o.vouch ? { plant: eo.vouchPlant || plant } : {}), remote: e.box });
    return {
      edge: e,
      async open() {
        if (eo.failOpen) throw Object.assign(new Error('broker refused the login'), { code: 'ECONNREFUSED' });
        e.opened = true;
        edges.add(e);
      },
      send(buf, dl) {
        if (e.closed) throw new Error('carrier closed');
        log.push({ dir: 'up', from: e.box, buf, dl });
        later(() => { if (cloud) cloud.onMessage(buf, from()); });
      },
      route(to) { e.routed = to; },
      onMessage(fn) { e.onMessage = fn; },
      onDown(fn) { e.onDown = fn; },
      async close() { e.closed = true; edges.delete(e); },
    };
  }

  return {
    log,
    cloudCarrier,
    edgeCarrier,
    /** Send raw bytes to the cloud as an edge of `plant` would (a forged or stale session). */
    inject(buf, from = {}) { later(() => { if (cloud) cloud.onMessage(buf, from); }); },
    down(err = new Error('broker connection lost')) {
      if (cloud) cloud.onDown(err);
      for (const e of [...edges]) e.onDown(err);
    },
    hold() { held = held || []; },
    release() { const h = held || []; held = null; for (const fn of h) setImmediate(fn); },
  };
}

module.exports = { memoryBus };
