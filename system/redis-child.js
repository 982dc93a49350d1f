'use strict';
/**
 * redis-server as a supervised child of `bash scripts/start.sh --fleet` (system/start.js): started
 * through system/lifeline.js like every other part, so it stops with the launcher even
 * when the launcher is killed outright. Prints `redis-server ready on redis://…` once it accepts
 * connections; stops redis-server on SIGINT/SIGTERM.
 *
 *   node system/redis-child.js <port> [host]
 */
const { startRedis } = require('./redis');

async function main() {
  const port = Number(process.argv[2]);
  const host = process.argv[3] || '127.0.0.1';
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error(`usage: node system/redis-child.js <port> [host] (got ${process.argv[2]})`);
  const redis = await startRedis({ port, host });
  console.log(`redis-server ready on ${redis.url} (pid ${redis.pid})`);
  redis.child.once('exit', (code, sig) => { console.error(`redis-server exited (${sig || code})`); process.exit(1); });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    redis.child.removeAllListeners('exit');
    await redis.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  console.error(`redis-server: ${err.code ? `${err.code}: ` : ''}${err.message}`);
  process.exit(2);
});
