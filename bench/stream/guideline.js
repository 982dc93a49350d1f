'use strict';
/**
 * The study's selection guideline (its Table 8: for a throughput, a server location and an
 * objective, which protocol to use for small streams sent often and for large streams sent
 * rarely), rerun with our numbers: for each such case, the transport whose measured mean latency
 * (or mean jitter) was lowest, with every transport within `tie` of it named too, as the study
 * names several where they performed alike. Its own cases are kept beside ours
 * (bench/study-figures.json `stream.table8`).
 *
 * Plain functions over the benchmark's results, no I/O.
 */

/** How close to the best a transport must be to share a case (the study lists ties without saying how close). */
const TIE = 0.1;

/**
 * The best transports of a set of measured cells.
 * @param {Array<{transport: string, value: number|null, lost?: number}>} entries value: mean latency or
 *   jitter (ms); lost: samples lost (a transport that lost samples is ranked after every one that did not)
 * @param {number} [tie]
 * @returns {{best: string[], value: number|null, ranked: Array<{transport: string, value: number}>}}
 */
function pickBest(entries, tie = TIE) {
  const ok = entries.filter((e) => Number.isFinite(e.value));
  if (!ok.length) return { best: [], value: null, ranked: [] };
  const whole = ok.filter((e) => !e.lost);
  const pool = whole.length ? whole : ok;
  const ranked = [...pool].sort((a, b) => a.value - b.value);
  const v = ranked[0].value;
  return {
    best: ranked.filter((e) => e.value <= v * (1 + tie)).map((e) => e.transport),
    value: v,
    ranked: [...ranked, ...ok.filter((e) => !pool.includes(e)).sort((a, b) => a.value - b.value)].map((e) => ({ transport: e.transport, value: e.value })),
  };
}

/**
 * The guideline's cases from our cells.
 * @param {Array<{profile: string, transport: string, mbps: number, kb: number, rate: number,
 *   latency: number|null, jitter: number|null, lost: number}>} cells one per transport, profile and grid cell
 * @param {{location: Object<string, string>}} o profile → the study's location ('edge' or 'cloud')
 * @returns {Array<{mbps: number, location: string, profile: string, objective: string, regime: string,
 *   kb: number, rate: number, best: string[], value: number|null, ranked: object[]}>}
 *   regime 'small-often' (the throughput's fastest rate: 40 a second) or 'large-rarely' (its slowest: 10)
 */
function rerun(cells, o) {
  const out = [];
  const groups = new Map();
  for (const c of cells) {
    const key = `${c.profile}|${c.mbps}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(c);
  }
  for (const [key, list] of groups) {
    const [profile, mbps] = key.split('|');
    const location = o.location[profile];
    if (!location) continue;
    const rates = [...new Set(list.map((c) => c.rate))].sort((a, b) => b - a);
    const regimes = [['small-often', rates[0]], ['large-rarely', rates[rates.length - 1]]];
    for (const objective of ['latency', 'jitter']) {
      for (const [regime, rate] of regimes) {
        const here = list.filter((c) => c.rate === rate);
        if (!here.length) continue;
        const pick = pickBest(here.map((c) => ({ transport: c.transport, value: c[objective], lost: c.lost })));
        out.push({ mbps: Number(mbps), location, profile, objective, regime, kb: here[0].kb, rate, ...pick });
      }
    }
  }
  // The study's order: throughput, edge/fog before cloud, latency before jitter, small streams first.
  const rank = { edge: 0, cloud: 1, latency: 0, jitter: 1, 'small-often': 0, 'large-rarely': 1 };
  return out.sort((a, b) => a.mbps - b.mbps || rank[a.location] - rank[b.location] || rank[a.objective] - rank[b.objective] || rank[a.regime] - rank[b.regime]);
}

module.exports = { pickBest, rerun, TIE };
