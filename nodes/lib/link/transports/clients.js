'use strict';
/**
 * The npm client each link transport runs on, loaded when a transport is first used, so that a
 * Node-RED that links over WebSocket needs none of them. The broker clients are optional peer
 * dependencies of this package: a user who picks AMQP installs amqplib into the Node-RED user
 * folder, and so on; a client that is not there is an error that says what to install.
 */
const { codedError } = require('../../core/errors');

/** Error with a stable `code`: E_LINK_CLIENT_MISSING, E_LINK_TRANSPORT, E_LINK_URL. */
const LinkTransportError = codedError('LinkTransportError');

/** Transport id → the npm package it needs. */
const PACKAGES = {
  amqp: 'amqplib',
  kafka: '@platformatic/kafka',
  mqtt: 'mqtt',
  zmq: 'zeromq',
};

const loaded = new Map();

/**
 * The npm client of a transport.
 * @param {'amqp'|'kafka'|'mqtt'|'zmq'} id
 * @returns {object} the package's exports
 * @throws {LinkTransportError} E_LINK_CLIENT_MISSING
 */
function loadClient(id) {
  const name = PACKAGES[id];
  if (loaded.has(name)) return loaded.get(name);
  let mod;
  try {
    mod = require(name);
  } catch (err) {
    if (err.code !== 'MODULE_NOT_FOUND' && err.code !== 'ERR_REQUIRE_ESM') throw err;
    const why = err.message.split('\n')[0];
    const what = `the ${id} link transport needs the npm package ${name}`;
    throw new LinkTransportError('E_LINK_CLIENT_MISSING', `${what}: run \`npm install ${name}\` in the Node-RED user directory (${why})`);
  }
  loaded.set(name, mod);
  return mod;
}

module.exports = { PACKAGES, LinkTransportError, loadClient };
