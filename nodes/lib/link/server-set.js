'use strict';
/**
 * The link endpoints of one Node-RED instance (its s7twin-link-server config nodes) on its HTTP
 * server: one 'upgrade' listener serves them all (as Node-RED's core websocket nodes share one),
 * attached with the first and removed with the last; upgrades for other paths are left to the
 * other listeners (the editor's comms, core websocket nodes).
 *
 * Every edge endpoint takes the states of the plants whose twins connected to a twin endpoint
 * here, from the fleet (lib/fleet/member.js watch): their edges may be on other instances. A
 * request that reached no peer is refused to its twin through the twin endpoint it came on.
 *
 * Plain module: the members are config nodes (or anything with `role`, `path`, `tokens` and an
 * `endpoint`, lib/link/endpoint.js), the server an http.Server.
 */

/**
 * @param {import('http').Server} server Node-RED's (RED.server)
 */
function createEndpointSet(server) {
  const endpoints = new Map(); // path -> member
  const twinPlants = new Map(); // twin member -> plants its twins connected for
  let listening = false;

  function onUpgrade(req, socket, head) {
    for (const n of endpoints.values()) if (n.endpoint.handleUpgrade(req, socket, head)) return;
  }

  const edgeMembers = () => [...endpoints.values()].filter((n) => n.role === 'edge' && n.endpoint);
  const wantedPlants = () => new Set([...twinPlants.values()].flatMap((set) => [...set]));

  return {
    /** Does an endpoint here serve the path? */
    has: (path) => endpoints.has(path),
    /** Every grant the endpoints here know (of every role: the command log's readers too). */
    grants: () => [...endpoints.values()].flatMap((n) => n.grants || []),
    /** The tokens of the endpoints here of any role but `role`. */
    otherTokens: (role) => [...endpoints.values()].filter((n) => n.role !== role).flatMap((n) => n.tokens || []),
    /** Serve a member's endpoint (its path is free). */
    add(member) {
      endpoints.set(member.path, member);
      if (!listening) {
        server.on('upgrade', onUpgrade);
        listening = true;
      }
      const ep = member.endpoint;
      if (member.role === 'twin') {
        twinPlants.set(member, new Set());
        ep.on('plant', (p) => {
          twinPlants.get(member).add(p);
          for (const n of edgeMembers()) n.endpoint.watch(p);
        });
      } else {
        for (const p of wantedPlants()) ep.watch(p);
      }
    },
    /** Stop serving a member's endpoint (it closes itself). */
    remove(member) {
      if (endpoints.get(member.path) === member) endpoints.delete(member.path);
      twinPlants.delete(member);
      if (endpoints.size === 0 && listening) {
        server.removeListener('upgrade', onUpgrade);
        listening = false;
      }
    },
    /**
     * Answer a command or probe that reached no peer of `from` (no edge connected) with an err
     * envelope to the twin that sent it, through whichever twin endpoint it is connected to: a
     * command is either written or explicitly refused, never dropped silently.
     * @returns {number} twins the answer went to (0 if the sender is gone too)
     */
    refuseUndelivered(from, env, code, text, plant) {
      const answer = from.endpoint.errorFor(env, code, text);
      let n = 0;
      for (const other of endpoints.values()) {
        if (other !== from && other.role === 'twin' && other.endpoint) n += other.endpoint.send(answer, undefined, plant);
      }
      return n;
    },
  };
}

module.exports = { createEndpointSet };
