'use strict';
/**
 * The s7twin-mqtt-broker node: an authenticated aedes MQTT broker (TCP and WebSocket) inside the
 * cloud Node-RED, for the MQTT path of the twin bridge. The broker itself lives in
 * lib/mqtt/server.js; this file wires it to Node-RED: settings from the node or the environment,
 * credentials, status, an output for refusals, counters in the /s7twin/stats registry, and a
 * clean close on redeploy (ports free again before done is called). Its settings and refusal
 * reporting: lib/mqtt/node-settings.js. The runtime's command log gets every command the broker
 * takes (lib/mqtt/command-log.js).
 */
const { createMqttServer } = require('./lib/mqtt/server');
const { portSetting, brokerOptions, createRefusalLog, statusText } = require('./lib/mqtt/node-settings');
const { statusSetter } = require('./lib/runtime/status');
const registry = require('./lib/runtime/registry');
const { closeWithin } = require('./lib/runtime/close-guard');
const { setting } = require('./lib/core/props');
const { runtimeAudit } = require('./lib/history/audit-store');

const CLOSE_TIMEOUT_MS = 5000; // done() is reached even if a socket refuses to close
const STATUS_MS = 1000; // status refreshed at most once a second
const LOG_MS = 1000; // refusals logged at most once a second (the rest are counted)
const EVENTS_PER_S = 20; // refusal messages sent on the output per second at most

module.exports = function register(RED) {
  function MqttBrokerNode(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    const setStatus = statusSetter(node);
    node.counters = {};
    let server = null;
    let closed = false;
    let statusTimer = null;
    const refreshStatus = () => { if (server && !closed) setStatus('connected', statusText(server.counters)); };
    const refusals = createRefusalLog({
      perS: EVENTS_PER_S, logMs: LOG_MS, send: (ev) => node.send({ topic: ev.type, payload: ev }), warn: (t) => node.warn(t),
    });

    let opts;
    try {
      opts = {
        ...brokerOptions(config, node.credentials, process.env),
        onEvent: (ev) => { refusals.report(ev); refreshStatus(); },
        // Every publish on a command topic, relayed or refused, into the runtime's command log.
        audit: runtimeAudit(RED.settings, (t) => RED.log.warn(t)).recorder,
      };
    } catch (err) {
      opts = null;
      node.error(`${err.code || 'E_MQTT_CONFIG'}: ${err.message}`);
      setStatus('error', err.message);
    }

    registry.add(node, () => {
      if (!server) return {};
      return { ...server.counters, droppedEvents: refusals.dropped, ...(server.cluster ? { cluster: { ...server.cluster } } : {}) };
    });
    let starting = Promise.resolve();
    if (opts) {
      setStatus('connecting', 'starting');
      starting = createMqttServer(opts).then((srv) => {
        if (closed) return srv.close();
        server = srv;
        node.counters = srv.counters;
        node.ports = srv.ports;
        const [m, w] = opts.tls ? ['mqtts', 'wss'] : ['mqtt', 'ws'];
        const where = [
          srv.ports.tcp !== null ? `${m}://${opts.host}:${srv.ports.tcp}` : null,
          srv.ports.ws !== null ? `${w}://${opts.host}:${srv.ports.ws}${opts.wsPath}` : null,
        ].filter(Boolean);
        const notes = `${opts.validatePayloads ? '' : ' (payload checks OFF)'}${srv.cluster ? ', clustered over the fleet\'s Redis' : ''}`;
        node.log(`MQTT broker listening on ${where.join(' and ')}${notes}`);
        refreshStatus();
        // Client counts change on connect/disconnect; poll the counters instead of hooking every event.
        statusTimer = setInterval(refreshStatus, STATUS_MS);
        return undefined;
      }, (err) => {
        node.error(`${err.code || 'E_MQTT'}: ${err.message}`);
        setStatus('error', err.code === 'E_MQTT_LISTEN' ? 'port in use' : err.message);
      });
    }

    node.on('close', (removed, done) => {
      closed = true;
      registry.remove(node);
      if (statusTimer) clearInterval(statusTimer);
      statusTimer = null;
      closeWithin(node, done, {
        ms: CLOSE_TIMEOUT_MS, what: 'MQTT broker close', after: () => setStatus('clear'),
        work: () => starting.then(() => (server ? server.close() : undefined)),
      });
    });
  }

  RED.nodes.registerType('s7twin-mqtt-broker', MqttBrokerNode, {
    credentials: { users: { type: 'password' } },
  });
  registry.install(RED.httpAdmin, RED.auth.needsPermission('s7twin.read'));
  registry.watchRuntime(RED.events);
};

module.exports.setting = setting;
module.exports.portSetting = portSetting;
