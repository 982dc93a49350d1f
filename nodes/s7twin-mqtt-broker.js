'use strict';
/**
 * The s7twin-mqtt-broker node: an authenticated aedes MQTT broker (TCP and WebSocket) inside the
 * cloud Node-RED, for the MQTT path of the twin bridge. The broker itself lives in
 * lib/mqtt/server.js; this file wires it to Node-RED: settings from the node or the environment,
 * credentials, status, an output for refusals, counters in the /s7twin/stats registry, and a
 * clean close on redeploy (ports free again before done is called).
 */
const { createMqttServer, DEFAULTS } = require('./lib/mqtt/server');
const { statusSetter } = require('./lib/runtime/status');
const registry = require('./lib/runtime/registry');
const { closeWithin } = require('./lib/runtime/close-guard');
const { setting } = require('./lib/core/props');
const { serverTls } = require('./lib/access/tls');

const CLOSE_TIMEOUT_MS = 5000; // done() is reached even if a socket refuses to close
const STATUS_MS = 1000; // status refreshed at most once a second
const LOG_MS = 1000; // refusals logged at most once a second (the rest are counted)
const EVENTS_PER_S = 20; // refusal messages sent on the output per second at most

/** A port setting: 'off' (or false, '-') disables the listener. */
function portSetting(v, dflt) {
  const s = setting(v, dflt);
  if (s === null || s === false || /^(off|false|-|none)$/i.test(String(s))) return null;
  const n = Number(s);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw Object.assign(new Error(`invalid port "${s}"`), { code: 'E_MQTT_CONFIG' });
  return n;
}

module.exports = function register(RED) {
  function MqttBrokerNode(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    const setStatus = statusSetter(node);
    node.counters = {};
    let server = null;
    let closed = false;
    let lastLog = 0;
    let suppressed = 0;
    let statusTimer = null;
    let windowStart = 0;
    let windowCount = 0;
    let droppedEvents = 0;

    const usersEnv = setting(config.usersEnv, 'S7T_MQTT_USERS');
    const users = (node.credentials && node.credentials.users) || process.env[usersEnv] || '';
    let opts;
    try {
      opts = {
        host: setting(config.host, DEFAULTS.host),
        port: portSetting(config.port, DEFAULTS.port),
        wsPort: portSetting(config.wsPort, DEFAULTS.wsPort),
        wsPath: setting(config.wsPath, DEFAULTS.wsPath),
        maxPayloadBytes: Number(setting(config.maxPayloadBytes, DEFAULTS.maxPayloadBytes)),
        maxFrameBytes: Number(setting(config.maxFrameBytes, DEFAULTS.maxFrameBytes)),
        validatePayloads: config.validate !== false && config.validate !== 'false',
        snapshot: config.snapshot !== false && config.snapshot !== 'false',
        noDelay: config.noDelay !== false && config.noDelay !== 'false',
        // A fleet: cluster with the other cloud instances' brokers over the same Redis, so a PLC and
        // its twins may be connected to different instances.
        redisUrl: process.env.S7T_REDIS_URL || null,
        // The host's certificate (S7T_TLS_KEY/S7T_TLS_CERT, as the editor's): mqtts and wss only.
        tls: serverTls(),
        ratePerS: Number(setting(config.ratePerS, DEFAULTS.ratePerS)),
        burst: 2 * Number(setting(config.ratePerS, DEFAULTS.ratePerS)),
        users,
        onEvent,
      };
    } catch (err) {
      opts = null;
      node.error(`${err.code || 'E_MQTT_CONFIG'}: ${err.message}`);
      setStatus('error', err.message);
    }

    function onEvent(ev) {
      // Every refusal goes out of the node's output (a flow can alert on it); the log is
      // rate-limited so a client retrying a refused login cannot flood it.
      const now = Date.now();
      // At most EVENTS_PER_S messages a second on the output: a client hammering a refused login
      // must not flood the flow (every refusal is still counted).
      if (now - windowStart >= 1000) { windowStart = now; windowCount = 0; }
      if (windowCount < EVENTS_PER_S) { windowCount += 1; node.send({ topic: ev.type, payload: ev }); } else droppedEvents += 1;
      if (now - lastLog >= LOG_MS) {
        node.warn(`${ev.code}: ${ev.message}${ev.user ? ` (user ${ev.user})` : ''}${suppressed ? ` (+${suppressed} more not logged)` : ''}`);
        lastLog = now;
        suppressed = 0;
      } else {
        suppressed += 1;
      }
      refreshStatus();
    }

    function statusText() {
      const c = server.counters;
      const refused = c.authFailures + c.publishRefused + c.subscribeRefused + c.payloadRefused + c.oversized + c.takeoverRefused + c.rateLimited + c.errorBudget;
      return `${c.clients} client${c.clients === 1 ? '' : 's'}, ${c.messagesIn} msgs${refused ? `, ${refused} refused` : ''}`;
    }
    function refreshStatus() {
      if (!server || closed) return;
      setStatus('connected', statusText());
    }

    registry.add(node, () => (server ? { ...server.counters, droppedEvents, ...(server.cluster ? { cluster: { ...server.cluster } } : {}) } : {}));
    let starting = Promise.resolve();
    if (opts) {
      setStatus('connecting', 'starting');
      starting = createMqttServer(opts).then((srv) => {
        if (closed) return srv.close();
        server = srv;
        node.counters = srv.counters;
        node.ports = srv.ports;
        const [m, w] = opts.tls ? ['mqtts', 'wss'] : ['mqtt', 'ws'];
        const where = [srv.ports.tcp !== null ? `${m}://${opts.host}:${srv.ports.tcp}` : null, srv.ports.ws !== null ? `${w}://${opts.host}:${srv.ports.ws}${opts.wsPath}` : null].filter(Boolean);
        node.log(`MQTT broker listening on ${where.join(' and ')}${opts.validatePayloads ? '' : ' (payload checks OFF)'}${srv.cluster ? ', clustered over the fleet\'s Redis' : ''}`);
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
