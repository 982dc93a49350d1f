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
 * Any status object for one node, set only when it differs from the last one set through here.
 * @param {{status: (s: object) => void}} node
 * @returns {(s: object) => void} ({} clears)
 */
function dedupStatus(node) {
  let last = '';
  return (s = {}) => {
    const key = JSON.stringify(s);
    if (key === last) return;
    last = key;
    node.status(s);
  };
}

/**
 * A status setter for one node, in the house style.
 * @param {{status: (s: object) => void}} node
 * @returns {(kind: keyof STATUS | 'clear', text?: string) => void}
 */
function statusSetter(node) {
  const set = dedupStatus(node);
  return (kind, text) => set(kind === 'clear' ? {} : STATUS[kind](text));
}

module.exports = { STATUS, statusSetter, dedupStatus };
