'use strict';
/**
 * The link over AMQP 0-9-1 (RabbitMQ, through amqplib). Queues, no exchange of our own (the
 * default exchange routes by queue name):
 *
 *   s7twin.link.hello          every cloud instance consumes it (competing consumers): a session's
 *                              hello goes to one of them, with the edge's queue as reply-to
 *   <the cloud's own queue>    exclusive, server-named: the sessions this cloud welcomed send here
 *                              (its name comes back in the welcome)
 *   <the edge's own queue>     exclusive, server-named, one per session: the cloud's frames
 *
 * What AMQP does not give by itself, and how the link provides it
 * (lib/link/transports/bus-session.js):
 * - Queues outlive what fills them, so a command could wait in one and be delivered after the
 *   edge has come back. The edge's queue is exclusive: it is deleted with the edge's connection,
 *   and each session has a new one, so nothing of an earlier session is ever delivered. A frame
 *   with a deadline (a command, a probe) is sent with a per-message expiration until that
 *   deadline: RabbitMQ discards it rather than deliver it late, and the cloud answers it
 *   E_OUTCOME_UNKNOWN at its deadline as for any lost frame. The edge never writes a command past
 *   its deadline anyway (it judges the deadline with the link's clock offset). Hellos expire from
 *   their queue after the handshake's time.
 * - RabbitMQ hides a dropped TCP connection of the other side: the sync heartbeat is the
 *   liveness. Where the broker can tell sooner it does: the edge sends mandatory messages, and a
 *   message nothing receives (the cloud instance whose queue it was is gone) comes back and ends
 *   the session at once, so the edge redials; the cloud's messages to an edge whose queue is gone
 *   come back too and end that session.
 * - Who may connect: the broker's login (use one RabbitMQ user per plant with permissions on its
 *   own queues where the broker is shared), then the link token in the session's hello, checked
 *   before any frame is read, and one edge per plant, as on the WebSocket.
 */
const clock = require('../../core/clock');
const { loadClient } = require('./clients');
const { keepConnected } = require('./keep-connected');

const DEFAULTS = {
  helloQueue: 's7twin.link.hello',
  helloTtlMs: 10000, // a hello waits at most this long for a cloud to take it (an edge's handshake: 3 s)
  connectTimeoutMs: 5000,
};

