'use strict';
/**
 * The browser twin's page, served by the cloud (the s7twin-ui node mounts it on RED.httpNode):
 *
 *   GET  <path>/               the page: the 3D scene (twin/browser/index.html) for the demo
 *                              box-sorting plant, the page generated from the plant's table
 *                              (twin/browser/tags.html) for any other; its files (.css, .mjs, …)
 *   GET  <path>/modules.js     the project's CommonJS modules the page runs, as one script
 *                              (nodes/lib/web/page-bundle.js: twin/plant.js itself, not a copy)
 *   GET  <path>/vendor/<file>  three.js, its OrbitControls and mqtt.js' browser build, read from
 *                              the installed npm packages (no build step)
 *   GET  <path>/config.json    where the page finds the twin endpoints and the plant history (its
 *                              replay), which page it is (no secrets)
 *   GET  <path>/session        who a token is: {role: 'twin'|'viewer', driver, table}; 401 if
 *                              nobody (the table, with the PLC's addresses, only for a token)
 *   POST <path>/driver         {id, force?, label?}: claim or renew the driver lease
 *                              (nodes/lib/web/driver-lease.js); 409 when another page holds it
 *   DELETE <path>/driver?id=   give it up
 *
 * Tokens as the twin endpoint takes them (Bearer or ?token=); a viewer token may ask who it is,
 * never for the lease (403 E_READ_ONLY). Static files are read once, gzipped once, and revalidated
 * by ETag (./files.js). A page's Content-Security-Policy allows scripts from here only, plus the
 * hash of its one inline script (the import map).
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { bundle } = require('./page-bundle');
const { createFileCache } = require('./files');
const { demoTable } = require('../core/io-table');
const { createRoleChecker } = require('../access/auth');
const { sendJson, readBody } = require('./http');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};
// What the page folder serves: its markup, styles, ES modules, images and its worker. Its
// CommonJS modules go out in modules.js only.
const PAGE_FILES = /^([a-z0-9][a-z0-9_.-]*\.(html|css|mjs|svg|png|ico)|worker\.js)$/i;
/** The 3D page: the demo box-sorting plant's scene, for a table that runs its program. */
const SCENE_PAGE = 'index.html';
/** The page generated from any other plant's table: its tags, values, controls and trends. */
const GENERATED_PAGE = 'tags.html';

/**
 * Which page a plant gets: the 3D scene models the box-sorting plant, so only a table running
 * its program has it; any other table gets the generated page.
 * @param {object} table
 * @returns {string} a file of the page folder
 */
const pageFor = (table) => (table.program === 'box-sorting' ? SCENE_PAGE : GENERATED_PAGE);

/**
 * @param {object} o
 * @param {string} o.pageDir folder of the page's own files (twin/browser)
 * @param {Object<string,string>} o.vendor file name → absolute path of a library file
 * @param {object} o.modules page-bundle options {root, entries, stubs, globals}
 * @param {() => object} o.config the page's settings (endpoints, plant id)
 * @param {string[]} o.tokens twin tokens; @param {string[]} [o.viewerTokens]
 * @param {object} o.lease a driver lease (createLease)
 * @param {() => object} [o.table] the plant's I/O table now (default: the demo plant's): it picks
 *   the page, and /session gives its definition to a page with a valid token
 */
