'use strict';
/**
 * Files a node serves as they are (the browser twin's page and libraries, the table editor's
 * modules): each read or made once, gzipped once, named by an ETag, and revalidated by the
 * browser on every use (`Cache-Control: no-cache`), so an updated package is seen at the next
 * load while an unchanged file costs a 304. Plain Node `req`/`res`.
 */
const crypto = require('node:crypto');
const zlib = require('node:zlib');

/**
 * A cache of served files by name.
 * @param {{counters?: {files: number, notModified: number}}} [o] where to count what is served
 * @returns {{entry: Function, serve: Function, counters: object}}
 */
function createFileCache(o = {}) {
  const cache = new Map(); // name -> {body, gz, etag, type, headers}
  const counters = o.counters || { files: 0, notModified: 0 };

  /**
   * The file `name`, made by `load()` the first time.
   * @param {string} name
   * @param {() => Buffer} load
   * @param {string} type its Content-Type
   * @param {(body: Buffer) => object} [headers] headers of its own (a page's Content-Security-Policy)
   */
  function entry(name, load, type, headers) {
    let e = cache.get(name);
    if (e) return e;
    const body = load();
    e = {
      body,
      gz: zlib.gzipSync(body),
      etag: `"${crypto.createHash('sha1').update(body).digest('base64url').slice(0, 20)}"`,
      type,
      headers: headers ? headers(body) : {},
    };
    cache.set(name, e);
    return e;
  }

  /**
   * Answer a GET or HEAD with a file: 304 when the browser holds it, gzipped when it takes gzip.
   * @param {import('http').IncomingMessage} req
   * @param {import('http').ServerResponse} res
   * @param {object} e entry()
   */
  function serve(req, res, e) {
    const headers = {
      'Content-Type': e.type, ETag: e.etag, 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff', Vary: 'Accept-Encoding', ...e.headers,
    };
    if (req.headers['if-none-match'] === e.etag) { counters.notModified += 1; res.writeHead(304, headers); res.end(); return; }
    const gz = /\bgzip\b/.test(req.headers['accept-encoding'] || '');
    const body = gz ? e.gz : e.body;
    if (gz) headers['Content-Encoding'] = 'gzip';
    headers['Content-Length'] = body.length;
    counters.files += 1;
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  return { entry, serve, counters };
}

module.exports = { createFileCache };
