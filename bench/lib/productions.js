'use strict';
/**
 * Table 1 / Table 5 / Table 3 / cycle time: productions of the headless twin (twin/run.js
 * runTwin) per protocol, in round-robin blocks so that drift of the machine hits every protocol
 * alike. Each production records, per timed variable, input event written → matching PLC output
 * seen, on one monotonic clock. A warm-up production per protocol is run first and discarded.
 */
const path = require('node:path');
const { performance } = require('node:perf_hooks');
// The benchmark's productions run the demo box-sorting plant: its table.
const tags = require('../../nodes/lib/core/io-table').demoTable();
const { addProduction, emptyWhere } = require('./where-bytes');

const ROOT = path.join(__dirname, '..', '..');
const DEFAULTS = {
  boxes: 10, // boxes per production
  damaged: 0.3, // share of damaged boxes (the study's mix is not given; this exercises every pair)
  warmupBoxes: 2, // warm-up production per protocol, discarded
  twinProfile: 'fast', // plant speeds of the twin (twin/plant.js PROFILES)
  timeoutMs: 5000,
};

/**
 * Run `blocks` rounds; in each, one production per protocol (order rotated every block).
 * @param {object} o
 * @param {string[]} o.protocols
 * @param {object} o.endpoints from startSystem
 * @param {(protocol:string, extra:object)=>object} [o.createTransport] the twin client of a path
 *   (bench/lib/system.js createTransport: a stock replica uses a bundle transport under another name);
 *   default: runTwin loads twin/transports/<protocol>.js
 * @param {number} o.samplesWanted stop after the block in which every protocol reached this many samples
 * @param {number} [o.maxBlocks]
 * @param {number} [o.boxes]
 * @param {(protocol: string) => (() => Promise<{sent: number, received: number}>)|null} [o.linkBytes]
 *   a sampler of the bytes on the edge↔cloud link that carries the protocol's productions
 *   (bench/lib/link-bytes.js), sampled around each measured production
 * @param {(ev:object)=>void} [o.onProgress]
 * @param {(line:string)=>void} [o.log]
 * @returns {Promise<Object<string, {samples:Object<string, number[]>, order:number[], expired:Object, errors:number,
 *   warmupSamples:number, productions:number, failed:number, reasons:string[], cycleMs:number[], bytes:object}>>}
 */
