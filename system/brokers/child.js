'use strict';
/**
 * A broker as a supervised child of a launcher, as redis-server is for the fleet: started through
 * the Node.js lifeline like every other part, so it stops with the launcher even when the launcher
 * is killed outright. Prints `<broker> ready on <url> (pid N)` once it accepts clients; stops the
 * broker on SIGINT/SIGTERM; exits 1 if the broker dies, 2 if it cannot start.
 *
 *   S7T_BROKER_PASSWORD=… node system/brokers/child.js <rabbitmq|kafka|mosquitto> <port> [host]
 *
 * The password comes from the environment (never the command line, which every local user can
 * read) and is required; S7T_BROKER_USER is the username (default s7t).
 */
const { startRabbitMq } = require('./rabbitmq');
const { startKafka } = require('./kafka');
const { startMosquitto } = require('./mosquitto');

const STARTERS = { rabbitmq: startRabbitMq, kafka: startKafka, mosquitto: startMosquitto };

async function main() {
  const [name, portArg, host] = process.argv.slice(2);
  const port = Number(portArg);
  const start = STARTERS[name];
  if (!start || !Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new Error(`usage: node system/brokers/child.js <${Object.keys(STARTERS).join('|')}> <port> [host] (got ${process.argv.slice(2).join(' ')})`);
  }
  if (!process.env.S7T_BROKER_PASSWORD) {
    throw Object.assign(new Error('S7T_BROKER_PASSWORD is not set: the broker takes no anonymous clients'), { code: 'E_BROKER_OPTION' });
  }
  const broker = await start({ port, host, username: process.env.S7T_BROKER_USER || undefined, password: process.env.S7T_BROKER_PASSWORD });
  console.log(`${name} ready on ${broker.url} (pid ${broker.pid})`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await broker.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // A broker that dies on its own takes this process with it, so the launcher sees it and restarts it.
  broker.exited.then(() => {
    if (stopping) return;
    console.error(`${name} exited:\n${broker.logs().slice(-2000)}`);
    broker.stop().finally(() => process.exit(1));
  });
}

main().catch((err) => {
  console.error(`broker: ${err.code ? `${err.code}: ` : ''}${err.message}`);
  process.exit(2);
});
