'use strict';
/**
 * Who drives the plant from this page. Two pages that both ran the plant model and both sent
 * sensor inputs would fight, so one page drives and every other page watches: the driving page
 * holds the cloud's driver lease (nodes/lib/web/driver-lease.js, renewed by the session), sends
 * its model's inputs and times the round trips; a watching page sends nothing of the model.
 * A page with a twin token that finds the lease free takes it; one that finds it held watches and
 * may take over on purpose. A viewer token never drives: the cloud refuses its lease (403) and
 * every command (E_READ_ONLY), and the page says so. Browser-safe.
 */

/**
 * @param {object} o
 * @param {object} [o.lease] ./lease-client.js; without one the page drives (a page of its own)
 * @param {boolean} [o.readOnly] the token is a viewer's (known before start)
 * @param {object} o.plant the page's plant model
 * @param {{sent(values: object, t: number): void}} o.recorder round trips are timed from the first frame on
 * @param {{send(values: object): void}} o.transport
 * @param {() => number} o.now
 * @param {(text: string, kind?: string) => void} o.log
 * @param {object} o.counters takeovers and leaseLost are counted there
 * @param {() => void} o.onWatch the page starts watching (its automatic feed stops)
 * @param {() => boolean} o.stopped whether the session has stopped (no claim after that)
 * @param {() => boolean} [o.held] whether the page holds (it replays the past): a claim that was
 *   already on its way when the page began to hold (or the session stopped) is given back, never
 *   driven with
 */
function createDriver(o) {
  let driving = false;
  let readOnly = Boolean(o.readOnly);
  let holder = null; // who holds the lease, as the cloud last said

  function becomeDriver(why) {
    if (driving) return;
    driving = true;
    o.plant.drive(); // a model that watched followed the real sensors; now it is the plant
    // The PLC learns the whole plant at once, as the headless twin's first frame does.
    const all = o.plant.inputs();
    o.recorder.sent(all, o.now());
    o.transport.send(all);
    o.log(`driving the plant (${why})`);
  }

  function becomeWatcher(why) {
    if (!driving) return;
    driving = false;
    o.onWatch();
    o.log(`watching (${why})`);
  }

  /** Ask for the lease (renewing it when this page holds it); force = take it over. */
  async function claim(force) {
    if (!o.lease || readOnly || o.stopped()) return;
    let r;
    try {
      r = await o.lease.claim(force);
    } catch (err) {
      o.log(`driver lease: ${err.message}`, 'error');
      return;
    }
    holder = r.holder;
    if ((o.held && o.held()) || o.stopped()) {
      if (r.granted && o.lease) {
        try { await o.lease.release(); } catch { /* the lease expires by itself */ }
        holder = null;
      }
      return;
    }
    if (r.status === 403) {
      readOnly = true;
      becomeWatcher('this token may watch, not drive');
      o.log('a viewer token: watching only (E_READ_ONLY)');
      return;
    }
    if (r.status === 401) { o.log('the token was refused (E_UNAUTHORIZED)', 'error'); return; }
    if (r.granted) {
      if (force && !driving) o.counters.takeovers += 1;
      becomeDriver(force ? 'taken over' : 'the plant had no driver');
    } else if (driving) {
      o.counters.leaseLost += 1;
      becomeWatcher(`${holder && holder.label ? holder.label : 'another page'} drives now`);
    }
  }

  return {
    claim,
    /** Drive without a lease: a page of its own (a viewer token never drives). */
    drive(why) { if (!readOnly) becomeDriver(why); },
    /** Give up driving: this page watches, another page may take the lease. */
    async watch() {
      if (!driving) return;
      becomeWatcher('gave up driving');
      if (o.lease) { try { await o.lease.release(); } catch { /* lease expires by itself */ } }
      holder = null;
    },
    /** The page goes: the lease is given back when this page holds it. */
    async leave() {
      if (driving && o.lease) { try { await o.lease.release(); } catch { /* page going away */ } }
      driving = false;
    },
    get driving() { return driving; },
    get readOnly() { return readOnly; },
    get holder() { return holder; },
  };
}

module.exports = { createDriver };
