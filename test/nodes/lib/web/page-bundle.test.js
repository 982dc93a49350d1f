'use strict';
/**
 * The browser twin's module bundle: the project's own CommonJS files, run in a context that has
 * only what a browser has (no require, no Buffer, no process): the plant model must run there as
 * it runs in Node, and what a page must not call must fail loudly.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const vm = require('node:vm');
const { bundle, requestsOf } = require('../../../../nodes/lib/web/page-bundle');

const ROOT = path.join(__dirname, '..', '..', '..', '..');
const OPTS = {
  root: ROOT,
  entries: ['twin/plant.js', 'twin/recorder.js', 'twin/browser/session.js', 'twin/transports/http.js'],
  stubs: ['node:fs', 'node:path', 'node:http', 'node:https', 'ws'],
  globals: { mqtt: 'mqtt' },
};

/** A context with what a page's worker has: JavaScript itself, timers (numeric ids), clocks, text codecs. */
function browserLike() {
  const ids = new Map();
  let next = 0;
  const keep = (t) => { next += 1; ids.set(next, t); return next; };
  const g = {
    setTimeout: (f, ms) => keep(setTimeout(f, ms)),
    setInterval: (f, ms) => keep(setInterval(f, ms)),
    clearTimeout: (id) => clearTimeout(ids.get(id)),
    clearInterval: (id) => clearInterval(ids.get(id)),
    performance, TextEncoder, TextDecoder, URL, console,
  };
  g.self = g;
  return vm.createContext(g);
}

test('requestsOf lists the literal requires of a source, once each', () => {
  assert.deepEqual(requestsOf("const a = require('./a');\nconst b = require(\"b\"); require('./a'); x.require(y);"), ['./a', 'b']);
});

test('the bundle runs the very plant model in a browser-like context, in lock-step with the PLC program', () => {
  const { text, modules } = bundle(OPTS);
  const wanted = ['twin/plant.js', 'nodes/lib/core/errors.js', 'nodes/lib/core/io-table.json', 'nodes/lib/core/io-table.js', 'twin/recorder.js',
    'nodes/lib/timer/flow-timer.js'];
  for (const m of wanted) assert.ok(modules.includes(m), `${m} is in the bundle`);
  assert.ok(!modules.some((m) => /link-endpoint|mqtt-server|cli\.js/.test(m)), 'nothing the page does not require');
  const ctx = browserLike();
  vm.runInContext(text, ctx, { filename: 'modules.js' });
  assert.equal(ctx.Buffer, undefined, 'no Buffer in the context');
  const { createPlant } = ctx.S7Twin.require('twin/plant.js');
  const program = require('../../../../plc/program');
  const plant = createPlant({ boxes: 6, damaged: '01', profile: 'fast' });
  let state = program.initialState();
  const image = plant.inputs();
  plant.press('st');
  for (let t = 0; t < 20000 && !plant.done; t += 10) {
    Object.assign(image, plant.tick(10));
    const r = program.scan(state, image);
    state = r.state;
    plant.applyOutputs(r.outputs);
  }
  const s = plant.summary();
  assert.equal(s.done, true);
  assert.equal(s.packed, 3);
  assert.equal(s.rejected, 3);
  assert.equal(s.missorted, 0);
});

test('stubs throw E_NOT_IN_BROWSER when used; unbundled requires throw E_NOT_BUNDLED; globals come from the page', async () => {
  const ctx = browserLike();
  vm.runInContext(bundle(OPTS).text, ctx);
  const R = ctx.S7Twin.require;
  const { createRecorder } = R('twin/recorder.js');
  const rec = createRecorder({ now: () => 0 });
  rec.sent({ st: 1 }, 0);
  assert.equal(rec.received({ c1: 1 }, 5).length, 1, 'the recorder works without a CSV file');
  const errs = [];
  const withCsv = createRecorder({ csv: 'x.csv', now: () => 0, onCsvError: (e) => errs.push(e) });
  withCsv.sent({ st: 1 }, 0);
  withCsv.received({ c1: 1 }, 5);
  await withCsv.close();
  assert.equal(errs[0] && errs[0].code, 'E_NOT_IN_BROWSER', 'a CSV file is a Node thing: its fs calls fail loudly');
  assert.throws(() => R('twin/cli.js'), (e) => e.code === 'E_NOT_BUNDLED');
  assert.throws(() => R('twin/transports/mqtt.js'), (e) => e.code === 'E_NOT_BUNDLED', 'not an entry here');
  const withMqtt = bundle({ ...OPTS, entries: ['twin/transports/mqtt.js'] });
  const ctx2 = browserLike();
  vm.runInContext(withMqtt.text, ctx2);
  assert.throws(() => ctx2.S7Twin.require('twin/transports/mqtt.js'), (e) => e.code === 'E_NOT_LOADED', 'mqtt.js must come from the page');
  ctx2.mqtt = { connect() { throw new Error('not called'); } };
  assert.equal(typeof ctx2.S7Twin.require('twin/transports/mqtt.js').createTransport, 'function');
});

test('a dependency npm installed above the bundle (hoisted into ~/.node-red/node_modules) is served by its package path', () => {
  const fs = require('node:fs');
  const os = require('node:os');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'page-bundle-'));
  try {
    fs.mkdirSync(path.join(dir, 'node_modules', 'bundle', 'twin'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'node_modules', 'dep'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'node_modules', 'dep', 'index.js'), 'module.exports = { answer: 42 };\n');
    fs.writeFileSync(path.join(dir, 'node_modules', 'bundle', 'twin', 'a.js'), "module.exports = require('dep').answer;\n");
    const { text, modules } = bundle({ root: path.join(dir, 'node_modules', 'bundle'), entries: ['twin/a.js'] });
    assert.deepEqual(modules, ['twin/a.js', 'node_modules/dep/index.js']);
    const ctx = browserLike();
    vm.runInContext(text, ctx);
    assert.equal(ctx.S7Twin.require('twin/a.js'), 42);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an entry that does not exist, or lies outside the root, is refused', () => {
  assert.throws(() => bundle({ ...OPTS, entries: ['twin/nope.js'] }), { code: 'E_BUNDLE_ENTRY' });
  assert.throws(() => bundle({ ...OPTS, root: path.join(ROOT, 'twin'), entries: ['plant.js'] }), { code: 'E_BUNDLE_OUTSIDE' });
});
