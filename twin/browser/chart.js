'use strict';
/**
 * The browser twin's rolling round-trip chart: a window of the last `spanMs` of samples per timed
 * variable (bounded in count too, so a page left open for a day holds the same memory as after a
 * minute), the statistics of what is in the window, and a small canvas drawing with the 100 ms
 * line the study's twin had to stay under; and the small trends of the page generated for any
 * plant (a tag's value over the last minutes). The windowing is plain logic (unit-tested in
 * Node); only draw() and drawTrend() need a canvas.
 */
const { summarise } = require('../../nodes/lib/core/stats');

const DEFAULTS = {
  spanMs: 60000, // one minute of samples on the chart
  maxPoints: 2000, // per variable, whatever the rate
  limitMs: 100, // the line drawn across: the study's 100 ms requirement
};

/**
 * Samples of one variable within the last spanMs (and at most maxPoints of them).
 * @param {{spanMs?: number, maxPoints?: number}} [opts]
 */
function createSeries(opts = {}) {
  const spanMs = opts.spanMs || DEFAULTS.spanMs;
  const maxPoints = opts.maxPoints || DEFAULTS.maxPoints;
  let pts = []; // [t, ms], oldest first
  let total = 0;
  return {
    /** Add a sample taken at time t (ms, the page's monotonic clock). */
    push(t, ms) {
      pts.push([t, ms]);
      total += 1;
      if (pts.length > maxPoints) pts = pts.slice(pts.length - maxPoints);
    },
    /** Drop samples older than spanMs before `now`. */
    prune(now) {
      let i = 0;
      while (i < pts.length && pts[i][0] < now - spanMs) i += 1;
      if (i) pts = pts.slice(i);
    },
    points: () => pts.slice(),
    values: () => pts.map((p) => p[1]),
    last: () => (pts.length ? pts[pts.length - 1][1] : null),
    get total() { return total; },
    get size() { return pts.length; },
  };
}

/**
 * One series per timed variable.
 * @param {string[]} variables
 * @param {{spanMs?: number, maxPoints?: number}} [opts]
 */
function createChart(variables, opts = {}) {
  const series = Object.fromEntries(variables.map((v) => [v, createSeries(opts)]));
  return {
    spanMs: opts.spanMs || DEFAULTS.spanMs,
    variables,
    push(variable, t, ms) { if (series[variable]) series[variable].push(t, ms); },
    prune(now) { for (const s of Object.values(series)) s.prune(now); },
    series: (v) => series[v],
    /** Statistics of the window, per variable and overall: {n, mean, median, p95, p99, max, last, total}. */
    stats() {
      const out = {};
      const all = [];
      for (const [v, s] of Object.entries(series)) {
        const vals = s.values();
        all.push(...vals);
        out[v] = { ...brief(vals), last: s.last(), total: s.total };
      }
      out.overall = { ...brief(all), last: null, total: Object.values(series).reduce((n, s) => n + s.total, 0) };
      return out;
    },
  };
}

function brief(vals) {
  const s = summarise(vals);
  return s.n ? { n: s.n, mean: s.mean, median: s.median, p95: s.p95, p99: s.p99, max: s.max } : { n: 0 };
}

/**
 * The y axis top: room for the 100 ms line and for the largest sample, in round steps.
 * @param {number[]} values
 * @param {number} [limitMs]
 * @returns {number}
 */
function yTop(values, limitMs = DEFAULTS.limitMs) {
  const max = values.reduce((m, v) => (v > m ? v : m), 0);
  const want = Math.max(limitMs * 1.25, max * 1.1);
  const step = want <= 200 ? 25 : want <= 1000 ? 100 : 500;
  return Math.ceil(want / step) * step;
}

/**
 * Draw the chart on a 2D canvas context: time on x (the last spanMs, now at the right), round
 * trip on y, one colour per variable, the limit as a dashed line.
 * @param {CanvasRenderingContext2D} ctx
 * @param {object} chart createChart()
 * @param {{width:number, height:number, now:number, colors:Object<string,string>, limitMs?:number, fg?:string, grid?:string}} o
 */
