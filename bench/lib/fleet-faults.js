'use strict';
/**
 * A cloud instance of a fleet killed (-9) while twins stream commands, with the
 * fault suite's bookkeeping (bench/lib/faults.js): every command answered exactly once, nothing
 * written after its deadline, nothing refused written, nothing acknowledged undone, the PLC ends
 * with the last acknowledged inputs, and commands acknowledged again after the kill (time taken).
 *
 * Each streaming twin drives its own plant (the input log of that plant's PLC names the command
 * behind every change) from the instance it is given first, with every other instance behind it
 * in its URL list: a twin on the killed instance fails over, a twin elsewhere whose commands
 * crossed to the killed instance (it held the plant's edge) sees its edge move.
 *
 * Used by test/e2e/fleet.test.js (assertions) and bench/lib/fleet-bench.js (failover time in the
 * report).
 */
const { createTwin, waitHealthy, waitUntil, patternValues, analyse, DEFAULTS: FAULT_DEFAULTS } = require('./faults');
const { readInputLog } = require('../../plc/input-log');
const clock = require('../../nodes/lib/core/clock');

const DEFAULTS = {
  ...FAULT_DEFAULTS,
  preMs: 2000, // streaming before the kill
  postMs: 2000, // after every twin is acknowledged again
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * @param {object} fleet from system/fleet.js startFleet({inputLogs: true})
 * @param {object} o
 * @param {Array<{id: string, plant: string, instance: number}>} o.twins one per plant at most
 * @param {number} o.kill the instance to kill (0-based)
 * @param {(line: string) => void} [o.log]
 * @returns {Promise<object[]>} per twin: analyse() plus recoveryMs, detectedMs, failovers
 */
async function runInstanceKill(fleet, o) {
  const opts = { ...DEFAULTS, ...o };
  const log = opts.log || (() => {});
  const plants = new Set(o.twins.map((d) => d.plant));
  if (plants.size !== o.twins.length) {
    throw Object.assign(new Error('one streaming twin per plant: a plant\'s input log names one twin\'s commands'), { code: 'E_BENCH_ARGS' });
  }
  const twins = o.twins.map((d) => ({ ...d, twin: createTwin(fleet.twin(d.plant, d.instance), { ttlMs: opts.ttlMs, id: d.id }) }));
  try {
    await Promise.all(twins.map((d) => d.twin.connect()));
    await Promise.all(twins.map((d) => waitHealthy(d.twin, `${d.id}: commands acknowledged before the kill`)));
    for (const d of twins) {
      d.firstSeq = Math.max(0, ...d.twin.cmds.keys()) + 1;
      d.dupBefore = d.twin.stats().unexpectedAnswers;
    }
    const startedAt = clock.now();
    let streaming = true;
    const streams = twins.map((d) => (async () => {
      let i = d.twin.cmds.size;
      while (streaming) {
        if (d.twin.connected) d.twin.send(patternValues(i++));
        await sleep(opts.intervalMs);
      }
    })());
    await sleep(opts.preMs);
    const killAt = clock.now();
    log(`killing cloud instance ${o.kill + 1} (pid ${fleet.pids[`cloud${o.kill + 1}`]})`);
    fleet.kill(`cloud${o.kill + 1}`);
    await Promise.all(twins.map(async (d) => {
      d.recoveredAt = null;
      await waitUntil(() => {
        for (const c of d.twin.cmds.values()) {
          if (c.sentAt >= killAt && c.answer && c.answer.code === 'ack') { d.recoveredAt = c.answer.at; return true; }
        }
        return false;
      }, opts.recoverLimitMs, `${d.id}: commands acknowledged again`).catch(() => {});
      const outcome = d.recoveredAt === null ? 'NOT recovered' : `acknowledged again ${Math.round(d.recoveredAt - killAt)} ms after the kill`;
      log(`${d.id} (${d.plant}, instance ${d.instance + 1} first): ${outcome}`);
    }));
    await sleep(opts.postMs);
    streaming = false;
    await Promise.all(streams);
    await Promise.all(twins.map((d) => waitUntil(() => d.twin.inFlight === 0, opts.drainMs, 'the last answers').catch(() => {})));
    await sleep(200); // a few scans: the last write reaches the input log
    const endedAt = clock.now();
    return twins.map((d) => {
      const cmds = [...d.twin.cmds.values()].filter((c) => c.seq >= d.firstSeq);
      const entries = readInputLog(fleet.inputLogs[d.plant]).filter((e) => e.t >= startedAt && e.t <= endedAt);
      const firstBad = cmds.filter((c) => c.answer && c.answer.code !== 'ack' && c.answer.at >= killAt).map((c) => c.answer.at);
      const stats = d.twin.stats();
      return {
        id: d.id,
        plant: d.plant,
        instance: d.instance,
        ...analyse(cmds, entries, { ...opts, duplicates: stats.unexpectedAnswers - d.dupBefore }),
        detectedMs: firstBad.length ? Math.round(Math.min(...firstBad) - killAt) : null,
        recoveryMs: d.recoveredAt === null ? null : Math.round(d.recoveredAt - killAt),
        failovers: stats.failovers,
        url: stats.url.replace(/\?.*$/, ''),
      };
    });
  } finally {
    await Promise.allSettled(twins.map((d) => d.twin.close()));
  }
}

module.exports = { runInstanceKill, DEFAULTS };
