'use strict';
/**
 * The launcher: the one place that starts the system on this machine, for `npm start`
 * (scripts/start-all.js), the benchmark (bench/) and the tests (test/helpers/) alike.
 *
 *   startSystem(o)    one plant: virtual PLC, cloud and edge Node-RED on free loopback ports, the
 *                     protocol paths asked for (nodes/lib/core/paths.js), Toxiproxy in the links
 *                     when given (system/single.js)
 *   startFleet(o)     redis-server, N cloud instances, M plants each a PLC and an edge
 *                     (system/fleet.js)
 *   buildEnv, services, fleetServices, supervise
 *                     `npm start`: fixed ports, supervised processes restarted with back-off
 *                     (system/start.js)
 *   startNodeRed, startPlc, createPlcProcess, startPlcInProcess, startRedis, startToxiproxy,
 *   startRabbitMq, startKafka, startMosquitto, startRosMaster
 *                     one part at a time (the brokers: system/brokers/)
 *   readFlows, partFlows, withPathsDisabled, availablePaths
 *                     the flows it deploys (system/flows.js)
 *
 * Only tools and tests sit on it: the nodes never import it (it is above them), and it is not part
 * of the package users install.
 */
const single = require('./single');
const fleet = require('./fleet');
const start = require('./start');
const flows = require('./flows');
const { startNodeRed, nodeRedCommand } = require('./nodered');
const { startPlc, createPlcProcess, startPlcInProcess, loopbackPlcOptions, PLC_COMMAND } = require('./plc');
const { startRedis, findRedisServer, redisVersion } = require('./redis');
const { startToxiproxy } = require('./toxiproxy');
const { startRabbitMq } = require('./brokers/rabbitmq');
const { startKafka } = require('./brokers/kafka');
const { startMosquitto } = require('./brokers/mosquitto');
const { startRosMaster } = require('./brokers/rosmaster');
const { spawnWithLifeline } = require('./lifeline');
const { waitFor } = require('./wait');

module.exports = {
  startSystem: single.startSystem,
  CREDENTIALS: single.CREDENTIALS,
  credentialsFor: single.credentialsFor,
  startFleet: fleet.startFleet,
  FLEET_DEFAULTS: fleet.DEFAULTS,
  buildEnv: start.buildEnv,
  services: start.services,
  fleetServices: start.fleetServices,
  supervise: start.supervise,
  nth: start.nth,
  readFlows: flows.readFlows,
  bundleFlows: flows.bundleFlows,
  partFlows: flows.partFlows,
  withPathsDisabled: flows.withPathsDisabled,
  availablePaths: flows.availablePaths,
  startNodeRed,
  nodeRedCommand,
  startPlc,
  createPlcProcess,
  startPlcInProcess,
  loopbackPlcOptions,
  PLC_COMMAND,
  startRedis,
  findRedisServer,
  redisVersion,
  startToxiproxy,
  startRabbitMq,
  startKafka,
  startMosquitto,
  startRosMaster,
  spawnWithLifeline,
  waitFor,
};
