'use strict';
/**
 * The baseline read on every cloud session, for the tag bridge (per command tag) and the probe
 * relay (per probe slot): what the cloud's writable variables hold when a session starts is no
 * command, so it is read and handed to the fresh filter (fresh.js) as the baseline; the
 * notifications the filter kept aside that turn out newer than the read are commands a twin sent
 * while the read was on its way, and go on now. A read that fails is tried again every retryMs
 * while the session lasts; a newer run (the next session) makes an older one that answers late
 * count for nothing.
 */

/**
 * @param {object} opts
 * @param {{connected: boolean}} opts.session the cloud session (session.js)
 * @param {() => Promise<Array<{key, value, clock}>>} opts.read the values now, good ones only
 * @param {{rebase(entries: Array): Array}} opts.fresh the fresh filter (fresh.js)
 * @param {(later: Array) => void} opts.onLater commands kept aside that are newer than the read
 * @param {() => boolean} opts.isStopped
 * @param {(ms: number) => Promise<void>} opts.wait a wait a stop ends at once (waits.js)
 * @param {number} opts.retryMs
 * @param {(err: Error) => void} opts.onError each failed read (counted by the caller)
 * @returns {{run(): Promise<void>}} run: read now (on every new cloud session)
 */
function createBaseline(opts) {
  let latest = 0; // the latest run; an older one that answers late is ignored

  async function run() {
    const mine = ++latest;
    while (!opts.isStopped() && mine === latest && opts.session.connected) {
      try {
        const entries = await opts.read();
        if (mine !== latest) return;
        const later = opts.fresh.rebase(entries);
        if (later.length) opts.onLater(later);
        return;
      } catch (err) {
        opts.onError(err);
        await opts.wait(opts.retryMs);
      }
    }
  }

  return { run };
}

module.exports = { createBaseline };
