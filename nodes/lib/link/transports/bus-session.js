'use strict';
/**
 * The link's sessions over a message bus (AMQP, Kafka, MQTT, ZeroMQ): what a WebSocket gives the
 * link by itself (a connection that opens once its peer is admitted, carries frames in order,
 * and closes), rebuilt on a carrier that only moves messages. Each broker's carrier
 * (lib/link/transports/amqp.js, kafka.js, mqtt.js, zmq.js) says where a message goes; this module
 * is the same for all of them.
 *
 * - A session is one dial of the edge: it draws a session id (lib/link/transports/bus-frame.js)
 *   and sends `hello` with its token, its plant and the codecs it speaks. The cloud admits it as it
 *   admits a WebSocket upgrade (the endpoint's `admitRequest`: token, plant, then one edge per
 *   plant) and answers `welcome` or `refused` (an HTTP status: 401, 403, 409, 503). Until the
 *   welcome, neither side reads a frame of the session: a message of a session the cloud does not
 *   know (never admitted, closed, or of a cloud that restarted) is dropped and answered `bye`, so
 *   the edge redials at once.
 * - Each side gets a "connection" (the seam lib/link/ws-transport.js describes), so the
 *   endpoints, the dialer, the heartbeat, the outbox and the requests held for their answer run on
 *   it unchanged. A broker hides a dropped TCP connection of the other side: the sync heartbeat
 *   is the liveness, as on a black-holed WebSocket (the cloud drops an edge silent for
 *   linkTimeoutMs, the edge cuts a silent cloud and redials).
 * - `close` and `terminate` send `bye` (best effort) and end the session at once on this side;
 *   a `bye` from the other side ends it there. A carrier that loses its broker ends every session
 *   on it (close 1006).
 * - The codec (lib/link/frame.js JSON_CODEC today) is agreed in the handshake: the edge offers
 *   the codecs it speaks, the cloud picks the first it knows; frames are its bytes, unchanged.
 *
 * A carrier, edge side: {open(): Promise, send(buf, dl?), route?(to), onMessage(fn(buf)),
 *   onDown(fn(err)), close(): Promise, buffered?(): number}.
 * A carrier, cloud side: {start(onMessage(buf, from)): Promise, send(to, buf, dl?), address?,
 *   onDown(fn(err)), onUp?(fn()), onPeerGone?(fn(to)), close(): Promise}; `from` = {replyTo?, plant?, remote?}: where an answer to it
 *   goes (else the plant's channel), the plant the broker vouches the sender may speak for (MQTT's
 *   topic ACLs), and a name for logs.
 *
 * Plain module (timers only).
 */
const { EventEmitter } = require('node:events');
const bus = require('./bus-frame');
const { JSON_CODEC } = require('../frame');

const DEFAULTS = {
  handshakeTimeoutMs: 3000, // hello → welcome; a black-holed broker hangs here otherwise
  maxPayload: 1024 * 1024, // a frame past this closes the session (1009), as ws does
  unknownReplyMs: 1000, // a session the cloud does not know is told so at most this often
};

const TOO_LARGE = 1009;
const UNKNOWN_SESSION = 4404; // a bye: the other side does not know the session (4000-4999: the application's own close codes)

/** Two carrier addresses (a queue name, a plant, a ZeroMQ routing id) are the same. */
const sameAddress = (a, b) => a === b || (Buffer.isBuffer(a) && Buffer.isBuffer(b) && a.equals(b));

/** Error with a code, for the connection's 'error' event. */
const coded = (code, message) => Object.assign(new Error(message), { code });

/**
 * One session's connection, the same on both sides.
 * @param {object} o
 * @param {string} o.sid
 * @param {string} o.transport the transport's id
 * @param {object} o.codec the agreed codec ({name, binary})
 * @param {number} o.maxPayload
 * @param {(type: string, body?: any, dl?: number) => void} o.write put a message of the session on the carrier
 * @param {() => number} [o.buffered] bytes the carrier holds unsent
 * @param {(code: number, reason: string) => void} o.onGone the session ended (after 'close' is due)
 * @returns {EventEmitter & object} a connection; `message(type, body)` feeds it one message of its session
 */
