#!/usr/bin/env node
'use strict';
/**
 * Run a command under one of the study's loads, in the network namespace this process was
 * started in (bench/study.js starts it with `unshare -n`, so the loopback, its shaping and its
 * bulk transfer are the command's alone):
 *
 *   unshare -n node bench/study/netns-exec.js idle|cpu|net -- node bench/run.js ...
 *
 * The loopback is brought up (with the link settings in S7T_STUDY_NET, JSON, as bench/study.js
 * gives them to its cells), the load applied, the command run with this process's stdio, the
 * load stopped, and the command's exit code returned.
 */
const { spawn } = require('node:child_process');
const loads = require('./loads');

async function main() {
  const [load, sep, cmd, ...args] = process.argv.slice(2);
  const net = process.env.S7T_STUDY_NET ? JSON.parse(process.env.S7T_STUDY_NET) : undefined;
  if (sep !== '--' || !cmd) {
    process.stderr.write('usage: netns-exec.js idle|cpu|net -- command [args]\n');
    return 2;
  }
  if (loads.inOwnNetns()) loads.loopbackUp(net);
  else if (load === 'net') throw Object.assign(new Error('the network load needs a namespace of its own (unshare -n)'), { code: 'E_STUDY_NETNS' });
  const applied = await loads.applyLoad(load, net);
  try {
    const child = spawn(cmd, args, { stdio: 'inherit' });
    const stop = () => child.kill('SIGINT');
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    return await new Promise((resolve) => child.once('exit', (code, sig) => resolve(code === null ? (sig ? 1 : 0) : code)));
  } finally {
    await applied.stop();
  }
}

main().then((code) => process.exit(code), (e) => { process.stderr.write(`netns-exec: ${e.code || ''} ${e.message}\n`); process.exit(1); });
