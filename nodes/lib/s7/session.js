'use strict';
/**
 * The requests of one established PLC connection: one at a time, never two in flight. Each turn
 * it picks the next request: a read when one is wanted first (lib/s7/read-pacer.js), else the next
 * write job (lib/s7/write-queue.js: expired writes dropped right before it is taken), else a
 * one-off read someone asked for (`once`: a signal's ring blocks, lib/stream/reader.js), else a
 * read when the cycle says so. A request that does not come back within twice the request timeout
 * fails the connection, as does a read of bad quality. A session ends with its connection: stop()
 * hands back the write in flight, whose outcome is then unknown.
 *
 * A write job's deadlines are checked once more right before its bytes go to the socket, after
 * the client built the request (lib/s7/nodes7-client.js gate): the build can take tens of
 * milliseconds. A job too late there is not sent; its late writes are refused and the others
 * queued again at the head. A write whose request went out and that then fails without the PLC's
 * answer (the client's own timer) is E_OUTCOME_UNKNOWN, never E_WRITE: the PLC may apply the
 * request it has when it resumes; the connection is rebuilt.
 */
const { performance } = require('node:perf_hooks');
const { s7Error } = require('./errors');

/**
 * @param {object} s
 * @param {object} s.client the connection (lib/s7/nodes7-client.js interface)
 * @param {object} s.queue lib/s7/write-queue.js
 * @param {object} s.pacer lib/s7/read-pacer.js
 * @param {object} s.reads lib/s7/read-list.js
 * @param {object} s.counters reads, readErrors, lastReadMs, writes, writeErrors, batched, writeJobs
 * @param {number} s.timeoutMs request timeout (a request gets twice this)
 * @param {string[]} s.ioAddrs the I/O ranges' addresses (each must come back with every read)
 * @param {(io: Buffer[], extra: object) => void} s.onData each good read: the I/O ranges' bytes
 *   (in the order of ioAddrs), the watched items' values
 * @param {(err: Error) => void} s.onFail the connection must go (E_TIMEOUT, E_READ)
 * @param {Array<{addrs: string[], resolve: Function, reject: Function}>} [s.once] one-off reads
 *   waiting (the connection's queue: taken from the front, answered here)
 * @returns {{start(): void, kick(): void, stop(): object|null}}
 */
