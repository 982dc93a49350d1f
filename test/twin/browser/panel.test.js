'use strict';
/** What the browser twin's panel shows (twin/browser/panel.js) and the session's round-trip filter. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { panelSnapshot, summaryText, connectionOf } = require('../../../twin/browser/panel');
const { timedPart } = require('../../../twin/browser/session');

const base = {
  protocol: 'http', driving: false, readOnly: false, holder: { id: 'x' }, transportStats: { state: 'waiting', connected: false, errors: 2 },
  own: { st: 0, sp: 0, se: 1, p1f: 0, p1b: 1, sd: 0, dmg: 0, p2f: 0, sk: 0, p3f: 0 }, plc: { se: 0, grn: 1, ng: 4, nr: 1 },
  summary: { boxes: 5, arrived: 3 }, auto: null, rtt: {}, pending: 0, counters: { fed: 1 }, log: [{ text: 'x' }],
};

test('the panel: the inputs the PLC saw while watching, the page\'s own while driving; lamps and counters from the PLC', () => {
  const w = panelSnapshot(base);
  assert.equal(w.mode, 'watching');
  assert.equal(w.inputs.se, 0, 'the PLC\'s value');
  assert.equal(w.inputs.p1b, 1, 'the page\'s own where the PLC said nothing');
  assert.deepEqual(w.lamps, { green: true, red: false });
  assert.deepEqual(w.counts, { good: 4, rejected: 1, boxesIn: null });
  assert.equal(w.feed.waiting, 2);
  assert.equal(panelSnapshot({ ...base, driving: true }).inputs.se, 1);
  w.counters.fed = 9;
  w.log.push('y');
  assert.equal(base.counters.fed, 1, 'copies');
  assert.equal(base.log.length, 1);
  const none = { state: 'connecting', connected: false, reconnects: 0, errors: 0, errorCodes: {}, lastError: '', sent: 0, received: 0, acks: 0 };
  assert.deepEqual(connectionOf({}), none);
});

test('summaryText says connection, who drives, lamps and counters', () => {
  assert.equal(summaryText(panelSnapshot(base)),
    'Not connected (waiting); another page drives the plant. Plant running, green lamp on, red lamp off. 4 good, 1 rejected.');
  const s = panelSnapshot({ ...base, readOnly: true, transportStats: { connected: true }, plc: {} });
  assert.equal(summaryText(s),
    'Connected over HTTP polling; watching with a read-only token. Plant stopped, green lamp off, red lamp off. counters not known yet.');
  const held = panelSnapshot({ ...base, driving: true, transportStats: { connected: true, plcAway: 'E_EDGE_DOWN' }, waits: 'the edge is away (E_EDGE_DOWN)' });
  assert.equal(held.waits, 'the edge is away (E_EDGE_DOWN)');
  assert.match(summaryText(held), /this page drives the plant\..* The plant waits: the edge is away \(E_EDGE_DOWN\)\.$/);
});

test('timedPart: a trigger whose every output is at its value already starts no timer', () => {
  assert.deepEqual(timedPart({ st: 1, se: 1 }, { c1: 1 }), { se: 1 }, 'Start while the belt runs: not timed');
  assert.deepEqual(timedPart({ st: 1 }, { c1: 0 }), { st: 1 });
  assert.deepEqual(timedPart({ sd: 1 }, { p2fw: 1, red: 0 }), { sd: 1 }, 'one of its outputs is not there yet');
  assert.deepEqual(timedPart({ sd: 1 }, { p2fw: 1, red: 1 }), {});
  assert.deepEqual(timedPart({ st: 0 }, { c1: 1 }), { st: 0 }, 'a release triggers nothing');
});
