'use strict';
/**
 * What the palette and the help sidebar show for every node type of the package, as the Flow
 * Library scorecard and core nodes have it: a friendly palette label and help from the message
 * catalogs in nodes/locales/en-US (none left inline in the node's HTML), an icon of its own that
 * exists beside the nodes, and an example that uses the type. test/editor/round-trip.test.js opens
 * every node in a real editor; test/package/user-install.test.js imports every example.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const PKG = require('../../package.json');
const LOCALES = path.join(ROOT, 'nodes', 'locales', 'en-US');

/** The HTML file and its folder for a node type (a subflow module has its own). */
function htmlOf(type) {
  const js = path.join(ROOT, PKG['node-red'].nodes[type]);
  return js.replace(/\.js$/, '.html');
}

/** Every node type a file registers, with the text of its registerType call. */
function registrations(html) {
  const out = {};
  const re = /RED\.nodes\.registerType\(\s*'([^']+)'/g;
  let m;
  while ((m = re.exec(html))) out[m[1]] = html.slice(m.index, html.indexOf('\n  });', m.index));
  return out;
}

const types = Object.keys(PKG['node-red'].nodes);
const icons = new Map();

for (const type of types) {
  test(`${type}: palette label, icon and help from the message catalogs, an example`, () => {
    const file = htmlOf(type);
    if (!fs.existsSync(file)) {
      // The flow-timer is a subflow module: its label, icon and help live in its subflow JSON.
      const base = path.basename(file, '.html');
      const flow = JSON.parse(fs.readFileSync(path.join(path.dirname(file), `${base}.json`), 'utf8'));
      const def = Array.isArray(flow) ? flow.find((n) => n.type === 'subflow') : flow;
      assert.ok(def.name && !/s7twin/.test(def.name), `${type}: a friendly subflow name`);
      const icon = def.icon.split('/').pop();
      assert.ok(fs.existsSync(path.join(ROOT, 'nodes', 'icons', icon)), `${type}: nodes/icons/${icon} exists`);
      icons.set(icon, [...(icons.get(icon) || []), type]);
      const help = fs.readFileSync(path.join(path.dirname(file), 'locales', 'en-US', `${base}.html`), 'utf8');
      assert.match(help, /<p>[^<]+/, `${type}: help in its locales folder`);
    } else {
      const html = fs.readFileSync(file, 'utf8');
      assert.doesNotMatch(html, /data-help-name=/, `${type}: help lives in nodes/locales/en-US, not in the node's HTML`);
      const reg = registrations(html)[type];
      assert.ok(reg, `${type} is registered in ${path.relative(ROOT, file)}`);
      const catalog = JSON.parse(fs.readFileSync(path.join(LOCALES, `${type}.json`), 'utf8'))[type];
      assert.ok(catalog, `${type}: a message catalog`);
      const config = /category:\s*'config'/.test(reg);
      if (!config) {
        const paletteLabel = new RegExp(`paletteLabel: function \\(\\) \\{ return this\\._\\('${type}\\.paletteLabel'\\); \\}`);
        assert.match(reg, paletteLabel, `${type}: paletteLabel from the catalog`);
        assert.ok(catalog.paletteLabel && !/s7twin/i.test(catalog.paletteLabel), `${type}: a friendly palette label`);
        const icon = /icon:\s*'([^']+)'/.exec(reg);
        assert.ok(icon, `${type}: an icon`);
        assert.ok(fs.existsSync(path.join(ROOT, 'nodes', 'icons', icon[1])), `${type}: nodes/icons/${icon[1]} exists`);
        icons.set(icon[1], [...(icons.get(icon[1]) || []), type]);
      }
      // Every key the form and the registration use is in the catalog.
      const keys = [...html.matchAll(new RegExp(`(?:data-i18n="(?:\\[placeholder\\])?|_\\(')${type}\\.([A-Za-z0-9_.]+)`, 'g'))].map((m) => m[1]);
      const inCatalog = (key) => key.split('.').reduce((o, k) => (o ? o[k] : undefined), catalog) !== undefined;
      for (const key of keys.filter((k) => !k.endsWith('.'))) assert.ok(inCatalog(key), `${type}: ${key} is in ${type}.json`);
      const help = fs.readFileSync(path.join(LOCALES, `${type}.html`), 'utf8');
      assert.match(help, new RegExp(`data-help-name="${type}"`));
      assert.match(help, /<p>[^<]+/, `${type}: help opens with a summary sentence`);
    }

    const examples = fs.readdirSync(path.join(ROOT, 'examples')).filter((f) => f.endsWith('.json'));
    const usedIn = (f) => JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', f), 'utf8')).some((n) => n.type === type);
    assert.ok(examples.some(usedIn), `${type}: an example uses it`);
  });
}

test('no two node types share an icon', () => {
  const shared = [...icons].filter(([, ts]) => ts.length > 1).map(([icon, ts]) => `${icon}: ${ts.join(', ')}`);
  assert.deepEqual(shared, []);
});

test('every node in the flows, their parts and the examples holds every property its editor writes', () => {
  const defaults = {};
  for (const type of types) {
    const file = htmlOf(type);
    if (!fs.existsSync(file)) continue;
    const reg = registrations(fs.readFileSync(file, 'utf8'))[type];
    const block = /defaults:\s*\{([\s\S]*?)\n\s*\},\n/.exec(reg)[1];
    defaults[type] = [...block.matchAll(/^\s*([A-Za-z_$][\w$]*):\s*\{/gm)].map((m) => m[1]);
  }
  const files = [
    ...fs.readdirSync(path.join(ROOT, 'flows', 'parts')).map((f) => path.join('flows', 'parts', f)),
    'flows/cloud.json', 'flows/edge.json',
    ...fs.readdirSync(path.join(ROOT, 'examples')).map((f) => path.join('examples', f)),
  ].filter((f) => f.endsWith('.json'));
  const missing = [];
  for (const f of files) {
    for (const n of JSON.parse(fs.readFileSync(path.join(ROOT, f), 'utf8'))) {
      for (const k of defaults[n.type] || []) if (!(k in n)) missing.push(`${f}: ${n.type} ${n.id} has no ${k}`);
    }
  }
  assert.deepEqual(missing, []);
});
