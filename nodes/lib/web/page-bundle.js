'use strict';
/**
 * The browser twin runs the project's own CommonJS modules (twin/plant.js, the recorder, the tag
 * dictionary, back-off, the MQTT transport) as the very same files the headless twin runs: no
 * second copy and no build step a user runs. This module makes one script of them at run time:
 * each file's source verbatim inside a `function (module, exports, require)` wrapper, a map from
 * every `require('…')` a file makes to the file it resolves to (Node's own resolution, from that
 * file's folder), and a 30-line `require` for the page or its worker
 * (`S7Twin.require('twin/plant.js')` on the global object).
 *
 * What a page module requires but must not run in a browser is named in `stubs` (an object whose
 * every property access throws E_NOT_IN_BROWSER: the CSV appender (csv-appender.js) loads node:fs, and the
 * recorder never calls it without a CSV file); what a page gets from a script tag is named in
 * `globals` (mqtt.js' browser build defines `mqtt`). A request that resolves to nothing is kept
 * as a require that throws when called, so a `require` mentioned in a comment costs nothing.
 *
 * Only files reachable from the entries are in the script: nothing else under `root` is served.
 */
const fs = require('node:fs');
const path = require('node:path');
const { codedError } = require('../core/errors');

/** Error with a stable `code`. */
const BundleError = codedError('BundleError');

const REQUIRE_RE = /\brequire\(\s*(['"])([^'"\n]+)\1\s*\)/g;

/**
 * The literal `require('…')` requests in a source text, in order, without repeats.
 * @param {string} src
 * @returns {string[]}
 */
function requestsOf(src) {
  const out = new Set();
  for (const m of src.matchAll(REQUIRE_RE)) out.add(m[2]);
  return [...out];
}

/**
 * Collect the modules reachable from `entries`.
 * @param {object} o
 * @param {string} o.root folder the module ids are relative to
 * @param {string[]} o.entries files (relative to root) the page requires by id
 * @param {string[]} [o.stubs] requests that get a throwing stand-in (e.g. 'node:fs')
 * @param {Object<string,string>} [o.globals] request → name of a global the page defines
 * @returns {Map<string, {file:string, deps:Object<string, string|{stub:string}|{global:string}|{missing:string}>}>}
 */
function collect(o) {
  const stubs = new Set(o.stubs || []);
  const globals = o.globals || {};
  const mods = new Map();
  // A package the bundle depends on may sit outside it (installed into ~/.node-red, npm hoists
  // its dependencies to ~/.node-red/node_modules): such a file gets its node_modules path as id.
  const idOf = (file) => {
    const rel = path.relative(o.root, file).split(path.sep).join('/');
    if (!rel.startsWith('..')) return rel;
    const i = file.split(path.sep).join('/').lastIndexOf('/node_modules/');
    return i >= 0 ? file.split(path.sep).join('/').slice(i + 1) : rel;
  };
  const queue = o.entries.map((e) => path.resolve(o.root, e));
  for (const f of queue) if (!fs.existsSync(f)) throw new BundleError('E_BUNDLE_ENTRY', `page module ${idOf(f)} does not exist`);
  while (queue.length) {
    const file = queue.shift();
    const id = idOf(file);
    if (mods.has(id)) continue;
    if (id.startsWith('..')) throw new BundleError('E_BUNDLE_OUTSIDE', `${file} is outside ${o.root}: not served`);
    const deps = {};
    if (!file.endsWith('.json')) {
      for (const req of requestsOf(fs.readFileSync(file, 'utf8'))) {
        if (stubs.has(req)) { deps[req] = { stub: req }; continue; }
        if (globals[req]) { deps[req] = { global: globals[req] }; continue; }
        let target;
        try { target = require.resolve(req, { paths: [path.dirname(file)] }); } catch { target = null; }
        if (!target || !path.isAbsolute(target)) { deps[req] = { missing: req }; continue; }
        deps[req] = idOf(target);
        queue.push(target);
      }
    }
    mods.set(id, { file, deps });
  }
  return mods;
}

// runtime() runs in the page or its worker, whose global object is `self` where there is no globalThis.
/* global self */
/** The page side: a CommonJS `require` over the wrapped modules (runs in the browser). */
function runtime() {
  /* eslint-disable no-var */
  var g = typeof globalThis !== 'undefined' ? globalThis : self;
  var defs = g.S7TwinModules;
  var cache = {};
  function fail(code, msg) { var e = new Error(msg); e.code = code; throw e; }
  function stub(name) {
    return new Proxy({}, {
      get: function (t, k) {
        if (k === Symbol.toPrimitive || k === 'then') return undefined;
        return fail('E_NOT_IN_BROWSER', name + '.' + String(k) + ' is not available in the browser');
      },
    });
  }
  function load(id) {
    if (cache[id]) return cache[id].exports;
    var def = defs[id];
    if (!def) fail('E_NOT_BUNDLED', 'module ' + id + ' is not in the page bundle');
    var module = { exports: {}, id: id };
    cache[id] = module;
    try {
      def[0].call(module.exports, module, module.exports, function (req) {
        var dep = def[1][req];
        if (typeof dep === 'string') return load(dep);
        if (dep && dep.stub) return stub(dep.stub);
        if (dep && dep.global) return g[dep.global] || fail('E_NOT_LOADED', 'the page has not loaded ' + dep.global);
        return fail('E_NOT_BUNDLED', id + ' requires "' + req + '", which is not in the page bundle');
      });
    } catch (err) {
      delete cache[id]; // as Node does: a module that threw is loaded again next time
      throw err;
    }
    return module.exports;
  }
  g.S7Twin = { require: load, modules: Object.keys(defs) };
}

/**
 * One script with every module reachable from the entries and the `require` that runs them.
 * @param {object} o see collect()
 * @returns {{text: string, modules: string[]}}
 */
function bundle(o) {
  const mods = collect(o);
  const parts = ['/* S7 twin bridge: the project\'s CommonJS modules for the browser twin (nodes/lib/web/page-bundle.js) */', 'globalThis.S7TwinModules = {'];
  for (const [id, m] of mods) {
    const src = fs.readFileSync(m.file, 'utf8');
    const body = m.file.endsWith('.json') ? `module.exports = ${src.trim()};` : src.replace(/^#!.*\n/, '\n');
    parts.push(`${JSON.stringify(id)}: [function (module, exports, require) {\n${body}\n}, ${JSON.stringify(m.deps)}],`);
  }
  parts.push('};', `(${runtime.toString()})();`, '');
  return { text: parts.join('\n'), modules: [...mods.keys()] };
}

module.exports = { BundleError, bundle, collect, requestsOf };
