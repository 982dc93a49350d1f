'use strict';
/**
 * The broker's two listeners: MQTT over TCP (or TLS) and MQTT over WebSocket on its own HTTP(S)
 * server, each socket handed to aedes.
 *
 * - setNoDelay(true) on every socket: a QoS 1 round trip took 44 ms with Nagle's algorithm (it
 *   waits for the delayed ACK) and 0.28 ms without.
 * - A TCP frame guard (lib/mqtt/frame-guard.js) reads the fixed header of every packet and drops
 *   a connection announcing a packet larger than maxFrameBytes before it is buffered (aedes and
 *   mqtt-packet have no limit, so an unauthenticated CONNECT of 256 MB would otherwise be held in
 *   memory); on WebSocket, ws' maxPayload does the same.
 * - TLS (opts.tls {key, cert}): the TCP port speaks mqtts and the WebSocket port https/wss,
 *   nothing else; a plain-text client fails the handshake, is counted (tlsErrors) and never read.
 */
const net = require('node:net');
const tls = require('node:tls');
const { WebSocketServer, createWebSocketStream } = require('ws');
const { createFrameGuard } = require('./frame-guard');
const { serverError } = require('./errors');

/**
 * Listen; resolve with the port bound.
 * @throws {MqttServerError} E_MQTT_LISTEN
 */
function listen(server, port, host) {
  return new Promise((resolve, reject) => {
    const onError = (e) => {
      server.removeListener('listening', onListening);
      reject(serverError('E_MQTT_LISTEN', `cannot listen on ${host}:${port}: ${e.message}`));
    };
    const onListening = () => { server.removeListener('error', onError); resolve(server.address().port); };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/** Offer `mqtt` (or the older `mqttv3.1`) as the WebSocket subprotocol, nothing else. */
const mqttProtocol = (protocols) => (protocols.has('mqtt') ? 'mqtt' : protocols.has('mqttv3.1') ? 'mqttv3.1' : false);

/**
 * @param {object} l
 * @param {object} l.o the broker's options: host, port, wsPort, wsPath, maxFrameBytes, noDelay, tls
 * @param {{handle(stream: object, req?: object): void}} l.broker aedes
 * @param {{connections: number, oversized: number, tlsErrors: number}} l.counters
 * @param {(ev: object) => void} l.report
 * @returns {{start(): Promise<{tcp: number|null, ws: number|null}>, drop(): void,
 *   close(): Array<Promise<void>>}}
 */
function createListeners(l) {
  const { o, broker, counters } = l;
  const sockets = new Set();
  const track = (sock) => { sockets.add(sock); sock.once('close', () => sockets.delete(sock)); };
  let tcp = null;
  let wss = null;
  let httpServer = null;

  function onSocket(socket) {
    socket.setNoDelay(o.noDelay);
    counters.connections += 1;
    track(socket);
    socket.on('error', () => {}); // resets are normal; aedes sees the close
    const guarded = createFrameGuard(socket, o.maxFrameBytes, () => {
      counters.oversized += 1;
      l.report({
        type: 'refused', code: 'E_MQTT_FRAME',
        message: `a packet larger than ${o.maxFrameBytes} bytes was announced by ${socket.remoteAddress}:${socket.remotePort}`,
      });
    });
    // The socket as aedes' `req` (its own use is a WebSocket's request): the client's address for
    // the command log (lib/mqtt/command-log.js), as a WebSocket client's request gives it.
    broker.handle(guarded, { socket });
  }

  function startTcp() {
    if (o.tls) {
      // mqtts: aedes sees the socket only once the handshake is done; a failed handshake
      // (plain MQTT, a bad certificate) is counted and the socket dropped.
      tcp = tls.createServer({ key: o.tls.key, cert: o.tls.cert }, onSocket);
      tcp.on('tlsClientError', (e, sock) => { counters.tlsErrors += 1; sock.destroy(); });
      tcp.on('connection', track);
    } else tcp = net.createServer(onSocket);
    return listen(tcp, o.port, o.host);
  }

  function startWs() {
    const onRequest = (req, res) => { res.writeHead(426, { 'Content-Type': 'text/plain' }); res.end('MQTT over WebSocket only\n'); };
    httpServer = o.tls ? require('node:https').createServer({ key: o.tls.key, cert: o.tls.cert }, onRequest) : require('node:http').createServer(onRequest);
    if (o.tls) httpServer.on('tlsClientError', () => { counters.tlsErrors += 1; });
    wss = new WebSocketServer({ server: httpServer, path: o.wsPath, perMessageDeflate: false, maxPayload: o.maxFrameBytes, handleProtocols: mqttProtocol });
    wss.on('connection', (ws, req) => {
      if (req.socket) { req.socket.setNoDelay(o.noDelay); track(req.socket); }
      counters.connections += 1;
      ws.on('error', () => {});
      const stream = createWebSocketStream(ws);
      stream.on('error', () => {});
      broker.handle(stream, req);
    });
    wss.on('error', () => {});
    return listen(httpServer, o.wsPort, o.host);
  }

  return {
    /** Start the listeners that are on (port 0: any free port). */
    async start() {
      const ports = { tcp: null, ws: null };
      if (o.port || o.port === 0) ports.tcp = await startTcp();
      if (o.wsPort || o.wsPort === 0) ports.ws = await startWs();
      return ports;
    },
    /** End every client connection now. */
    drop() {
      for (const s of sockets) s.destroy();
      if (wss) for (const c of wss.clients) c.terminate();
    },
    /** Stop listening: one promise per listener, settled when its port is free. */
    close() {
      return [
        tcp ? new Promise((r) => tcp.close(() => r())) : null,
        wss ? new Promise((r) => wss.close(() => r())) : null,
        httpServer ? new Promise((r) => { httpServer.close(() => r()); httpServer.closeAllConnections(); }) : null,
      ];
    },
  };
}

module.exports = { createListeners, listen, mqttProtocol };
