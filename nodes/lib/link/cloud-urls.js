'use strict';
/**
 * The cloud instances a peer may dial (in a fleet any instance serves any plant): a
 * comma-separated list (S7T_CLOUD_URL, the twin transport's `url`) or one load-balanced URL. The edge's link (lib/link/dialer.js) and the twin's
 * WebSocket transport (twin/transports/ws.js) rotate through it: when the instance they are on
 * goes (or refuses them), the next attempt goes to the next URL, with their usual back-off.
 */
const { codedError } = require('../core/errors');
const { checkPlant } = require('../core/plants');

const UrlError = codedError('UrlError');

/**
 * @param {string|string[]} list 'ws://a:1880/s7twin/edge, ws://b:1880/s7twin/edge' or an array
 * @param {object} [o]
 * @param {string} [o.plant] added as `?plant=` where the URL does not name one
 * @returns {string[]} at least one ws:// or wss:// URL
 * @throws {UrlError} E_URL
 */
function parseCloudUrls(list, o = {}) {
  const parts = (Array.isArray(list) ? list : String(list || '').split(',')).map((u) => String(u).trim()).filter(Boolean);
  if (!parts.length) throw new UrlError('E_URL', 'no cloud URL given');
  if (o.plant !== undefined) checkPlant(o.plant);
  return parts.map((u) => {
    let url;
    try { url = new URL(u); } catch { throw new UrlError('E_URL', `not a URL: ${JSON.stringify(u)}`); }
    if (url.protocol !== 'ws:' && url.protocol !== 'wss:') throw new UrlError('E_URL', `not a ws:// or wss:// URL: ${JSON.stringify(u)}`);
    if (o.plant !== undefined && !url.searchParams.has('plant')) url.searchParams.set('plant', o.plant);
    return url.toString();
  });
}

/**
 * Round-robin over a URL list.
 * @param {string[]} urls
 * @returns {{readonly url: string, readonly index: number, next(): string, switches: number}}
 */
function createRotation(urls) {
  let i = 0;
  const r = {
    switches: 0,
    get url() { return urls[i]; },
    get index() { return i; },
    /** Move on to the next URL (a no-op with one URL). */
    next() {
      if (urls.length > 1) { i = (i + 1) % urls.length; r.switches += 1; }
      return urls[i];
    },
  };
  return r;
}

/** A URL without its query's token (for logs). */
const redact = (u) => u.replace(/([?&]token=)[^&]*/g, '$1***');

module.exports = { parseCloudUrls, createRotation, redact, UrlError };