function createBusConnection(o) {
  const conn = new EventEmitter();
  let state = 'opening';

  function finish(code, reason) {
    if (state === 'closed') return;
    state = 'closed';
    o.onGone(code, reason);
    setImmediate(() => conn.emit('close', code, Buffer.from(String(reason || ''))));
  }

  function bye(code, reason) {
    try { o.write('bye', { code, reason: String(reason || '') }); } catch { /* the carrier is gone: the other side learns by silence */ }
    finish(code, reason);
  }

  return Object.defineProperties(conn, Object.getOwnPropertyDescriptors({
    sid: o.sid,
    transport: o.transport,
    get codec() { return o.codec; },
    set codec(c) { o.codec = c; },
    get open() { return state === 'open'; },
    get closed() { return state === 'closed'; },
    get buffered() { return o.buffered ? o.buffered() : 0; },
    /** The session is admitted: frames flow. */
    markOpen() { if (state === 'opening') state = 'open'; },
    /**
     * Write one frame.
     * @param {string|Buffer} data as the codec wrote it
     * @param {number} [dl] its deadline on this process's clock: a carrier that queues drops it after
     */
    send(data, dl) {
      if (state !== 'open') throw new Error('the link session is not open');
      try {
        o.write('frame', data, dl);
      } catch (err) {
        // The carrier cannot take it (its broker connection is going, its queue is full): the
        // session ends here, as a WebSocket whose socket failed, and the edge dials again.
        conn.emit('error', err);
        finish(1006, err.message);
      }
    },
    close(code = 1000, reason = '') { if (state !== 'closed') bye(code, reason); },
    terminate() { if (state !== 'closed') bye(1006, 'terminated'); },
    ping() { if (state === 'open') { try { o.write('ping'); } catch { /* gone */ } } },
    /** The session is over without a word to the other side (its carrier went). */
    lost(code, reason) { finish(code, reason); },
    /**
     * One message of this session from the other side.
     * @param {string} type
     * @param {Buffer} body
     */
    message(type, body) {
      if (state !== 'open') return;
      if (type === 'frame') {
        if (body.length > o.maxPayload) {
          conn.emit('error', coded('E_TOO_LARGE', `frame of ${body.length} bytes exceeds the ${o.maxPayload}-byte limit`));
          bye(TOO_LARGE, 'frame too large');
          return;
        }
        conn.emit('frame', body, Boolean(o.codec.binary));
        return;
      }
      if (type === 'ping') { try { o.write('pong'); } catch { /* gone */ } conn.emit('alive'); return; }
      if (type === 'pong') { conn.emit('alive'); return; }
      if (type === 'bye') {
        let b = {};
        try { b = bus.controlBody(body); } catch { /* a bye is a bye */ }
        finish(Number.isInteger(b.code) ? b.code : 1006, b.reason || 'closed by the other side');
      }
    },
  }));
}

/**
 * The edge side: dial the cloud over a carrier. The connection emits `open` once the cloud
 * welcomed the session, `refused(status)` if it refused it (then close), and a connection's
 * events; the carrier is closed with the session.
 * @param {object} carrier an edge carrier, not opened yet (see the header)
 * @param {object} o
 * @param {string} o.transport
 * @param {string} [o.token] the edge's link token
 * @param {string} o.plant the plant it serves
 * @param {object[]} [o.codecs] the codecs it speaks, best first (default JSON)
 * @param {number} [o.handshakeTimeoutMs]
 * @param {number} [o.maxPayload]
 * @returns {EventEmitter & object}
 */
