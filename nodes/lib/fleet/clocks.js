'use strict';
/**
 * The other members of a fleet as one member knows them: who is alive, and an estimate of each
 * one's clock. Deadlines cross instances on the clocks of the instances, never assumed equal:
 * every member heartbeats on the fleet channel (`syncMs`) and every other member answers with its
 * receive and send times, as the edge link does (lib/core/clock.js: NTP's on-wire exchange,
 * offset within ±δ/2, plus drift).
 *
 * Plain module; lib/fleet/member.js keeps one.
 */
const clock = require('../core/clock');
const { KEYS } = require('./keys');

/**
 * @param {object} o
 * @param {object} o.bp the backplane (lib/fleet/backplane.js)
 * @param {string} o.id this member's id
 * @param {number} o.syncMs heartbeat period
 * @param {number} o.memberTimeoutMs a member not heard from this long is forgotten (its clock estimate too)
 * @param {object} o.counters the member's: members, badMessages
 * @param {(err: Error) => void} o.fail a backplane command failed
 */
function createMemberClocks(o) {
  const { bp, id, counters } = o;
  const members = new Map(); // member id -> {est, heardAt}

  /** @returns {boolean} true if `from` is new */
  function heard(from) {
    let m = members.get(from);
    const isNew = !m;
    if (!m) { m = { est: clock.createOffsetEstimator(), heardAt: 0 }; members.set(from, m); counters.members = members.size; }
    m.heardAt = clock.now();
    return isNew;
  }

  function syncAll() {
    bp.publish(KEYS.fleet, JSON.stringify({ t: 'sync', f: id, t1: clock.now() })).catch(o.fail);
  }

  const timer = setInterval(() => {
    syncAll();
    const t = clock.now();
    for (const [mid, m] of members) if (t - m.heardAt > o.memberTimeoutMs) members.delete(mid);
    counters.members = members.size;
  }, o.syncMs);
  timer.unref?.();

  return {
    /** Heartbeat now (to every member on the fleet channel). */
    syncAll,
    /** A message on the fleet channel: another member's heartbeat, answered with this clock's times. */
    onFleet(text) {
      const arrived = clock.now();
      let m;
      try { m = JSON.parse(text); } catch { counters.badMessages += 1; return; }
      if (!m || m.t !== 'sync' || typeof m.f !== 'string' || !Number.isFinite(m.t1)) { counters.badMessages += 1; return; }
      if (m.f === id) return;
      const isNew = heard(m.f);
      bp.publish(KEYS.member(m.f), JSON.stringify({ t: 'sync-res', f: id, t1: m.t1, t2: arrived, t3: clock.now() })).catch(o.fail);
      if (isNew) syncAll(); // a new member: estimate its clock now, not a heartbeat later
    },
    /**
     * Another member's answer to this member's heartbeat: one more clock sample.
     * @param {{f: string, t1: number, t2: number, t3: number}} m
     * @param {number} arrived lib/core/clock.js now() when it arrived
     */
    onSyncRes(m, arrived) {
      heard(m.f);
      members.get(m.f).est.add(m.t1, m.t2, m.t3, arrived);
    },
    /**
     * A deadline on member `from`'s clock as the latest time on this clock at which it has surely
     * not passed (only ever earlier); null without an estimate of that member's clock.
     */
    localDeadline(from, dl) {
      const m = members.get(from);
      return m ? m.est.localDeadline(dl) : null;
    },
    /** Members heard from, with the clock estimate of each. */
    estimates: () => Object.fromEntries([...members].map(([mid, m]) => [mid, m.est.estimate()])),
    close() { clearInterval(timer); },
  };
}

module.exports = { createMemberClocks };
