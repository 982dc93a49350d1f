'use strict';
/**
 * The browser twin's nodes in a real Node-RED runtime, from their example flow
 * (examples/s7twin-ui.json): the page and its files are served under /s7twin/ui/, the token is
 * checked as the twin endpoint checks it, one page at a time holds the driver lease, and the REST
 * endpoint answers every command even with no edge connected. (The whole loop with a PLC and a
 * browser: test/e2e/browser.test.js.)
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const zlib = require('node:zlib');
const { startNodeRed } = require('../helpers/nodered');

const EX = path.join(__dirname, '..', '..', 'examples', 's7twin-ui.json');

test('examples/s7twin-ui.json: page, modules, libraries, session, driver lease and REST, token-checked', async (t) => {
  const red = await startNodeRed({
    role: 'cloud', flows: EX, env: { S7T_TWIN_TOKEN: 'tw', S7T_VIEWER_TOKEN: 'vw', S7T_EDGE_TOKEN: 'ed', S7T_MQTT_WS_PORT: '' },
  });
  t.after(() => red.stop());
  const ui = `${red.url}/s7twin/ui`;
  const get = (p, o = {}) => fetch(`${ui}${p}`, o);

  const redirect = await fetch(ui, { redirect: 'manual' });
  assert.equal(redirect.status, 301);
  assert.equal(redirect.headers.get('location'), '/s7twin/ui/');
  const page = await get('/');
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<canvas id="scene"/);
  assert.match(page.headers.get('content-security-policy'), /script-src 'self' 'sha256-/);
  assert.equal((await get('/', { headers: { 'If-None-Match': page.headers.get('etag') } })).status, 304);

  const mods = await get('/modules.js');
  assert.equal(mods.status, 200);
  const text = await mods.text();
  for (const m of ['twin/plant.js', 'twin/recorder.js', 'twin/browser/session.js', 'nodes/lib/core/io-table.json', 'twin/browser/replay.js',
    'twin/browser/replay-load.js', 'twin/browser/timeline.js']) {
    assert.ok(text.includes(JSON.stringify(m)), m);
  }
  const gzipped = { headers: { 'Accept-Encoding': 'gzip' } };
  const raw = await new Promise((resolve, reject) => require('node:http').get(`${ui}/vendor/three.module.js`, gzipped, (res) => {
    const chunks = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
  }).on('error', reject));
  assert.equal(raw.headers['content-encoding'], 'gzip');
  assert.match(zlib.gunzipSync(raw.body).toString('utf8', 0, 2000), /Three\.js Authors/);
  for (const f of ['/vendor/OrbitControls.js', '/vendor/three.core.js', '/vendor/mqtt.min.js', '/app.mjs', '/scene.mjs', '/replay-ui.mjs', '/worker.js',
    '/style.css']) {
    assert.equal((await get(f)).status, 200, f);
  }
  for (const f of ['/session.js', '/../package.json', '/vendor/fs.js', '/%2e%2e/settings.js']) assert.equal((await get(f)).status, 404, f);

  const config = await (await get('/config.json')).json();
  assert.deepEqual(config.protocols.ws, { path: '/s7twin/twin', plant: 'plant1' }, 'the page connects for the node\'s plant (S7T_PLANT, else plant1)');
  assert.equal(config.protocols.mqtt, null, 'no MQTT over WebSocket port: the page offers none');
  assert.equal(config.protocols.http.path, '/s7twin/rest');
  assert.deepEqual(config.history, { path: '/s7twin/history', plant: 'plant1' }, 'the replay reads the plant history there');
  // The page's own tokens read it, with the window's commands; an edge token may not.
  const history = (token) => fetch(`${red.url}${config.history.path}?plant=plant1&commands=1`, { headers: { Authorization: `Bearer ${token}` } });
  for (const tok of ['tw', 'vw']) {
    const h = await history(tok);
    assert.equal(h.status, 200, tok);
    const body = await h.json();
    assert.ok(Array.isArray(body.states) && Array.isArray(body.commands), tok);
  }
  assert.equal((await history('ed')).status, 403);
  assert.ok(!/"(tw|vw|ed)"/.test(JSON.stringify(config)), 'no token in the config');
  assert.equal(config.page, 'scene', 'the demo plant\'s table: the 3D page');
  assert.equal(config.title, 'Box-sorting plant');
  assert.equal(JSON.stringify(config).includes('DB1'), false, 'no address in the public config');

  assert.equal((await get('/session')).status, 401);
  assert.equal((await get('/session', { headers: { Authorization: 'Bearer nope' } })).status, 401);
  assert.equal((await (await get('/session?token=vw')).json()).role, 'viewer');
  const who = await (await get('/session', { headers: { Authorization: 'Bearer tw' } })).json();
  assert.equal(who.role, 'twin');
  assert.equal(who.table.program, 'box-sorting', 'the plant\'s table comes with a token\'s session');

  const claim = (token, id, force) => get('/driver', {
    method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ id, force }),
  });
  assert.equal((await claim('tw', 'page-a')).status, 200);
  const held = await claim('tw', 'page-b');
  assert.equal(held.status, 409);
  assert.equal((await held.json()).holder.id, 'page-a');
  const viewer = await claim('vw', 'page-v');
  assert.equal(viewer.status, 403);
  assert.equal((await viewer.json()).error.code, 'E_READ_ONLY');
  assert.equal((await claim('tw', 'page-b', true)).status, 200, 'taken over');
  assert.equal((await claim('tw', 'bad id!')).status, 400);
  assert.deepEqual(await (await get('/driver?id=page-b', { method: 'DELETE', headers: { Authorization: 'Bearer tw' } })).json(), { released: true });

  // REST with no edge connected: every command is still answered, and nothing pretends to be state.
  const rest = `${red.url}/s7twin/rest`;
  const cmd = { v: 1, k: 'cmd', src: 'twin-x', seq: 1, ts: Date.now(), d: { st: 1 } };
  const r = await fetch(`${rest}/cmd`, { method: 'POST', headers: { Authorization: 'Bearer tw' }, body: JSON.stringify(cmd) });
  assert.equal(r.status, 503);
  assert.equal((await r.json()).e.code, 'E_EDGE_DOWN');
  const ro = await fetch(`${rest}/cmd?token=vw`, { method: 'POST', body: JSON.stringify({ ...cmd, seq: 2 }) });
  assert.equal(ro.status, 403);
  const st = await fetch(`${rest}/state?token=tw`);
  assert.equal(st.status, 503);
  assert.equal((await st.json()).e.code, 'E_NO_STATE');
  const stats = await (await fetch(`${red.url}/s7twin/stats`)).json();
  const restStats = stats.nodes.find((n) => n.type === 's7twin-rest').counters;
  assert.equal(restStats.edgeDown, 1);
  assert.equal(restStats.readOnly, 1);
  const uiStats = stats.nodes.find((n) => n.type === 's7twin-ui').counters;
  assert.equal(uiStats.takeovers, 1);
  assert.ok(uiStats.unauthorized >= 2);
});

test('the page and REST serve one plant: S7T_PLANT, with the tokens valid for it among the plain and scoped ones', async (t) => {
  const red = await startNodeRed({
    role: 'cloud', flows: EX,
    env: {
      S7T_PLANT: 'plant2', S7T_TWIN_TOKEN: 'tw2', S7T_VIEWER_TOKEN: '', S7T_EDGE_TOKEN: 'ed',
      S7T_TOKENS: 'p1:twin:plant1,all:twin:*,v2:viewer:plant2', S7T_MQTT_WS_PORT: '',
    },
  });
  t.after(() => red.stop());
  const ui = `${red.url}/s7twin/ui`;
  const config = await (await fetch(`${ui}/config.json`)).json();
  assert.deepEqual(config.protocols.ws, { path: '/s7twin/twin', plant: 'plant2' });
  const role = async (token) => { const r = await fetch(`${ui}/session?token=${token}`); return r.status === 200 ? (await r.json()).role : r.status; };
  assert.equal(await role('p1'), 401, 'a token of plant1 only: not this page\'s');
  assert.equal(await role('all'), 'twin');
  assert.equal(await role('tw2'), 'twin', 'the plain twin token is for S7T_PLANT');
  assert.equal(await role('v2'), 'viewer');
  const cmd = (token, seq) => fetch(`${red.url}/s7twin/rest/cmd?token=${token}`, {
    method: 'POST', body: JSON.stringify({ v: 1, k: 'cmd', src: 'twin-r', seq, ts: Date.now(), d: { st: 1 } }),
  });
  assert.equal((await cmd('p1', 1)).status, 401, 'REST: a token of plant1 only is refused');
  const r = await cmd('all', 2);
  assert.equal(r.status, 503, 'REST: accepted, and no edge of plant2 anywhere');
  assert.equal((await r.json()).e.code, 'E_EDGE_DOWN');
  assert.equal((await cmd('v2', 3)).status, 403, 'REST: a viewer of plant2 may only read');
});