function createTwinUi(o) {
  const roleOf = createRoleChecker({ tokens: o.tokens || [], viewerTokens: o.viewerTokens || [] });
  const counters = {
    requests: 0, files: 0, notModified: 0, notFound: 0, sessions: 0, unauthorized: 0, leaseClaims: 0, leaseDenied: 0, readOnly: 0, badRequests: 0,
  };
  const files = createFileCache({ counters });
  const tableOf = o.table || demoTable;

  /** A page of the folder, with a Content-Security-Policy allowing its one inline script (the import map), if any. */
  function page(name) {
    return files.entry(name, () => fs.readFileSync(path.join(o.pageDir, name)), TYPES['.html'], (body) => {
      const m = /<script type="importmap">([\s\S]*?)<\/script>/.exec(body.toString('utf8'));
      const hash = m ? ` 'sha256-${crypto.createHash('sha256').update(m[1]).digest('base64')}'` : '';
      return {
        'Content-Security-Policy': `default-src 'self'; script-src 'self'${hash}; style-src 'self'; img-src 'self' data: blob:; `
          + 'connect-src \'self\' ws: wss: http: https:; object-src \'none\'; base-uri \'none\'; frame-ancestors \'self\'',
      };
    });
  }

  /** The page's settings: which page the plant has, its title (the node's name, else the table's). */
  function config(res) {
    const c = o.config();
    let table;
    try {
      table = tableOf();
    } catch (err) {
      sendJson(res, 503, { ...c, error: { code: err.code || 'E_TABLE', msg: err.message } });
      return;
    }
    const scene = pageFor(table) === SCENE_PAGE;
    sendJson(res, 200, { ...c, title: c.title || (scene ? 'Box-sorting plant' : table.name), page: scene ? 'scene' : 'tags' });
  }

  function notFound(res, what) {
    counters.notFound += 1;
    sendJson(res, 404, { error: { code: 'E_NOT_FOUND', msg: `no ${what} here` } });
  }

  async function driver(req, res, url) {
    const role = roleOf(req);
    if (!role) { counters.unauthorized += 1; sendJson(res, 401, { error: { code: 'E_UNAUTHORIZED', msg: 'missing or wrong token' } }); return; }
    if (role !== 'twin') {
      counters.readOnly += 1;
      req.resume();
      sendJson(res, 403, { error: { code: 'E_READ_ONLY', msg: 'a viewer token may watch, not drive' } });
      return;
    }
    if (req.method === 'DELETE') { sendJson(res, 200, { released: o.lease.release(url.searchParams.get('id')) }); return; }
    let body;
    try {
      body = JSON.parse(await readBody(req, 4096));
    } catch (err) {
      counters.badRequests += 1;
      sendJson(res, err.code === 'E_TOO_LARGE' ? 413 : 400, { error: { code: err.code || 'E_JSON', msg: err.message } });
      return;
    }
    counters.leaseClaims += 1;
    let r;
    try {
      r = o.lease.claim(body && body.id, { force: Boolean(body && body.force), label: body && body.label });
    } catch (err) {
      counters.badRequests += 1;
      sendJson(res, 400, { error: { code: err.code, msg: err.message } });
      return;
    }
    if (!r.granted) counters.leaseDenied += 1;
    sendJson(res, r.granted ? 200 : 409, { ...r, ttlMs: o.lease.ttlMs });
  }

  /**
   * Handle one request (req.url relative to the page's path).
   * @param {import('http').IncomingMessage} req
   * @param {import('http').ServerResponse} res
   */
  function handle(req, res) {
    counters.requests += 1;
    let url;
    try { url = new URL(req.url, 'http://localhost'); } catch { notFound(res, 'such URL'); return; }
    const p = url.pathname;
    if (p === '/driver') { driver(req, res, url); return; }
    if (req.method !== 'GET' && req.method !== 'HEAD') { sendJson(res, 405, { error: { code: 'E_METHOD', msg: `${req.method} is not served here` } }); return; }
    if (p === '/' || p === '/index.html') {
      // Relative links in the page need the trailing slash: /s7twin/ui → /s7twin/ui/
      if (req.originalUrl && !/\/(index\.html)?(\?|$)/.test(req.originalUrl)) {
        res.writeHead(301, { Location: req.originalUrl.replace(/(\?|$)/, '/$1') });
        res.end();
        return;
      }
      let name;
      try { name = pageFor(tableOf()); } catch { name = GENERATED_PAGE; } // the page says why: config.json
      files.serve(req, res, page(name));
      return;
    }
    if (p === '/config.json') { config(res); return; }
    if (p === '/session') {
      counters.sessions += 1;
      const role = roleOf(req);
      if (!role) { counters.unauthorized += 1; sendJson(res, 401, { error: { code: 'E_UNAUTHORIZED', msg: 'missing or wrong token' } }); return; }
      // The table (the plant's tags and addresses) only for a token of the plant.
      let table = null;
      try { table = tableOf().definition; } catch { /* config.json says why */ }
      sendJson(res, 200, { role, driver: o.lease.holder(), ttlMs: o.lease.ttlMs, table });
      return;
    }
    if (p === '/modules.js') { files.serve(req, res, files.entry('modules.js', () => Buffer.from(bundle(o.modules).text), TYPES['.js'])); return; }
    const vendor = /^\/vendor\/([^/]+)$/.exec(p);
    if (vendor) {
      const file = o.vendor[vendor[1]];
      if (!file) { notFound(res, `library ${vendor[1]}`); return; }
      files.serve(req, res, files.entry(`vendor/${vendor[1]}`, () => fs.readFileSync(file), TYPES[path.extname(file)] || 'application/octet-stream'));
      return;
    }
    const name = p.slice(1);
    if (!PAGE_FILES.test(name) || !fs.existsSync(path.join(o.pageDir, name))) { notFound(res, `file ${p}`); return; }
    if (name.endsWith('.html')) { files.serve(req, res, page(name)); return; }
    files.serve(req, res, files.entry(name, () => fs.readFileSync(path.join(o.pageDir, name)), TYPES[path.extname(name)]));
  }

  return { handle, counters };
}

module.exports = { createTwinUi, pageFor, TYPES, SCENE_PAGE, GENERATED_PAGE };
