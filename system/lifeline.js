'use strict';
/**
 * Spawn a Node.js child that stops when its launcher goes: `node -r system/exit-with-parent.js`
 * with an IPC channel as the lifeline (the channel carries no messages and keeps neither side
 * alive). Every process the launcher starts from Node.js goes through here.
 */
const { spawn } = require('node:child_process');
const path = require('node:path');

const PRELOAD = path.join(__dirname, 'exit-with-parent.js');

/**
 * @param {string[]} args node arguments (script and its arguments)
 * @param {object} [opts] child_process.spawn options; stdout and stderr are piped
 * @returns {import('node:child_process').ChildProcess}
 */
function spawnWithLifeline(args, opts = {}) {
  const child = spawn(process.execPath, ['-r', PRELOAD, ...args], { ...opts, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  child.channel.unref();
  return child;
}

module.exports = { spawnWithLifeline };
