'use strict';
/**
 * What the browser twin's panel shows: the session's state in one object (the page redraws from
 * it, tests and the benchmark read it through window.s7twin), and the same in one or two
 * sentences for the page's aria-live region. The lamps and counters are the demo plant's
 * (GreenLamp, RedLamp, the good, rejected and boxes-in counters of the I/O table). Browser-safe.
 */
// The 3D page shows the demo box-sorting plant: its table.
const tags = require('../../nodes/lib/core/io-table').demoTable();

const INPUTS = tags.inputs.map((t) => t.short);
const LABEL = { ws: 'WebSocket–S7', mqttws: 'MQTT over WebSocket', http: 'HTTP polling' };

/**
 * The transport's stats as the panel shows them (every transport counts a little differently).
 * @param {object} ts the transport's stats()
 */
function connectionOf(ts) {
  return {
    state: ts.state || (ts.connected ? 'connected' : 'connecting'),
    connected: Boolean(ts.connected),
    reconnects: ts.reconnects || 0,
    errors: ts.errors || 0,
    errorCodes: ts.errorCodes || {},
    lastError: ts.lastError || '',
    sent: ts.sent || 0,
    received: ts.received || 0,
    acks: ts.acks || 0,
  };
}

/**
 * Everything the panel shows.
 * @param {object} p
 * @param {string} p.protocol
 * @param {boolean} p.driving
 * @param {boolean} p.readOnly
 * @param {object|null} p.holder who holds the driver lease
 * @param {object} p.transportStats the transport's stats()
 * @param {object} p.own the page's model's inputs
 * @param {object} p.plc every value the PLC's state and snapshots said
 * @param {object} p.summary the page's model's summary()
 * @param {object|null} p.auto the automatic feed
 * @param {object} p.rtt the chart's stats()
 * @param {number} p.pending round trips not closed yet
 * @param {object} p.counters
 * @param {object[]} p.log recent lines
 * @param {string} [p.waits] why the driving page's plant waits ('' while it runs)
 */
function panelSnapshot(p) {
  const { plc } = p;
  // The inputs as the PLC last saw them: the page's own while it drives (or where the path does
  // not stream inputs), the PLC's otherwise.
  const seen = Object.fromEntries(INPUTS.map((k) => [k, p.driving || !(k in plc) ? p.own[k] : plc[k]]));
  return {
    protocol: p.protocol,
    mode: p.driving ? 'driving' : 'watching',
    readOnly: p.readOnly,
    holder: p.holder,
    connection: connectionOf(p.transportStats),
    plc: { ...plc },
    inputs: seen,
    lamps: { green: plc.grn === 1, red: plc.red === 1 },
    counts: { good: plc.ng ?? null, rejected: plc.nr ?? null, boxesIn: plc.nb ?? null },
    feed: { waiting: p.summary.boxes - p.summary.arrived, auto: p.auto },
    rtt: p.rtt,
    pending: p.pending,
    counters: { ...p.counters },
    waits: p.waits || '',
    log: p.log.slice(),
  };
}

/**
 * The state in one or two sentences, for the page's aria-live region (lamps, counters,
 * connection, who drives): what a screen reader user hears when it changes.
 * @param {object} s panelSnapshot()
 * @returns {string}
 */
function summaryText(s) {
  const conn = s.connection.connected ? `Connected over ${LABEL[s.protocol] || s.protocol}` : `Not connected (${s.connection.state})`;
  const who = s.readOnly ? 'watching with a read-only token' : s.mode === 'driving' ? 'this page drives the plant' : 'another page drives the plant';
  const run = s.lamps.green ? 'Plant running, green lamp on' : 'Plant stopped, green lamp off';
  const red = s.lamps.red ? 'red lamp on: rejecting a damaged box' : 'red lamp off';
  const counts = s.counts.good === null ? 'counters not known yet' : `${s.counts.good} good, ${s.counts.rejected} rejected`;
  const waits = s.waits ? ` The plant waits: ${s.waits}.` : '';
  return `${conn}; ${who}. ${run}, ${red}. ${counts}.${waits}`;
}

module.exports = { LABEL, panelSnapshot, summaryText, connectionOf };
