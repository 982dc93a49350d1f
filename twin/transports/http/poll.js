'use strict';
/**
 * The HTTP transport's reading side: `GET <url>/state?since=<version>` returns every state frame
 * the edge sent since the version the twin last saw (none lost between two polls), a snapshot
 * when the version is unknown to the endpoint, or 204 when nothing is new. One poll in flight; the
 * next starts `pollMs` after the previous one started, or after a back-off with jitter while the
 * endpoint cannot be reached.
 */
const envelope = require('../../../nodes/lib/core/envelope');
const { TransportError } = require('../common');

/**
 * What the endpoint's answer to a poll says.
 * @param {{status: number, text: string}} r
 * @returns {{unauthorized: true} | {notModified: true} | {frames: object[]} | {error: TransportError}}
 */
function stateAnswer(r) {
  if (r.status === 401) return { unauthorized: true };
  if (r.status === 204) return { notModified: true };
  let body;
  try { body = JSON.parse(r.text); } catch { body = null; }
  if (r.status !== 200 || !Array.isArray(body)) {
    const code = body && body.e ? body.e.code : `E_HTTP_${r.status}`;
    return { error: new TransportError(code, body && body.e ? body.e.msg : `GET state answered HTTP ${r.status}`) };
  }
  return { frames: body };
}

/**
 * @param {object} o
 * @param {(path: string) => Promise<{status: number, text: string}>} o.get one GET
 * @param {object} o.stats polls, notModified, received, frames, snapshots, badFrames, authFailures
 *   and version (the last frame's seq) are kept there
 * @param {(code: string, msg?: string) => void} o.countError
 * @param {object} o.link ../envelopes.js: the frames go to its receive()
 * @param {number} o.pollMs
 * @param {{next(): number}} o.backoff the delay after a failed poll
 * @param {() => boolean} o.closed whether the transport is closed
 * @param {() => void} o.up the endpoint answered
 * @param {(err: Error) => void} o.down it did not, or answered with an error
 * @param {() => void} o.onRefused it refused the token (HTTP 401): final
 * @param {() => void} o.onPolled a poll went through (the transport's connect() waits for one with a version)
 */
function createPoller(o) {
  let timer = null;

  /** State frames in order; a frame that is not a valid envelope is counted and skipped. */
  function take(list) {
    for (const env of list) {
      try { envelope.validate(env); } catch (err) { o.stats.badFrames += 1; o.countError(err.code, err.message); continue; }
      if (env.k !== 'state' && env.k !== 'snap') continue;
      o.stats.received += 1;
      o.stats.frames += 1;
      if (env.k === 'snap') o.stats.snapshots += 1;
      o.stats.version = env.seq;
      o.link.receive(env);
    }
  }

  /** One poll; resolves true when the endpoint answered (whatever the state). */
  async function poll() {
    o.stats.polls += 1;
    let r;
    try {
      r = await o.get(`/state${o.stats.version ? `?since=${o.stats.version}` : ''}`);
    } catch (err) {
      o.down(err);
      return false;
    }
    const a = stateAnswer(r);
    if (a.unauthorized) {
      o.stats.authFailures += 1;
      o.onRefused();
      return false;
    }
    if (a.error) { o.down(a.error); return false; }
    if (a.notModified) o.stats.notModified += 1;
    o.up();
    if (a.frames) take(a.frames);
    return true;
  }

  async function loop() {
    timer = null;
    const t0 = Date.now();
    const ok = await poll();
    if (o.closed()) return;
    if (ok) o.onPolled();
    const ms = ok ? Math.max(0, o.pollMs - (Date.now() - t0)) : o.backoff.next();
    timer = setTimeout(loop, ms);
  }

  return {
    /** Start polling (unless the next poll is scheduled already). */
    start() { if (!timer) loop(); },
    /** No next poll (one in flight finishes, and schedules none once the transport is closed). */
    stop() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

module.exports = { createPoller, stateAnswer };