function draw(ctx, chart, o) {
  const limit = o.limitMs || DEFAULTS.limitMs;
  const pad = { l: 34, r: 8, t: 8, b: 18 };
  const w = o.width - pad.l - pad.r;
  const h = o.height - pad.t - pad.b;
  const all = chart.variables.flatMap((v) => chart.series(v).values());
  const top = yTop(all, limit);
  const x = (t) => pad.l + w * (1 - (o.now - t) / chart.spanMs);
  const y = (ms) => pad.t + h * (1 - Math.min(ms, top) / top);
  ctx.clearRect(0, 0, o.width, o.height);
  ctx.font = '11px system-ui, sans-serif';
  ctx.lineWidth = 1;
  ctx.strokeStyle = o.grid || '#ccc';
  ctx.fillStyle = o.fg || '#333';
  for (let ms = 0; ms <= top; ms += top / 4) {
    ctx.beginPath();
    ctx.moveTo(pad.l, y(ms));
    ctx.lineTo(pad.l + w, y(ms));
    ctx.stroke();
    ctx.fillText(String(Math.round(ms)), 2, y(ms) + 4);
  }
  ctx.fillText(`−${Math.round(chart.spanMs / 1000)} s`, pad.l, o.height - 4);
  ctx.fillText('now', pad.l + w - 22, o.height - 4);
  ctx.save();
  ctx.setLineDash([6, 4]);
  ctx.strokeStyle = '#c0392b';
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  ctx.moveTo(pad.l, y(limit));
  ctx.lineTo(pad.l + w, y(limit));
  ctx.stroke();
  ctx.fillStyle = '#c0392b';
  ctx.fillText(`${limit} ms`, pad.l + w - 44, y(limit) - 3);
  ctx.restore();
  for (const v of chart.variables) {
    ctx.fillStyle = (o.colors && o.colors[v]) || '#2c7fb8';
    for (const [t, ms] of chart.series(v).points()) ctx.fillRect(x(t) - 1.5, y(ms) - 1.5, 3, 3);
  }
}

/**
 * The value range a trend shows: the values in its window and the one held when the window
 * starts (a tag that has not changed for a while still has a line), with room when they are all
 * one value.
 * @param {Array<[number, number]>} points [t, value], oldest first (what the window holds)
 * @param {number|null} held the value before the first point (null: none)
 * @returns {{lo: number, hi: number}|null} null when there is nothing to draw
 */
function trendRange(points, held) {
  const vals = points.map((p) => p[1]);
  if (held !== null && held !== undefined) vals.push(held);
  if (!vals.length) return null;
  let lo = Math.min(...vals);
  let hi = Math.max(...vals);
  if (hi - lo < 1e-9) { const pad = Math.abs(hi) * 0.05 || 1; lo -= pad; hi += pad; }
  return { lo, hi };
}

/**
 * Draw a small trend of one tag (a sparkline): its value over the window as a stepped line (a PLC
 * value holds until it changes), the latest value held up to now.
 * @param {CanvasRenderingContext2D} ctx
 * @param {object} series createSeries() of [t, value]
 * @param {{width:number, height:number, now:number, spanMs:number, held?:number|null, color?:string}} o
 *   held: the value before the window's first point
 */
function drawTrend(ctx, series, o) {
  const pts = series.points();
  ctx.clearRect(0, 0, o.width, o.height);
  const r = trendRange(pts, o.held ?? null);
  if (!r) return;
  const pad = 2;
  const x = (t) => pad + (o.width - 2 * pad) * Math.max(0, 1 - (o.now - t) / o.spanMs);
  const y = (v) => o.height - pad - (o.height - 2 * pad) * ((v - r.lo) / (r.hi - r.lo));
  ctx.strokeStyle = o.color || '#1d70b8';
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  let v = o.held ?? (pts.length ? pts[0][1] : null);
  ctx.moveTo(x(o.now - o.spanMs), y(v));
  for (const [t, value] of pts) {
    ctx.lineTo(x(t), y(v));
    ctx.lineTo(x(t), y(value));
    v = value;
  }
  ctx.lineTo(x(o.now), y(v));
  ctx.stroke();
}

module.exports = { DEFAULTS, createSeries, createChart, yTop, draw, trendRange, drawTrend };