function dialBus(carrier, o) {
  const opts = { ...DEFAULTS, ...o };
  const codecs = opts.codecs || [JSON_CODEC];
  const sid = bus.newSessionId();
  const conn = createBusConnection({
    sid,
    transport: opts.transport,
    codec: codecs[0],
    maxPayload: opts.maxPayload,
    write: (type, body, dl) => carrier.send(bus.encode(type, sid, body), dl),
    buffered: () => (carrier.buffered ? carrier.buffered() : 0),
    onGone: () => { clearTimeout(timer); carrier.close().catch(() => {}); },
  });
  const timer = setTimeout(() => {
    conn.emit('error', coded('E_LINK_HANDSHAKE', `no answer to the link's hello within ${opts.handshakeTimeoutMs} ms`));
    conn.lost(1006, 'handshake timed out');
  }, opts.handshakeTimeoutMs);

  carrier.onMessage((buf) => {
    let m;
    try { m = bus.decode(buf); } catch { return; }
    if (m.sid !== sid || conn.closed) return; // another session's (the plant's channel is shared)
    if (conn.open) { conn.message(m.type, m.body); return; }
    let b;
    try { b = bus.controlBody(m.body); } catch { b = {}; }
    if (m.type === 'welcome') {
      clearTimeout(timer);
      conn.codec = codecs.find((c) => c.name === b.codec) || codecs[0];
      if (b.to !== undefined && carrier.route) carrier.route(b.to);
      conn.markOpen();
      conn.emit('open');
    } else if (m.type === 'refused') {
      clearTimeout(timer);
      conn.emit('refused', Number(b.status) || 503, String(b.text || ''));
      conn.lost(1006, `refused: HTTP ${b.status}`);
    } else if (m.type === 'bye') {
      clearTimeout(timer);
      conn.lost(Number.isInteger(b.code) ? b.code : 1006, b.reason || 'closed by the cloud');
    }
  });
  carrier.onDown((err) => {
    if (conn.closed) return;
    conn.emit('error', err);
    conn.lost(1006, err.message);
  });
  carrier.open().then(() => {
    if (conn.closed) return;
    carrier.send(bus.encode('hello', sid, { v: 1, token: opts.token || '', plant: opts.plant, codecs: codecs.map((c) => c.name) }));
  }).catch((err) => {
    if (conn.closed) return;
    conn.emit('error', err);
    conn.lost(1006, err.message);
  });
  return conn;
}

/**
 * The cloud side: take sessions from a carrier and hand each admitted one to the endpoint.
 * @param {object} carrier a cloud carrier, not started yet (see the header)
 * @param {object} o
 * @param {string} o.transport
 * @param {(r: object) => void} o.admitRequest the edge endpoint's (lib/link/endpoint-core.js)
 * @param {object[]} [o.codecs] the codecs it speaks (default JSON)
 * @param {number} [o.maxPayload]
 * @param {number} [o.unknownReplyMs]
 * @param {(up: boolean, err?: Error) => void} [o.onStatus] the broker connection came up or went
 * @returns {{start(): Promise<void>, close(): Promise<void>, counters: object, sessions(): number, up: boolean}}
 */
