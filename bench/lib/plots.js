'use strict';
/**
 * Plots as real SVG files, rendered headless with vega-lite → vega (no browser, no canvas):
 * box plot of round trips per protocol, response time vs users, bytes per protocol.
 */
const { codedError } = require('../../nodes/lib/core/errors');

// vega 6 and vega-lite 6 are ESM-only with top-level await: loaded once with import().
let libs = null;
async function load() {
  if (!libs) libs = Promise.all([import('vega'), import('vega-lite')]).then(([vega, vl]) => ({ vega, vl: vl.default || vl }));
  return libs;
}

const DEFAULTS = {
  maxPoints: 20000, // raw points per box-plot series kept (evenly thinned beyond), to keep files small
  width: 560,
  height: 300,
};

/** Error with a stable `code`. */
const PlotError = codedError('PlotError');

/**
 * Render a vega-lite spec to an SVG string.
 * @param {object} spec vega-lite spec (data inline)
 * @returns {Promise<string>}
 */
async function renderSvg(spec) {
  const { vega, vl } = await load();
  const compiled = vl.compile({ $schema: 'https://vega.github.io/schema/vega-lite/v6.json', ...spec }).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Keep at most n points, evenly spaced (deterministic; the statistics use every sample). */
function thin(arr, n = DEFAULTS.maxPoints) {
  if (arr.length <= n) return arr;
  const step = arr.length / n;
  const out = [];
  for (let i = 0; i < n; i++) out.push(arr[Math.floor(i * step)]);
  return out;
}

/**
 * Box plot of round trips per protocol, one panel column per profile.
 * @param {{profile:string, protocol:string, ms:number}[]} rows
 */
function boxPlotSpec(rows, title = 'Round trip per protocol (ms)') {
  if (!rows.length) throw new PlotError('E_PLOT_EMPTY', `${title}: no samples`);
  return {
    title,
    data: { values: rows },
    width: 240,
    height: DEFAULTS.height,
    mark: { type: 'boxplot', extent: 1.5, median: { color: 'black' } },
    encoding: {
      x: { field: 'protocol', type: 'nominal', title: null },
      y: { field: 'ms', type: 'quantitative', title: 'round trip (ms)', scale: { zero: true } },
      color: { field: 'protocol', type: 'nominal', legend: null },
      column: { field: 'profile', type: 'nominal', title: 'network profile' },
    },
  };
}

/**
 * Response time vs users: mean and p99 per protocol, one panel per profile.
 * @param {{profile:string, protocol:string, users:number, stat:string, ms:number}[]} rows
 */
function usersSpec(rows) {
  if (!rows.length) throw new PlotError('E_PLOT_EMPTY', 'response time vs users: no load results');
  return {
    title: 'Response time vs concurrent twins (mean solid, p99 dashed)',
    data: { values: rows },
    width: 280,
    height: DEFAULTS.height,
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'users', type: 'quantitative', scale: { type: 'log' }, title: 'concurrent virtual twins' },
      y: { field: 'ms', type: 'quantitative', title: 'probe round trip (ms)' },
      color: { field: 'protocol', type: 'nominal' },
      strokeDash: { field: 'stat', type: 'nominal', title: 'statistic' },
      column: { field: 'profile', type: 'nominal', title: 'network profile' },
    },
  };
}

/**
 * Bytes per protocol: bytes/s in and out during the productions, one panel per profile.
 * @param {{profile:string, protocol:string, direction:string, bytesPerSec:number}[]} rows
 */
function bytesSpec(rows) {
  if (!rows.length) throw new PlotError('E_PLOT_EMPTY', 'bytes per protocol: no byte counts');
  return {
    title: 'Bytes on the wire per protocol (twin connection, bytes/s)',
    data: { values: rows },
    width: 240,
    height: DEFAULTS.height,
    mark: 'bar',
    encoding: {
      x: { field: 'protocol', type: 'nominal', title: null },
      y: { field: 'bytesPerSec', type: 'quantitative', title: 'bytes/s', stack: 'zero' },
      color: { field: 'direction', type: 'nominal', title: 'direction' },
      column: { field: 'profile', type: 'nominal', title: 'network profile' },
    },
  };
}

module.exports = { renderSvg, thin, boxPlotSpec, usersSpec, bytesSpec, PlotError, DEFAULTS };