function createSession(s) {
  const { client, queue, pacer, reads, counters } = s;
  const once = s.once || [];
  let busy = null; // the request in progress: {kind, op?}
  let tickTimer = null;
  let guardTimer = null;
  let stopped = false;

  function guard(what) {
    clearTimeout(guardTimer);
    guardTimer = setTimeout(() => s.onFail(s7Error('E_TIMEOUT', `${what} timed out`)), s.timeoutMs * 2);
  }
  function settled() {
    clearTimeout(guardTimer);
    busy = null;
  }

  function tick() {
    tickTimer = null;
    if (stopped || busy) return;
    const now = performance.now();
    // A read of several PDUs is not followed by another before its rest is over, whatever asks.
    if (pacer.readFirst(now)) { read(); return; }
    if (queue.length) queue.dropExpired();
    if (queue.length) { write(queue.takeJob(client.maxPdu)); return; }
    if (once.length) { readOnce(once.shift()); return; }
    const wait = pacer.waitMs(now);
    if (wait <= 0) { read(); return; }
    tickTimer = setTimeout(tick, wait);
  }

  function read() {
    const started = performance.now(); // the pacer's clock: monotonic, and finer than Date.now()'s milliseconds
    const items = reads.take();
    if (items) client.setItems(items);
    pacer.readStarted();
    busy = { kind: 'read' };
    guard('read');
    client.read((bad, values, pdus) => {
      if (stopped) return;
      settled();
      const missing = bad ? s.ioAddrs[0] : s.ioAddrs.find((a) => !Array.isArray(values[a]));
      if (missing) {
        counters.readErrors += 1;
        s.onFail(s7Error('E_READ', `read failed (bad quality): is the PLC reachable, and does it have ${missing} (the I/O table's areas and sizes)?`));
        return;
      }
      counters.reads += 1;
      counters.readPdus += pdus;
      const now = performance.now();
      counters.lastReadMs = Math.round((now - started) * 10) / 10;
      pacer.readDone({ started, tookMs: now - started, pdus, values, now });
      try {
        s.onData(s.ioAddrs.map((a) => Buffer.from(values[a])), reads.extra(values));
      } finally {
        if (!tickTimer && !busy) tick();
      }
    });
  }

  /**
   * A one-off read of other items than the cyclic ones: nodes7 packs them into as few requests as
   * the PDU allows and sends those one by one. The cyclic read sets its own items back.
   */
  function readOnce(job) {
    busy = { kind: 'read', once: job };
    guard('read');
    client.setItems(job.addrs);
    reads.touch();
    client.read((bad, values, pdus) => {
      if (stopped) return;
      settled();
      // nodes7 hands back an item of bad quality as its qualities (an array of text, for a range).
      const missing = job.addrs.find((a) => !Array.isArray(values[a]) || (bad && typeof values[a][0] === 'string'));
      if (missing) {
        // Bad quality for an item the cyclic read does not have: the item's fault (a DB too
        // short), not the connection's; a lost connection fails the next cyclic read.
        counters.readErrors += 1;
        job.reject(s7Error('E_READ', `read of ${missing} failed (bad quality): does the PLC have it?`));
      } else {
        counters.onceReads += 1;
        counters.oncePdus += pdus;
        job.resolve({ buffers: job.addrs.map((a) => Buffer.from(values[a])), pdus });
      }
      if (!tickTimer && !busy) tick();
    });
  }

  /** The client's answer to a write job that went out. */
  function written(job, bad, info = {}) {
    if (stopped) return;
    settled();
    if (bad && info.timedOut) {
      // The request left and the PLC did not answer it in time: it may apply it when it resumes.
      counters.writeErrors += 1;
      job.reject(s7Error('E_OUTCOME_UNKNOWN', 'the write request was sent and the PLC did not answer it in time: whether it was applied is unknown'));
      s.onFail(s7Error('E_TIMEOUT', 'write timed out'));
      return;
    }
    if (bad) {
      counters.writeErrors += 1;
      job.reject(s7Error('E_WRITE', 'the PLC refused the write (bad quality)'));
    } else {
      counters.writes += job.merged || 1;
      if (job.merged) counters.batched += job.merged;
      job.resolve();
    }
    pacer.writeDone(!bad, performance.now());
    tick();
  }

  /** Send one job (lib/s7/write-queue.js takeJob) in one write request. */
  function write(job) {
    busy = { kind: 'write', op: job };
    counters.writeJobs += 1;
    guard('write');
    const sent = client.write(job.items, (bad, info) => written(job, bad, info), () => !queue.late(job));
    if (sent === 'sent') return;
    settled();
    counters.writeJobs -= 1;
    if (sent === 'late') queue.putBack(job); // refused right before the bytes would have gone out
    else { // nodes7 had a write in progress: cannot happen as we serialise, but be safe
      counters.writeErrors += 1;
      job.reject(s7Error('E_BUSY', 'nodes7 refused the write: another write is in progress'));
    }
    tick();
  }

  return {
    /** The connection is up: read at once. */
    start() {
      pacer.requestRead();
      tick();
    },
    /** Something to do (a write queued, a read asked for): start it now unless a request is out. */
    kick() {
      if (stopped || busy) return;
      clearTimeout(tickTimer);
      tick();
    },
    /**
     * End the session (its connection is gone or closing): no request starts or completes after.
     * @returns {object|null} the write job in flight, if any (the caller answers it)
     */
    stop() {
      stopped = true;
      clearTimeout(tickTimer);
      tickTimer = null;
      clearTimeout(guardTimer);
      const op = busy && busy.op ? busy.op : null;
      if (busy && busy.once) busy.once.reject(s7Error('E_PLC_DOWN', 'the PLC connection went during the read'));
      busy = null;
      return op;
    },
  };
}

module.exports = { createSession };
