'use strict';
/**
 * The cloud's side of store and forward: the `backfill` frames an edge forwards from its journal
 * after a reconnect (lib/link/forwarder.js) go into the plant history and nowhere else (never to
 * the flows, the fleet or a twin's live view), each answered once it is on the disk.
 *
 * - Filed through `file(plant, env)`, the seam the link server node hands in (the plant history's
 *   store, lib/history/state-history.js backfillFiler; a fleet's shared store behind the same
 *   seam): it returns a promise that settles once the record is stored.
 * - Answered in order: per connection and journal, `backfill-res` names the newest record whose
 *   own and every earlier record's filing has settled (filed, found filed already, or refused with
 *   an `err` naming it); one answer per turn of the event loop covers every record settled in it.
 *   A filing that fails leaves that record and every later one unanswered, and the edge is told
 *   (`err` E_HISTORY_STORE naming the record, not against its error budget): it keeps them, waits,
 *   and sends them again from its last answer, which starts the connection's answers afresh;
 *   records of the old run that still arrive meanwhile are neither filed nor answered (they come
 *   again).
 * - Filed once: a record of a journal this process has filed, with every record before it dealt
 *   with, is answered without filing it again (the edge sends again what it sent before an answer
 *   was lost); the mark moves only in order, so a record whose filing failed is never passed over
 *   because a later one was filed. The store
 *   itself ignores a record it holds (lib/history/rows.js names it), which covers a restarted
 *   cloud. A record the edge had already sent live on a link that then died (`of`: the state frame
 *   it was) is not filed when that frame reached this instance: the plant's most recent live
 *   frames are remembered (`recentLive` per plant); nor when the history holds it already (`file`
 *   looks for it and settles 'known': filed by another instance of a fleet, or before a restart).
 * - Without a history (`file` absent) every backfill frame is answered `E_NO_HISTORY`: the edge
 *   keeps its journal and tries again on its next connection.
 *
 * Plain module; lib/link/edge-endpoint.js keeps one.
 */

const DEFAULTS = {
  recentLive: 4096, // live state frames remembered per plant (a dead link's tail is a few seconds of them)
  maxJournals: 10000, // journals whose filed mark is remembered (the oldest forgotten first)
};

/**
 * @param {object} o DEFAULTS plus:
 * @param {object} o.sender the endpoint's envelope sender (answers, errors)
 * @param {object} o.counters the endpoint's: backfillIn, backfillFiled, backfillKnown, backfillRefused,
 *   backfillUnfiled, backfillUnanswered
 * @param {(plant: string, env: object) => Promise<'filed'|'known'|void>|void} [o.file] store one backfill
 *   frame ('known': the history held it already, nothing was filed)
 */
