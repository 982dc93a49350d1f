'use strict';
/**
 * The `s7twin-flow-timer` subflow module: registers the subflow defined in flow-timer.json (a
 * `s7twin-timer` node wired to two outputs and to the subflow's status) as a palette node.
 * See https://nodered.org/docs/creating-nodes/subflow-modules.
 */
const definition = require('./flow-timer.json');

module.exports = function register(RED) {
  RED.nodes.registerSubflow(definition);
};
