'use strict';
/**
 * s7twin-rest: the HTTP polling path for twins (POST a command, GET the state) on the cloud's own
 * HTTP server, beside the WebSocket–S7 path and on the same edge link. The logic is
 * lib/web/rest.js; this node wires it to Node-RED: a route on RED.httpNode, the twin
 * endpoint's tokens (its s7twin-link-server config node), the edge's link endpoint (commands go
 * out on it, the edge's states and answers come back from it), status and counters.
 *
 * One plant: the node's, else S7T_PLANT, else plant1. Its tokens are the twin
 * endpoint's that are valid for that plant (plain ones and S7T_TOKENS' scoped ones); its commands
 * go to that plant's edge (on this instance or, in a fleet, on another) and only that plant's
 * states reach it. A cloud serving several plants gets one REST node per plant.
 *
 * Output: every command relayed (topic "cmd") and every plant state from the edge (topic
 * "state"/"snap"), as envelopes: wire it to an s7twin-flow-timer to time the REST path in the
 * cloud as the other paths are.
 */
const { createRestEndpoint } = require('./lib/web/rest');
const { plantTables } = require('./lib/core/io-table');
const { plantTokens } = require('./lib/access/auth');
const { DEFAULT_PLANT } = require('./lib/core/plants');
const { mount, cleanPath } = require('./lib/web/http');
const { statusSetter } = require('./lib/runtime/status');
const registry = require('./lib/runtime/registry');
const { runtimeAudit } = require('./lib/history/audit-store');

const STATUS_MS = 1000; // status refreshed at most once a second

module.exports = function register(RED) {
  function RestNode(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    const setStatus = statusSetter(node);
    const twins = RED.nodes.getNode(config.server);
    const edge = RED.nodes.getNode(config.edge);
    if (!twins || twins.role !== 'twin' || !edge || edge.role !== 'edge' || !edge.sendEnvelope) {
      setStatus('error', 'no twin or edge endpoint');
      node.error('s7twin-rest needs the twin endpoint (an s7twin-link-server of role twin, for its tokens) '
        + 'and the edge endpoint (role edge, to reach the edge)');
      return;
    }
    node.plant = String(config.plant || '').trim() || process.env.S7T_PLANT || DEFAULT_PLANT;
    const { tokens, viewerTokens } = plantTokens(twins.grants, node.plant, twins.credentials);
    if (!tokens.length) {
      node.warn(`the twin endpoint has no token for plant ${node.plant} (credentials, S7T_TWIN_TOKEN or S7T_TOKENS): every REST request will be refused`);
    }
    const root = (RED.settings.httpNodeRoot || '/').replace(/\/$/, '');
    node.path = cleanPath(config.path, '/s7twin/rest');
    // In a fleet the plant's edge may be on another instance: take its states from there.
    if (edge.endpoint && edge.endpoint.watch) edge.endpoint.watch(node.plant).catch((err) => node.warn(`fleet: ${err.message}`));
    const rest = createRestEndpoint({
      tokens,
      viewerTokens,
      src: `cloud-rest-${node.id}`.replace(/[^A-Za-z0-9_.:-]/g, '').slice(0, 64),
      state: twins.endpoint && twins.endpoint.latestState ? twins.endpoint.latestState(node.plant) : {},
      plant: node.plant,
      audit: runtimeAudit(RED.settings, (t) => RED.log.warn(t)).recorder,
      // The plant's table as the registry has it now (configured, or taught by its edge later).
      table: () => plantTables.get(node.plant),
      relay: (env) => {
        node.send({ topic: 'cmd', payload: env, plant: node.plant });
        return edge.sendEnvelope(env, undefined, node.plant);
      },
    });
    let edgeStatus = { kind: 'disconnected', text: 'no edge' };
    const user = {
      id: node.id,
      linkEnvelope(env, clientId, plant) {
        if (plant !== undefined && plant !== node.plant) return; // another plant's
        rest.fromEdge(env);
        if (env.k === 'state' || env.k === 'snap') node.send({ topic: env.k, payload: env, plant: node.plant });
      },
      linkStatus(s) { edgeStatus = s; },
      error: (err) => node.error(err),
    };
    edge.register(user);
    const unmount = mount(RED.httpNode, node.path, (req, res) => rest.handle(req, res));
    registry.add(node, () => rest.counters);
    node.log(`REST twin endpoint for ${node.plant} on ${root}${node.path}/state and ${root}${node.path}/cmd`);
    const c = rest.counters;
    const timer = setInterval(() => {
      if (edgeStatus.kind !== 'connected') setStatus('disconnected', `${edgeStatus.text}; ${c.cmds} cmds, ${c.polls} polls`);
      else setStatus('connected', `${c.cmds} cmds, ${c.polls} polls${c.errs ? `, ${c.errs} errors` : ''}`);
    }, STATUS_MS);
    timer.unref?.();

    node.on('close', (removed, done) => {
      clearInterval(timer);
      unmount();
      edge.deregister(user);
      rest.close();
      registry.remove(node);
      setStatus('clear');
      done();
    });
  }
  RED.nodes.registerType('s7twin-rest', RestNode);
};