/** The connection options of amqplib for a broker URL and login. */
function connectOptions(url, o) {
  const u = new URL(url);
  const vhost = decodeURIComponent(u.pathname.replace(/^\//, '')) || '/';
  return {
    protocol: u.protocol.replace(':', ''),
    hostname: u.hostname,
    port: Number(u.port) || (u.protocol === 'amqps:' ? 5671 : 5672),
    username: o.username || 'guest',
    password: o.password || 'guest',
    vhost,
    heartbeat: 0, // the link's own sync heartbeat is the liveness (RabbitMQ's is 60 s)
  };
}

/** Close an amqplib connection; cut its socket if the broker does not answer (a black hole). */
function closeConnection(conn, ms = 1000) {
  const cut = () => { try { conn.connection.stream.destroy(); } catch { /* gone */ } };
  return new Promise((resolve) => {
    // amqplib's close waits for the broker's answer, which a dead link never sends.
    const t = setTimeout(() => { cut(); resolve(); }, ms);
    conn.close().catch(() => {}).then(() => { clearTimeout(t); cut(); resolve(); });
  });
}

/** The expiration of a frame with a deadline (ms from now, at least 1), or undefined. */
const expiration = (dl) => (Number.isFinite(dl) ? String(Math.max(1, Math.ceil(dl - clock.now()))) : undefined);

/**
 * The cloud's carrier: consumes the hello queue and its own queue, answers to each session's queue.
 * @param {object} o
 * @param {string} o.url amqp://host:port[/vhost]
 * @param {string} [o.username]
 * @param {string} [o.password]
 * @param {object} [o.backoff] reconnect back-off
 * @returns {object} a cloud carrier (lib/link/transports/bus-session.js)
 */
function cloudCarrier(o) {
  const amqp = loadClient('amqp');
  const opts = { ...DEFAULTS, ...o };
  let downFn = () => {};
  let upFn = () => {};
  let goneFn = () => {};
  let keeper = null;
  let ch = null;
  const carrier = {
    address: undefined,
    async start(onMessage) {
      const deliver = (msg) => {
        if (msg) onMessage(msg.content, { replyTo: msg.properties.replyTo, remote: `amqp:${msg.properties.replyTo || '?'}` });
      };
      keeper = keepConnected({
        backoff: opts.backoff,
        onDown: (err) => { ch = null; downFn(err); },
        onUp: () => upFn(),
        async connect(lost) {
          const conn = await amqp.connect(connectOptions(opts.url, opts), { timeout: opts.connectTimeoutMs, noDelay: true });
          conn.on('error', () => {});
          conn.on('close', (err) => lost(err || new Error('the AMQP connection closed')));
          try {
            const c = await conn.createChannel();
            c.on('error', () => {});
            c.on('close', () => lost(new Error('the AMQP channel closed')));
            c.on('return', (msg) => goneFn(msg.fields.routingKey));
            await c.assertQueue(opts.helloQueue, { durable: false, autoDelete: false, arguments: { 'x-message-ttl': opts.helloTtlMs } });
            const own = await c.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
            await c.consume(opts.helloQueue, deliver, { noAck: true });
            await c.consume(own.queue, deliver, { noAck: true });
            carrier.address = own.queue;
            ch = c;
          } catch (err) {
            await closeConnection(conn);
            throw err;
          }
          return { close: () => closeConnection(conn) };
        },
      });
      await keeper.first;
    },
    send(to, buf, dl) {
      if (!ch) throw new Error('the AMQP broker is not connected');
      ch.sendToQueue(to, buf, { mandatory: true, expiration: expiration(dl) });
    },
    onDown(fn) { downFn = fn; },
    onUp(fn) { upFn = fn; },
    /** The broker returned a message: nothing receives at `to` any more. */
    onPeerGone(fn) { goneFn = fn; },
    async close() { if (keeper) await keeper.close(); ch = null; },
  };
  return carrier;
}

/**
 * The edge's carrier for one session: its own connection and exclusive queue.
 * @param {string} url amqp://host:port[/vhost]
 * @param {object} o
 * @param {string} [o.username]
 * @param {string} [o.password]
 * @param {number} [o.handshakeTimeoutMs] connecting counts against it
 * @returns {object} an edge carrier (lib/link/transports/bus-session.js)
 */
function edgeCarrier(url, o) {
  const amqp = loadClient('amqp');
  const opts = { ...DEFAULTS, ...o };
  let messageFn = () => {};
  let downFn = () => {};
  let conn = null;
  let ch = null;
  let queue = null;
  let to = opts.helloQueue;
  let closed = false;
  const down = (err) => { if (!closed) downFn(err); };
  return {
    async open() {
      // noDelay: TCP_NODELAY, as on every socket of ours (amqplib leaves Nagle's algorithm on: a frame
      // written right after another then waits for the broker's delayed ACK, about 40 ms).
      conn = await amqp.connect(connectOptions(url, opts), { timeout: opts.handshakeTimeoutMs || opts.connectTimeoutMs, noDelay: true });
      if (closed) { closeConnection(conn); return; }
      conn.on('error', () => {});
      conn.on('close', (err) => down(err || new Error('the AMQP connection closed')));
      ch = await conn.createChannel();
      ch.on('error', () => {});
      ch.on('return', () => down(Object.assign(new Error('no cloud receives the link\'s messages on the broker'), { code: 'E_LINK_NO_CLOUD' })));
      ({ queue } = await ch.assertQueue('', { exclusive: true, autoDelete: true, durable: false }));
      await ch.consume(queue, (msg) => { if (msg) messageFn(msg.content); }, { noAck: true });
    },
    send(buf) {
      if (!ch) throw new Error('the AMQP broker is not connected');
      ch.sendToQueue(to, buf, { replyTo: queue, mandatory: true });
    },
    route(address) { to = address; },
    onMessage(fn) { messageFn = fn; },
    onDown(fn) { downFn = fn; },
    async close() {
      closed = true;
      ch = null;
      if (conn) await closeConnection(conn);
    },
  };
}

module.exports = { DEFAULTS, cloudCarrier, edgeCarrier };
