'use strict';
/**
 * A node's close that always reaches done(): Node-RED waits 15 s for a node's close handler and
 * then gives up on it (and on the redeploy's clean start), so a server or client that does not
 * close in time must not hold the runtime. One copy for every node that closes something slow.
 */

/**
 * Run `work()` and call `done()` once when it settles or after `ms`, whichever comes first. A
 * failure or the timeout is a warning (the node is going away: nothing to retry); `after()` runs
 * just before done (clear the status, say).
 * @param {{warn: (msg: string) => void}} node
 * @param {() => void} done Node-RED's close callback
 * @param {{ms: number, what: string, work: () => Promise<any>, after?: () => void}} o
 */
function closeWithin(node, done, o) {
  let finished = false;
  let guard = null;
  const finish = (err) => {
    if (finished) return;
    finished = true;
    clearTimeout(guard);
    if (err) node.warn(`${o.what}: ${err.message}`);
    try { if (o.after) o.after(); } finally { done(); }
  };
  guard = setTimeout(() => finish(new Error(`did not close within ${o.ms} ms; continuing`)), o.ms);
  let p;
  try { p = Promise.resolve(o.work()); } catch (err) { p = Promise.reject(err); }
  p.then(() => finish(), (err) => finish(err || new Error('close failed')));
}

module.exports = { closeWithin };
