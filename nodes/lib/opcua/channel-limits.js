'use strict';
/**
 * Per-channel limits of the cloud OPC UA server (server.js), with nodes/lib/access/peer-limits.js:
 * a request rate and a budget of failed requests per secure channel (a twin's connection). Past
 * either, the request is answered with a ServiceFault BadTcpServerTooBusy whose string table says
 * why (E_RATE_LIMIT, E_ERROR_BUDGET), then the channel is closed and counted (rateLimited,
 * errorBudget). Accounts of an exempt role (the edge, which relays every probe of every twin) are
 * never limited.
 *
 * node-opcua hands every request of every channel to `on_request` (base_server.js) and sends every
 * answer through `channel.send_response`; both are wrapped here, per server and per channel, so a
 * request over the limit is never processed.
 */
const peerLimits = require('../access/peer-limits');

const CLOSE_AFTER_MS = 200; // a limited channel gets this long to read its ServiceFault

/**
 * Is this answer a refused request: a bad service result, or a bad result for any operation (a
 * denied write)?
 * @param {object} response a node-opcua response
 * @returns {boolean}
 */
function isRefusal(response) {
  const header = response && response.responseHeader;
  return !!((header && header.serviceResult && header.serviceResult.isNotGood())
    || (Array.isArray(response && response.results) && response.results.some((r) => r && typeof r.isNotGood === 'function' && r.isNotGood())));
}

/**
 * Limit every channel of a server.
 * @param {object} srv node-opcua's OPCUAServer (initialised)
 * @param {object} opts
 * @param {object} opts.opcua node-opcua (StatusCodes, OPCUAServer.makeServiceFault)
 * @param {{ratePerS, burst, errors, errorWindowMs, exemptRoles: string[]}} opts.cfg
 * @param {(user: string) => string|null} opts.roleOf the role of a user name (accounts.js)
 * @param {{rateLimited: number, errorBudget: number}} opts.counters
 * @param {(ev: {code, message, channelId, request?, session?}) => void} opts.onLimited a channel is being
 *   closed (over its rate: with the request not processed, and its session)
 * @param {number} [opts.closeAfterMs] default 200
 */
function limitChannels(srv, { opcua, cfg, roleOf, counters, onLimited, closeAfterMs = CLOSE_AFTER_MS }) {
  const limits = new WeakMap(); // channel -> {peer, spent}
  const closeSoon = (channel) => setTimeout(() => { try { channel.abruptlyInterrupt(); } catch { /* already gone */ } }, closeAfterMs);
  const sessionOf = (request) => {
    const token = request && request.requestHeader && request.requestHeader.authenticationToken;
    return token ? srv.engine.getSession(token) : null;
  };
  const exempt = (request) => {
    const session = sessionOf(request);
    const user = session && session.userIdentityToken && session.userIdentityToken.userName;
    return cfg.exemptRoles.includes(roleOf(user));
  };
  /** Over its rate: a ServiceFault that says why, then the channel is closed. */
  const cut = (channel, message, why) => {
    counters.rateLimited += 1;
    // The request that was not processed, and its session: the command log names its writes.
    onLimited({ code: why.code, message: why.message, channelId: channel.channelId, request: message.request, session: sessionOf(message.request) });
    const fault = opcua.OPCUAServer.makeServiceFault(opcua.StatusCodes.BadTcpServerTooBusy, [`${why.code}: ${why.message}`]);
    try { channel.send_response('MSG', fault, message, () => closeSoon(channel)); } catch { closeSoon(channel); }
  };
  /** A channel's limits, made on its first request; its answers are watched for refusals. */
  const limitsOf = (channel) => {
    let l = limits.get(channel);
    if (l) return l;
    l = { peer: peerLimits.createPeerLimits({ ratePerS: cfg.ratePerS, burst: cfg.burst, errors: cfg.errors, errorWindowMs: cfg.errorWindowMs }), spent: false };
    limits.set(channel, l);
    const send = channel.send_response.bind(channel);
    channel.send_response = (type, response, msg, cb) => {
      if (isRefusal(response) && !l.spent && !(msg && exempt(msg.request))) {
        const over = l.peer.error();
        if (over) {
          l.spent = true;
          counters.errorBudget += 1;
          onLimited({ code: over.code, message: over.message, channelId: channel.channelId });
          return send(type, response, msg, (...args) => { closeSoon(channel); if (cb) cb(...args); });
        }
      }
      return send(type, response, msg, cb);
    };
    return l;
  };
  const onRequest = srv.on_request.bind(srv);
  srv.on_request = (message, channel) => {
    const l = limitsOf(channel);
    if (l.spent) return; // closing: nothing more is processed
    if (!exempt(message.request)) {
      const over = l.peer.frame();
      if (over) { l.spent = true; cut(channel, message, over); return; }
    }
    onRequest(message, channel);
  };
}

module.exports = { limitChannels, isRefusal, CLOSE_AFTER_MS };
