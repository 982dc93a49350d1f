'use strict';
/** The MQTT broker's own errors (listening, configuration, refusals): an Error with a stable `code`. */
const { codedError } = require('../core/errors');

/** Error with a stable `code`. */
const MqttServerError = codedError('MqttServerError');

/**
 * @param {string} code
 * @param {string} message
 * @returns {MqttServerError}
 */
const serverError = (code, message) => new MqttServerError(code, message);

module.exports = { MqttServerError, serverError };
