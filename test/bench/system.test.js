'use strict';
/**
 * The benchmark deploys the bundle's flows with the tabs of the paths it does not run disabled
 * (the launcher's system/flows.js, by the table of protocol paths), so `--protocols ws` measures
 * the WebSocket–S7 path without idle Modbus and OPC UA poll loops beside it.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { readFlows, withPathsDisabled } = require('../../system/flows');

const ROOT = path.join(__dirname, '..', '..');
const cloud = readFlows(path.join(ROOT, 'flows', 'cloud.json'));
const edge = readFlows(path.join(ROOT, 'flows', 'edge.json'));
const tabsOf = (flows) => Object.fromEntries(flows.filter((n) => n.type === 'tab').map((t) => [t.label, !!t.disabled]));

test('only the tabs of paths not in the run are disabled, and nothing else changes', () => {
  const c = withPathsDisabled(cloud, new Set(['ws', 'stock']));
  const e = withPathsDisabled(edge, new Set(['ws', 'stock']));
  const ct = tabsOf(c);
  const et = tabsOf(e);
  assert.equal(ct['WebSocket–S7 path'], false);
  assert.equal(et['WebSocket–S7 path'], false);
  for (const [label, off] of Object.entries({ ...ct, ...et })) {
    if (!/WebSocket|Browser twin/.test(label)) assert.equal(off, true, `${label} disabled`);
  }
  assert.equal(ct['Browser twin and REST'], false, 'the browser twin speaks the WebSocket–S7 path');
  assert.equal(c.length, cloud.length);
  assert.deepEqual(c.filter((n) => n.type !== 'tab'), cloud.filter((n) => n.type !== 'tab'), 'nodes untouched');
  assert.ok(!cloud.some((n) => n.disabled), 'the flow files themselves are not changed');
  assert.deepEqual(c.disabledTabs.sort(), ['MQTT path', 'Modbus path (cloud)', 'OPC UA path (cloud)']);
});

test('with every path in the run no tab is disabled; each path keeps its own tab', () => {
  const all = new Set(['ws', 'mqtt', 'opcua', 'modbus']);
  assert.deepEqual(withPathsDisabled(cloud, all).disabledTabs, []);
  assert.deepEqual(withPathsDisabled(edge, all).disabledTabs, []);
  const mb = tabsOf(withPathsDisabled([...cloud, ...edge], new Set(['modbus'])));
  assert.deepEqual(Object.entries(mb).filter(([, off]) => !off).map(([l]) => l).sort(), ['Modbus path (cloud)', 'Modbus path (edge)']);
  // HTTP polling rides the WebSocket–S7 path's edge link; MQTT over WebSocket the MQTT tab's broker.
  const on = (want) => Object.entries(tabsOf(withPathsDisabled([...cloud, ...edge], new Set(want)))).filter(([, off]) => !off).map(([l]) => l).sort();
  assert.deepEqual(on(['http']), ['Browser twin and REST', 'WebSocket–S7 path']);
  assert.deepEqual(on(['mqttws']), ['Browser twin and REST', 'MQTT path']);
});
