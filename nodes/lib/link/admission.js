'use strict';
/**
 * Who may open a link endpoint, and for which plant: the token check before the upgrade (no
 * socket for a stranger) and the plant the peer connects for, the one it names (`?plant=`) or its
 * token's only plant. A token not valid for that plant is refused (403), one valid for several
 * when none is named too (400).
 *
 * Plain module over lib/access/auth.js grants; lib/link/endpoint-core.js asks it for every
 * upgrade request.
 */
const { requestToken, requestPlant, mergeGrants, createGrantChecker, grantPlant, ANY_PLANT } = require('../access/auth');
const { DEFAULT_PLANT } = require('../core/plants');

/** The roles whose tokens open each endpoint: a viewer watches twins' plants, read-only. */
const ACCEPTS = { twin: ['twin', 'viewer'], edge: ['edge'] };

/**
 * @param {object} o
 * @param {'twin'|'edge'} o.role
 * @param {string[]} [o.tokens] tokens of the role, for `o.plant`
 * @param {string[]} [o.viewerTokens] twin endpoint: tokens of read-only peers, for `o.plant`
 * @param {string} [o.plant] the plant of the plain token lists (default plant1)
 * @param {Array<{token, role, plants}>} [o.grants] scoped tokens (lib/access/auth.js parseGrants)
 * @returns {{admit(req): ({plant: string, viewer: boolean, who: {token: string, role: string}}|{status: number, text: string, reason: string}),
 *   admitCredentials(token, plant?): (the same), onlyPlant: string|null, resolvePlant(plant?: string): string|null}}
 * @throws {AuthError} E_TOKENS a token listed for two roles, a bad plant id
 */
function createAdmission(o) {
  const plainPlant = o.plant || DEFAULT_PLANT;
  const grants = mergeGrants([
    { tokens: o.tokens || [], role: o.role, plant: plainPlant },
    { tokens: o.role === 'twin' ? (o.viewerTokens || []) : [], role: 'viewer', plant: plainPlant },
  ], o.grants || []);
  const mine = grants.filter((g) => ACCEPTS[o.role].includes(g.role));
  const check = createGrantChecker(mine);
  // A frame from a flow that names no plant goes to the endpoint's plant when it serves only one.
  const served = new Set(mine.flatMap((g) => (g.plants === ANY_PLANT ? [ANY_PLANT] : g.plants)));
  const onlyPlant = served.size === 1 && !served.has(ANY_PLANT) ? [...served][0] : null;

  /**
   * A token and the plant it asks for (any transport's): the peer's plant, whether it is
   * read-only and who it is (its token's fingerprint and role, for the command log), or the
   * refusal as an HTTP status (the WebSocket answers with it, a message bus
   * sends it back in its refusal).
   * @param {string} token
   * @param {string|null|undefined} asked the plant named, if any
   */
  function admitCredentials(token, asked) {
    const grant = check(typeof token === 'string' ? token : '');
    if (!grant) return { status: 401, text: 'Unauthorized', reason: 'token' };
    const where = grantPlant(grant, asked);
    if (!where.plant) {
      return { status: where.status, text: `${where.status === 403 ? 'Forbidden' : 'Bad Request'}: ${where.message}`, reason: where.reason };
    }
    return { plant: where.plant, viewer: grant.role === 'viewer', who: { token: grant.id, role: grant.role } };
  }

  return {
    onlyPlant,
    /** The plant a frame goes to: the one named, else the only one served (null: say which). */
    resolvePlant: (plant) => (typeof plant === 'string' && plant ? plant : onlyPlant),
    admitCredentials,
    /**
     * An upgrade request: its bearer token (or `?token=`) and its `?plant=`.
     * @param {import('http').IncomingMessage} req
     */
    admit: (req) => admitCredentials(requestToken(req), requestPlant(req)),
  };
}

module.exports = { createAdmission };