function createBusListener(carrier, o) {
  const opts = { ...DEFAULTS, ...o };
  const codecs = opts.codecs || [JSON_CODEC];
  const sessions = new Map(); // sid -> {conn, to, plant}
  const told = new Map(); // sid of an unknown session -> when it was last told so
  const counters = { hellos: 0, sessions: 0, refusedSessions: 0, unknownSessions: 0, malformed: 0, foreignPlant: 0, brokerLost: 0, peersGone: 0 };
  let closed = false;

  const reply = (to, type, sid, body) => { try { carrier.send(to, bus.encode(type, sid, body)); } catch { /* the carrier is down */ } };

  function hello(m, from) {
    counters.hellos += 1;
    let h;
    try { h = bus.controlBody(m.body); } catch { counters.malformed += 1; return; }
    if (typeof h.plant !== 'string' || !h.plant) { counters.malformed += 1; return; } // nowhere to answer on a plant's channel
    const to = from.replyTo !== undefined ? from.replyTo : h.plant;
    const refuse = (status, text) => { counters.refusedSessions += 1; reply(to, 'refused', m.sid, { status, text }); };
    if (from.plant !== undefined && from.plant !== h.plant) {
      counters.foreignPlant += 1;
      refuse(403, `Forbidden: this channel belongs to plant ${from.plant}`);
      return;
    }
    const offered = Array.isArray(h.codecs) ? h.codecs : ['json'];
    const codec = codecs.find((c) => offered.includes(c.name));
    if (!codec) { refuse(400, `Bad Request: no codec in common (offered ${offered.join(', ')})`); return; }
    let gone = false;
    opts.admitRequest({
      token: typeof h.token === 'string' ? h.token : '',
      plant: h.plant,
      remote: from.remote || `${opts.transport}:${m.sid.slice(0, 8)}`,
      transport: opts.transport,
      refuse,
      get abandoned() { return closed || gone; },
      drop: () => { gone = true; },
      open(cb) {
        if (closed || sessions.has(m.sid)) return;
        const conn = createBusConnection({
          sid: m.sid,
          transport: opts.transport,
          codec,
          maxPayload: opts.maxPayload,
          write: (type, body, dl) => carrier.send(to, bus.encode(type, m.sid, body), dl),
          onGone: () => { sessions.delete(m.sid); counters.sessions = sessions.size; },
        });
        sessions.set(m.sid, { conn, to, plant: h.plant });
        counters.sessions = sessions.size;
        reply(to, 'welcome', m.sid, { codec: codec.name, to: carrier.address });
        conn.markOpen();
        cb(conn);
      },
    });
  }

  function onMessage(buf, from = {}) {
    if (closed) return;
    let m;
    try { m = bus.decode(buf); } catch { counters.malformed += 1; return; }
    const s = sessions.get(m.sid);
    if (m.type === 'hello') { if (!s) hello(m, from); return; }
    if (!s) {
      counters.unknownSessions += 1;
      const to = from.replyTo !== undefined ? from.replyTo : from.plant;
      const last = told.get(m.sid);
      if (m.type !== 'bye' && to !== undefined && !(last && Date.now() - last < opts.unknownReplyMs)) {
        if (told.size > 1000) told.clear();
        told.set(m.sid, Date.now());
        reply(to, 'bye', m.sid, { code: UNKNOWN_SESSION, reason: 'unknown link session' });
      }
      return;
    }
    if (from.plant !== undefined && from.plant !== s.plant) { counters.foreignPlant += 1; return; }
    s.conn.message(m.type, m.body);
  }

  if (carrier.onPeerGone) {
    // The broker (the ZeroMQ router) says nothing receives at a session's address any more (AMQP:
    // the edge's queue went with its connection; ZeroMQ: its connection dropped): that session is
    // over, sooner than its silence would tell.
    carrier.onPeerGone((to) => {
      for (const s of [...sessions.values()]) {
        if (sameAddress(s.to, to)) { counters.peersGone += 1; s.conn.lost(1006, 'nothing receives at the edge\'s address any more'); }
      }
    });
  }
  let up = false;
  const status = (isUp, err) => {
    if (isUp === up) return;
    up = isUp;
    if (opts.onStatus) opts.onStatus(up, err);
  };
  carrier.onDown((err) => {
    counters.brokerLost += 1;
    status(false, err);
    for (const s of [...sessions.values()]) s.conn.lost(1006, `broker connection lost: ${err.message}`);
  });
  if (carrier.onUp) carrier.onUp(() => status(true));

  return {
    counters,
    sessions: () => sessions.size,
    /** Connected to its broker (bound, for ZeroMQ) now. */
    get up() { return up; },
    /** Connect (bind) and take sessions; rejects if the first attempt fails (a broker carrier keeps trying). */
    start: () => carrier.start(onMessage).then(() => status(true)),
    /** Close every session (1001) and the carrier. */
    async close() {
      if (closed) return;
      closed = true;
      up = false;
      for (const s of [...sessions.values()]) s.conn.close(1001, 'endpoint closing');
      await carrier.close();
    },
  };
}

module.exports = { DEFAULTS, UNKNOWN_SESSION, createBusConnection, dialBus, createBusListener };
