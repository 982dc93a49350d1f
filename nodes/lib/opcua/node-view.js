'use strict';
/**
 * What the two OPC UA nodes show, without RED: their status in the house style (connecting =
 * yellow ring, connected = green dot, disconnected = red ring, error = red dot) and the message
 * the server node sends for every value change.
 */

/**
 * The status of a node whose configuration was refused.
 * @param {Error} err with its code (E_NO_CREDENTIAL: no password)
 * @param {string} what what it does not do then ('started', 'connected')
 * @returns {{fill: string, shape: string, text: string}}
 */
function refusedStatus(err, what) {
  return { fill: 'red', shape: 'dot', text: err.code === 'E_NO_CREDENTIAL' ? `no password: not ${what}` : err.code || 'config error' };
}

/**
 * The running server's status text: its port, the sessions open, and the denied writes if any.
 * @param {number} port
 * @param {{sessions: number, denied: number}} counters the server's
 * @returns {string}
 */
function serverStatusText(port, counters) {
  return `:${port} sessions ${counters.sessions}${counters.denied ? ` denied ${counters.denied}` : ''}`;
}

/**
 * The server node's message for a value change. Envelope-like, so the s7twin-flow-timer takes it
 * as it is: a command written by a twin starts timers, a state written by the edge stops them.
 * @param {{short, name, nodeId, value, who, role, kind, seq, ts}} ev the server's 'change'
 * @returns {object} msg
 */
function changeMessage(ev) {
  return {
    topic: ev.short,
    payload: { k: ev.kind, src: ev.who, seq: ev.seq, ts: ev.ts, d: { [ev.short]: ev.value } },
    variable: ev.name,
    nodeId: ev.nodeId,
    value: ev.value,
    who: ev.who,
    role: ev.role,
  };
}

/**
 * The bridge's sessions as the node tracks them, all connecting: the PLC's and the cloud's, and
 * the probe relay's two when it is on.
 * @param {boolean} withProbes
 * @returns {Object<string, string>} side -> status
 */
function bridgeSides(withProbes) {
  return withProbes
    ? { plc: 'connecting', cloud: 'connecting', 'plc-probes': 'connecting', 'cloud-probes': 'connecting' }
    : { plc: 'connecting', cloud: 'connecting' };
}

/**
 * The bridge node's status from its sessions' statuses: the worst of them (error, then
 * disconnected, then connecting); when not all are connected, the text lists the tag sessions
 * and the probe sessions that are not connected.
 * @param {Object<string, string>} sides side -> status
 * @returns {{fill: string, shape: string, text: string}}
 */
function bridgeStatus(sides) {
  const s = Object.values(sides);
  let fill = 'green'; let shape = 'dot';
  if (s.includes('error')) {
    fill = 'red'; shape = 'dot';
  } else if (s.includes('disconnected')) {
    fill = 'red'; shape = 'ring';
  } else if (s.includes('connecting')) {
    fill = 'yellow'; shape = 'ring';
  }
  const text = Object.entries(sides).filter(([k, v]) => v !== 'connected' || k === 'plc' || k === 'cloud').map(([k, v]) => `${k} ${v}`).join(', ');
  return { fill, shape, text: fill === 'green' ? 'connected' : text };
}

module.exports = { refusedStatus, serverStatusText, changeMessage, bridgeSides, bridgeStatus };
