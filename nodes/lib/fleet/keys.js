'use strict';
/**
 * The fleet's channels and keys on the backplane (lib/fleet/backplane.js), one home for their
 * names (`<plant>` a plant id, lib/core/plants.js; `<member>` an instance's id):
 *
 *   s7twin:<plant>:edge     key    lease: the holding member's id, PX = link timeout
 *   s7twin:<plant>:latest   hash   latest plant state: tag short name → JSON value, `~v` version,
 *                                  `~e` epoch (the hash's history: new when it is made again from nothing)
 *   s7twin:<plant>:req      chan   requests for the holder: {o: origin, p: plant, e: envelope}
 *   s7twin:<plant>:state    chan   `<version>:<epoch> {o: holder, e: envelope}` (state and snap frames)
 *   s7twin:<plant>:table    hash   the plant's I/O table as its edge taught it: f fingerprint, d definition, `~v` version
 *   s7twin:tables           chan   `<version> {p: plant, f: fingerprint, d: definition}` (lib/fleet/tables.js)
 *   s7twin:member:<member>  chan   answers to an origin {t:'ans', p, e}; clock answers {t:'sync-res', f, t1, t2, t3}
 *   s7twin:fleet            chan   heartbeats {t:'sync', f, t1}
 *
 * The shared records (lib/history/), on the same Redis unless S7T_HISTORY_REDIS_URL names another:
 *
 *   s7twin:<plant>:history  zset   the plant history: one member per frame, scored by its time on the
 *                                  cloud's clock (lib/history/redis-store.js)
 *   s7twin:history:plants   set    the plants with a history
 *   s7twin:audit:<chain>    stream a copy of one instance's command log, entry n at id n-0 (lib/history/audit-share.js)
 *   s7twin:audit:chains     hash   chain id → {host, file, since}: every command log shared so far
 */
const KEYS = {
  lease: (plant) => `s7twin:${plant}:edge`,
  latest: (plant) => `s7twin:${plant}:latest`,
  req: (plant) => `s7twin:${plant}:req`,
  states: (plant) => `s7twin:${plant}:state`,
  table: (plant) => `s7twin:${plant}:table`,
  tables: 's7twin:tables',
  member: (id) => `s7twin:member:${id}`,
  fleet: 's7twin:fleet',
  history: (plant) => `s7twin:${plant}:history`,
  historyPlants: 's7twin:history:plants',
  auditChain: (chain) => `s7twin:audit:${chain}`,
  auditChains: 's7twin:audit:chains',
};

module.exports = { KEYS };
