'use strict';
/**
 * Preload for the processes the launcher starts (`node -r system/exit-with-parent.js …`, spawned
 * with an IPC channel): when the launcher goes away without stopping them (killed with SIGTERM or
 * SIGKILL, crashed), its end of the channel closes, and the child stops as on Ctrl-C, then exits
 * for certain 10 s later. Without it, a killed benchmark left its PLC and both Node-RED processes
 * running, and every later measurement on the machine shared the cores with them.
 */
if (typeof process.send === 'function' && process.channel) {
  process.channel.unref(); // the channel alone must not keep the process alive
  process.once('disconnect', () => {
    setTimeout(() => process.exit(1), 10000).unref();
    process.kill(process.pid, 'SIGINT');
  });
}
