'use strict';
/**
 * What the edge's two relays share, the tag bridge (bridge.js) and the probe relay (probes.js):
 * a PLC session and a cloud session (session.js), each with a writer that writes to it, and the
 * rules for their comings and goings:
 * - a PLC that goes away loses what was queued for it (a command written late could undo what
 *   happened meanwhile); a PLC session that is (re)created may have other values, so what it was
 *   believed to have is forgotten, and it gets nothing until a twin sends something new;
 * - a cloud that goes away makes the fresh filter hold (notifications republished after a
 *   reconnect are no commands); a cloud session that is (re)created may have lost its values (a
 *   restarted server), so it gets the PLC's latest image again, and what it holds now is read as
 *   the new baseline (baseline.js);
 * - a first session that fails is tried again until it works (first-session.js); a stop ends
 *   every wait at once (waits.js) and closes both sessions.
 * Errors are reported as 'error' events (only when someone listens), never thrown.
 */
const { createWaits } = require('./waits');
const { connectFirstSession } = require('./first-session');

/**
 * @param {import('node:events').EventEmitter} ee the relay's: 'status' and 'error' events
 * @returns {{isStopped(): boolean, wait(ms: number): Promise<void>, fail(err: Error): void,
 *   wire(parts: object): void, connect(sessions: object[], retryMs?: number): Promise<void>,
 *   stop(close: () => Array<Promise|null>): Promise<void>}}
 */
function createRelayCore(ee) {
  const waits = createWaits(); // connect retries, baseline retries and pulse holds, ended by stop
  let stopped = false;
  const isStopped = () => stopped;
  const fail = (err) => { if (ee.listenerCount('error')) ee.emit('error', err); };

  return {
    isStopped,
    wait: waits.wait,
    fail,
    /**
     * The sessions' comings and goings (see the header).
     * @param {object} parts
     * @param {object} parts.plc the PLC session
     * @param {object} parts.cloud the cloud session
     * @param {{plc: string, cloud: string}} parts.names the sides in 'status' events
     * @param {object} parts.fresh the fresh filter of the cloud's notifications (fresh.js)
     * @param {{drop(): void, forget(): void}} parts.toPlc the PLC's writer
     * @param {{resync(image): void}} parts.toCloud the cloud's writer
     * @param {*} parts.cloudImage what the cloud gets again on a new session (the PLC's latest)
     * @param {{run(): Promise<void>}} parts.baseline baseline.js
     * @param {{resyncs: number}} parts.counters
     * @param {() => void} [parts.onPlcSession] more to do on a new PLC session
     */
    wire({ plc, cloud, names, fresh, toPlc, toCloud, cloudImage, baseline, counters, onPlcSession }) {
      plc.on('status', (status, detail) => {
        if (status !== 'connected') toPlc.drop(); // what the PLC did not get now, it never gets
        ee.emit('status', { side: names.plc, status, detail });
      });
      cloud.on('status', (status, detail) => {
        if (status !== 'connected') fresh.hold(); // republished notifications after a reconnect are no commands
        ee.emit('status', { side: names.cloud, status, detail });
      });
      cloud.on('session', () => {
        counters.resyncs += 1;
        toCloud.resync(cloudImage);
        fresh.hold();
        baseline.run();
      });
      plc.on('session', () => {
        if (onPlcSession) onPlcSession();
        toPlc.forget();
      });
    },
    /** First sessions of every session, each tried until it works; resolves then, or once stopped. */
    connect(sessions, retryMs) {
      const opts = { retryMs, isStopped, wait: waits.wait, onError: fail };
      return Promise.all(sessions.map((s) => connectFirstSession(s, opts))).then(() => {});
    },
    /** Stop: every wait ends now, then `close()`'s promises are awaited (their failures too). */
    async stop(close) {
      stopped = true;
      waits.cancel();
      await Promise.allSettled(close());
    },
  };
}

module.exports = { createRelayCore };
