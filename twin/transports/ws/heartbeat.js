'use strict';
/**
 * The client side's heartbeat on a `ws` WebSocket: a ping every period, and a connection that
 * has not answered the previous ping by the next one is terminated. A half-open TCP connection
 * (a peer gone without a FIN: a pulled cable, a NAT that forgot us) would otherwise look alive
 * until the kernel gives up, minutes later; terminating it brings the transport's reconnect.
 */

/**
 * @param {{ping(): void, terminate(): void, on: Function, off: Function}} sock a ws WebSocket
 * @param {number} periodMs time between two pings, and the time a pong may take
 * @returns {{stop(): void}}
 */
function startHeartbeat(sock, periodMs) {
  let awaitingPong = false;
  const onPong = () => { awaitingPong = false; };
  sock.on('pong', onPong);
  const timer = setInterval(() => {
    if (awaitingPong) { sock.terminate(); return; } // half-open: no pong for a whole period
    awaitingPong = true;
    try { sock.ping(); } catch { /* closing: the close handler reconnects */ }
  }, periodMs);
  if (timer.unref) timer.unref();
  return {
    stop() {
      clearInterval(timer);
      sock.off('pong', onPong);
    },
  };
}

module.exports = { startHeartbeat };