async function runProductions(o) {
  const { runTwin } = require(path.join(ROOT, 'twin', 'run.js'));
  const vars = tags.timedPairs().map((p) => p.output);
  const boxes = o.boxes || DEFAULTS.boxes;
  const out = {};
  for (const p of o.protocols) {
    out[p] = {
      samples: Object.fromEntries(vars.map((v) => [v, []])),
      all: [], // every sample in arrival order, for jitter and the box plot
      expired: Object.fromEntries(vars.map((v) => [v, 0])),
      errors: 0,
      warmupSamples: 0,
      productions: 0,
      failed: 0,
      reasons: [],
      cycleMs: [],
      // boxes sorted, input changes the twin sent, PLC state updates it received: the work the
      // bytes bought (Table 3's bytes per unit of work)
      bytes: { in: 0, out: 0, framesIn: 0, framesOut: 0, durationMs: 0, boxes: 0, inputChanges: 0, stateChanges: 0 },
      where: emptyWhere(), // where those bytes went, by direction and kind (./where-bytes.js)
      // the edge↔cloud link's TCP bytes during the measured productions (edge → cloud, cloud → edge)
      link: { sent: 0, received: 0, boxes: 0 },
    };
  }

  const one = async (p, boxCount, seed) => {
    const ep = o.endpoints[p];
    let firstAt = null;
    let lastAt = null;
    const id = `p${seed}x${Math.random().toString(36).slice(2, 7)}`;
    const r = await runTwin({
      protocol: p,
      ...ep,
      ...(o.createTransport ? { transport: o.createTransport(p, { id, log: o.log }) } : {}),
      boxes: boxCount,
      damaged: o.damaged ?? DEFAULTS.damaged,
      seed,
      profile: o.twinProfile || DEFAULTS.twinProfile,
      timeoutMs: o.timeoutMs || DEFAULTS.timeoutMs,
      id,
      log: o.log,
      onProgress: (summary, ev) => {
        const t = performance.now();
        if (firstAt === null) firstAt = t;
        if (ev !== 'arrived') lastAt = t;
      },
    });
    return { r, cycleMs: firstAt !== null && lastAt !== null ? lastAt - firstAt : null };
  };

  // Warm-up: one short production per protocol (connections, JIT, OPC UA sessions), discarded.
  for (const p of o.protocols) {
    if (!(o.warmupBoxes ?? DEFAULTS.warmupBoxes)) break;
    try {
      const { r } = await one(p, o.warmupBoxes ?? DEFAULTS.warmupBoxes, 999);
      out[p].warmupSamples = Object.values(r.samples).reduce((n, a) => n + a.length, 0);
    } catch (err) {
      out[p].reasons.push(`warm-up: ${err.code || ''} ${err.message}`);
    }
    if (o.onProgress) o.onProgress({ phase: 'warmup', protocol: p });
  }

  const maxBlocks = o.maxBlocks || 50;
  const count = (p) => vars.reduce((n, v) => n + out[p].samples[v].length, 0);
  // A protocol leaves the rotation once it has its samples, or after failLimit (3) failed
  // productions in a row without a single sample (a path that does not work would otherwise loop to maxBlocks).
  const active = new Set(o.protocols);
  const straightFails = Object.fromEntries(o.protocols.map((p) => [p, 0]));
  for (let b = 0; b < maxBlocks && active.size; b++) {
    const order = o.protocols.map((_, i) => o.protocols[(i + b) % o.protocols.length]).filter((p) => active.has(p));
    for (const p of order) {
      const acc = out[p];
      acc.productions += 1;
      try {
        const sample = o.linkBytes ? o.linkBytes(p) : null;
        const before = sample ? await sample().catch(() => null) : null;
        const { r, cycleMs } = await one(p, boxes, b + 1);
        const after = before ? await sample().catch(() => null) : null;
        // Counted only where the link's connections were the same before and after (no reconnect).
        if (before && after && after.sockets === before.sockets && after.sent >= before.sent && after.received >= before.received) {
          acc.link.sent += after.sent - before.sent;
          acc.link.received += after.received - before.received;
          acc.link.boxes += (r.packed || 0) + (r.rejected || 0);
        }
        for (const v of vars) {
          acc.samples[v].push(...(r.samples[v] || []));
          acc.expired[v] += (r.summary && r.summary[v] && r.summary[v].expired) || 0;
        }
        for (const v of vars) for (const ms of r.samples[v] || []) acc.all.push(ms);
        acc.errors += r.errors || 0;
        if (!r.ok) { acc.failed += 1; acc.reasons.push(r.reason); }
        if (cycleMs !== null && r.ok) acc.cycleMs.push(cycleMs);
        const ts = r.transport || {};
        acc.bytes.in += ts.bytesIn || 0;
        acc.bytes.out += ts.bytesOut || 0;
        acc.bytes.framesIn += ts.received ?? ts.framesIn ?? 0;
        acc.bytes.framesOut += ts.sent ?? ts.framesOut ?? 0;
        acc.bytes.durationMs += r.durationMs || 0;
        acc.bytes.boxes += (r.packed || 0) + (r.rejected || 0);
        acc.bytes.inputChanges += (r.frames && r.frames.out) || 0;
        acc.bytes.stateChanges += (r.frames && r.frames.in) || 0;
        addProduction(acc.where, ts);
      } catch (err) {
        acc.failed += 1;
        acc.errors += 1;
        acc.reasons.push(`${err.code || 'E_TWIN'} ${err.message}`);
      }
      straightFails[p] = count(p) === 0 ? straightFails[p] + 1 : 0;
      if (count(p) >= o.samplesWanted) active.delete(p);
      if (straightFails[p] >= (o.failLimit || 3)) { active.delete(p); acc.gaveUp = true; }
      if (o.onProgress) o.onProgress({ phase: 'block', block: b, protocol: p, samples: count(p) });
    }
  }
  return out;
}

module.exports = { runProductions, DEFAULTS };
