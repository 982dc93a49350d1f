'use strict';
/**
 * One endpoint of the cloud side of the link, mounted on an existing HTTP server's 'upgrade'
 * event: the twin endpoint (`/s7twin/twin`, lib/link/twin-endpoint.js) or the edge endpoint
 * (`/s7twin/edge`, lib/link/edge-endpoint.js), both over one peer core
 * (lib/link/endpoint-core.js). No Node-RED here: the `s7twin-link-server` config node wraps it.
 *
 * Plants: every peer connects for one plant, the one it names (`?plant=`) or its token's only
 * plant; a token not valid for that plant is refused (403) before the upgrade (lib/access/auth.js
 * grants). Frames carry the plant out of the endpoint ('envelope' event) and into it
 * (`send(env, clientId, plant)`): states and snaps go to that plant's twins only, the latest state
 * is kept per plant, answers go back by (plant, ref.src), requests to that plant's edge.
 */
const { DEFAULTS } = require('./endpoint-core');
const { createTwinEndpoint } = require('./twin-endpoint');
const { createEdgeEndpoint } = require('./edge-endpoint');

/**
 * @param {object} opts DEFAULTS plus:
 * @param {string} opts.path e.g. '/s7twin/twin'
 * @param {string[]} [opts.tokens] accepted tokens of this endpoint's role, for `opts.plant`
 * @param {string[]} [opts.viewerTokens] twin role: tokens of read-only peers, for `opts.plant`
 * @param {string} [opts.plant] the plant of the plain token lists (default plant1)
 * @param {Array<{token, role, plants}>} [opts.grants] scoped tokens (lib/access/auth.js parseGrants)
 *   (no token at all = every peer refused)
 * @param {string} opts.src sender id for the frames the endpoint makes itself (err, snap, sync-res)
 * @param {'twin'|'edge'} [opts.role] default 'twin'
 * @param {object} [opts.backplane] edge role: the fleet's backplane (lib/fleet/backplane.js); default a
 *   private in-process one (a single instance)
 * @param {object} [opts.fleet] edge role: options for lib/fleet/member.js (hopMs, syncMs, id)
 * @returns {EventEmitter & object} events: envelope(env, clientId, plant), invalid(err, clientId, extra),
 *   connect(clientId, info), ready(clientId) (edge: first sync answered), disconnect(clientId, code),
 *   refused(reason, req), plant(plant) (twin: the first peer of a plant connected)
 * @throws {AuthError} E_TOKENS a token listed for two roles, a bad plant id
 */
function createEndpoint(opts) {
  return opts.role === 'edge' ? createEdgeEndpoint(opts) : createTwinEndpoint(opts);
}

module.exports = { DEFAULTS, createEndpoint };
