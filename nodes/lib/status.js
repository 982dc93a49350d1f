'use strict';
/**
 * The house-style status set, applied only when it changes (Node-RED sends every status call to
 * every open editor, so repeating one on each frame would flood them).
 */
const STATUS = {
  connecting: (text = 'connecting') => ({ fill: 'yellow', shape: 'ring', text }),
  connected: (text = 'connected') => ({ fill: 'green', shape: 'dot', text }),
  disconnected: (text = 'disconnected') => ({ fill: 'red', shape: 'ring', text }),
  error: (text = 'error') => ({ fill: 'red', shape: 'dot', text }),
};

/**
 * A status setter for one node.
 * @param {{status: (s: object) => void}} node
 * @returns {(kind: keyof STATUS | 'clear', text?: string) => void}
 */
function statusSetter(node) {
  let last = '';
  return (kind, text) => {
    const s = kind === 'clear' ? {} : STATUS[kind](text);
    const key = JSON.stringify(s);
    if (key === last) return;
    last = key;
    node.status(s);
  };
}

module.exports = { STATUS, statusSetter };
