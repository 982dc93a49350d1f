'use strict';
/**
 * Small HTTP helpers shared by the cloud's HTTP endpoints (the REST twin endpoint, the browser
 * twin's page): JSON answers, a request body read with a size limit, and mounting a handler on
 * Node-RED's httpNode app (an Express app) so that it can be taken off again on close, as core's
 * http-in node does. Plain Node `req`/`res`: the handlers run on a bare http.Server in tests.
 */
const { codedError } = require('../core/errors');

/** Error with a stable `code`. */
const HttpError = codedError('HttpError');

/**
 * Answer with a JSON body; never cached (a plant state is stale the moment it is sent).
 * @param {import('http').ServerResponse} res
 * @param {number} status
 * @param {*} body
 * @param {object} [headers]
 * @returns {number} bytes of the body
 */
function sendJson(res, status, body, headers = {}) {
  const text = body === undefined ? '' : JSON.stringify(body);
  const h = { 'Cache-Control': 'no-store', ...headers };
  if (text) { h['Content-Type'] = 'application/json; charset=utf-8'; h['Content-Length'] = Buffer.byteLength(text); }
  res.writeHead(status, h);
  res.end(text);
  return Buffer.byteLength(text);
}

/**
 * The request body as text, at most `limit` bytes (a body parser that ran before us wins).
 * @param {import('http').IncomingMessage} req
 * @param {number} limit bytes
 * @returns {Promise<string>} rejects with E_TOO_LARGE (the rest is not read) or E_BODY
 */
function readBody(req, limit) {
  if (req.readableEnded) { // a body parser that ran before us has read the stream
    const b = req.body;
    const text = b === undefined || b === null ? '' : typeof b === 'string' ? b : Buffer.isBuffer(b) ? b.toString('utf8') : JSON.stringify(b);
    return Buffer.byteLength(text) > limit ? Promise.reject(new HttpError('E_TOO_LARGE', `body exceeds ${limit} bytes`)) : Promise.resolve(text);
  }
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (declared > limit) { reject(new HttpError('E_TOO_LARGE', `body of ${declared} bytes exceeds ${limit} bytes`)); return; }
    const chunks = [];
    let size = 0;
    let done = false;
    req.on('data', (c) => {
      if (done) return;
      size += c.length;
      if (size > limit) { done = true; reject(new HttpError('E_TOO_LARGE', `body exceeds ${limit} bytes`)); req.resume(); return; }
      chunks.push(c);
    });
    req.on('end', () => { if (!done) { done = true; resolve(Buffer.concat(chunks).toString('utf8')); } });
    req.on('error', (err) => { if (!done) { done = true; reject(new HttpError('E_BODY', err.message)); } });
  });
}

/**
 * Mount `handler(req, res, next)` on an Express app under `prefix` (req.url is then relative to
 * it, req.originalUrl the whole path). Returns a function that takes it off again.
 * @param {object} app Express app (RED.httpNode)
 * @param {string} prefix e.g. '/s7twin/rest'
 * @param {Function} handler
 * @returns {() => void}
 */
function mount(app, prefix, handler) {
  const layer = (req, res, next) => handler(req, res, next);
  app.use(prefix, layer);
  return () => {
    const stack = app._router && app._router.stack;
    if (!stack) return;
    const i = stack.findIndex((l) => l.handle === layer);
    if (i >= 0) stack.splice(i, 1);
  };
}

/**
 * A path setting as an absolute URL path without a trailing slash ('s7twin/ui/' → '/s7twin/ui').
 * @param {string} p
 * @param {string} dflt
 */
function cleanPath(p, dflt) {
  let s = String(p || '').trim() || dflt;
  if (!s.startsWith('/')) s = `/${s}`;
  return s.replace(/\/+$/, '') || dflt;
}

module.exports = { HttpError, sendJson, readBody, mount, cleanPath };