function createBackfillIntake(o) {
  const cfg = { ...DEFAULTS, ...o };
  const { sender, counters } = o;
  const live = new Map(); // plant -> {set: Set<'src#seq'>, ring: string[], at: number}
  const filed = new Map(); // 'plant\nsrc' -> newest record filed by this process
  const peers = new WeakMap(); // peer -> Map(journal src -> {tail, best, timer})

  const liveKey = (src, seq) => `${src}#${seq}`;

  /** The answer to every record settled so far, once this turn of the event loop is over. */
  function answerSoon(c, src, st) {
    if (st.timer) return;
    st.timer = setImmediate(() => {
      st.timer = null;
      if (c.closing || !c.conn.open) return;
      c.deliver(sender.make('backfill-res', { ref: { src, seq: st.best } }));
    });
  }

  /**
   * The connection's run of answers for journal `src`, for record `seq`: a new run when the last
   * one broke and `seq` is where the edge starts again (right after its last answer), else null
   * while it is broken (a record of the old run, still on its way).
   */
  function runFor(c, src, seq) {
    let byJournal = peers.get(c);
    if (!byJournal) { byJournal = new Map(); peers.set(c, byJournal); }
    const st = byJournal.get(src);
    if (st && !st.broken) return st;
    if (st && seq > st.best + 1) return null;
    const run = { tail: Promise.resolve(), best: st ? st.best : 0, timer: null, broken: false };
    byJournal.set(src, run);
    return run;
  }

  /** Record `env` is settled once `p` is: answer it in order behind every earlier one. */
  function settle(c, env, p, st) {
    if (p) p.catch(() => {}); // its failure is the run's, handled below
    st.tail = st.tail.then(() => p).then(() => {
      st.best = Math.max(st.best, env.seq);
      markFiled(c.plant, env.src, st.best);
      answerSoon(c, env.src, st);
    });
    st.tail.catch((err) => {
      if (st.broken) return;
      st.broken = true;
      counters.backfillUnanswered += 1;
      if (c.closing || !c.conn.open) return;
      const msg = `the plant history could not file backfill after record ${st.best}: ${err && err.message}; send it again`;
      c.deliver(sender.error('E_HISTORY_STORE', msg, { src: env.src, seq: st.best + 1 }));
    });
  }

  /** Every record of `src` up to `seq` is dealt with: one sent again is answered without filing. */
  function markFiled(plant, src, seq) {
    const key = `${plant}\n${src}`;
    const was = filed.get(key) || 0;
    filed.delete(key); // re-inserted: the Map's order is the journals' recency
    filed.set(key, Math.max(was, seq));
    if (filed.size > cfg.maxJournals) filed.delete(filed.keys().next().value);
  }

  return {
    /**
     * A live state or snap frame of the plant's edge reached the history here.
     * @param {string} plant
     * @param {{src: string, seq: number}} env
     */
    sawLive(plant, env) {
      let l = live.get(plant);
      if (!l) { l = { set: new Set(), ring: new Array(cfg.recentLive), at: 0 }; live.set(plant, l); }
      const key = liveKey(env.src, env.seq);
      const old = l.ring[l.at];
      if (old !== undefined) l.set.delete(old);
      l.ring[l.at] = key;
      l.at = (l.at + 1) % cfg.recentLive;
      l.set.add(key);
    },

    /**
     * One backfill frame of the peer's plant, checked against the plant's table already.
     * @param {object} c the peer (lib/link/peer.js)
     * @param {object} env
     */
    receive(c, env) {
      counters.backfillIn += 1;
      const ref = { src: env.src, seq: env.seq };
      if (!o.file) {
        counters.backfillUnfiled += 1;
        c.deliver(sender.error('E_NO_HISTORY', 'this cloud keeps no plant history: the edge keeps its journal', ref));
        return;
      }
      const st = runFor(c, env.src, env.seq);
      if (!st) return; // behind a failed filing: the edge sends it again
      const known = env.seq <= (filed.get(`${c.plant}\n${env.src}`) || 0)
        || Boolean(env.of && live.has(c.plant) && live.get(c.plant).set.has(liveKey(env.of.src, env.of.seq)));
      if (known) {
        counters.backfillKnown += 1;
        settle(c, env, null, st);
        return;
      }
      let p;
      try {
        p = Promise.resolve(o.file(c.plant, env));
      } catch (err) {
        p = Promise.reject(err);
      }
      settle(c, env, p.then((r) => { counters[r === 'known' ? 'backfillKnown' : 'backfillFiled'] += 1; }), st);
    },

    /**
     * A backfill frame the plant's table refused: told to the edge (not against its error budget:
     * a journal of a table since changed would otherwise cut the link), and answered in order.
     * @param {object} c
     * @param {object} env
     * @param {Error & {code: string}} err
     */
    refused(c, env, err) {
      counters.backfillIn += 1;
      counters.backfillRefused += 1;
      const st = runFor(c, env.src, env.seq);
      if (!st) return; // behind a failed filing: the edge sends it again
      c.deliver(sender.error(err.code || 'E_SCHEMA', err.message, { src: env.src, seq: env.seq }));
      settle(c, env, null, st);
    },
  };
}

module.exports = { DEFAULTS, createBackfillIntake };
