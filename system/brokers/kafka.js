'use strict';
/**
 * Start Apache Kafka as our own child process: one JVM in KRaft combined mode (the same node is
 * broker and controller; no ZooKeeper), run with the machine's Java (17 or later) from the jars
 * scripts/broker-deps.sh copies from Maven Central into .tools/kafka/libs. Each start formats a
 * fresh log folder in a private folder, so every run begins with an empty broker. Both listeners
 * (clients, and the controller's own) take SASL/PLAIN with one user of ours and listen on the host
 * given (default 127.0.0.1); no JMX port. Stopped with SIGTERM (a clean shutdown).
 *
 *   const kafka = await startKafka({ port: 0 });      // 0: a free port
 *   kafka.brokers, kafka.credentials                 // ['127.0.0.1:<port>'], {username, password, mechanism: 'PLAIN'}
 *   await kafka.stop();
 */
const { execFile } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { createRun, credentials, hostOption, ports, findProgram, BrokerError } = require('./server');

const KAFKA_DIR = path.join(__dirname, '..', '..', '.tools', 'kafka'); // libs/, filled by scripts/broker-deps.sh

const DEFAULTS = {
  heap: '512m', // -Xmx; the stock scripts give it 1 GB, more than one test broker needs
  startTimeoutMs: 120000, // about 4 s on an idle 2-core machine (format included)
  formatTimeoutMs: 120000,
};

// The JVM flags of Kafka's own start script (kafka-run-class.sh), less the ones for JMX and GC logs.
const JVM_FLAGS = ['-XX:+UseG1GC', '-XX:MaxGCPauseMillis=20', '-XX:InitiatingHeapOccupancyPercent=35',
  '-XX:+ExplicitGCInvokesConcurrent', '-Djava.awt.headless=true'];

/** The Kafka version whose jars are in .tools/kafka/libs (from kafka_2.13-<version>.jar), or null. */
function kafkaVersion(dir = KAFKA_DIR) {
  try {
    const jar = fs.readdirSync(path.join(dir, 'libs')).find((f) => /^kafka_2\.13-[\d.]+\.jar$/.test(f));
    return jar ? /^kafka_2\.13-([\d.]+)\.jar$/.exec(jar)[1] : null;
  } catch {
    return null;
  }
}

/** A cluster id as Kafka writes one: 16 random bytes, base64url; never starting with '-', which a command line would take for an option. */
function clusterId() {
  for (;;) {
    const id = crypto.randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

/** server.properties for one combined broker+controller node with SASL/PLAIN on both listeners. */
function serverProperties(o) {
  const jaas = 'org.apache.kafka.common.security.plain.PlainLoginModule required ' +
    `username="${o.username}" password="${o.password}" user_${o.username}="${o.password}";`;
  // More client listeners, each telling its clients another address (a proxy in front of it):
  // a Kafka client connects to the address the broker advertises, not the one it bootstrapped from.
  const extra = o.listeners || [];
  const listeners = [`SASL_PLAINTEXT://${o.host}:${o.port}`, `CONTROLLER://${o.host}:${o.controllerPort}`, ...extra.map((l) => `${l.name}://${o.host}:${l.port}`)];
  const advertised = [`SASL_PLAINTEXT://${o.advertisedHost}:${o.port}`, ...extra.map((l) => `${l.name}://${o.advertisedHost}:${l.advertisedPort}`)];
  const protocols = ['SASL_PLAINTEXT:SASL_PLAINTEXT', 'CONTROLLER:SASL_PLAINTEXT', ...extra.map((l) => `${l.name}:SASL_PLAINTEXT`)];
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@${o.advertisedHost}:${o.controllerPort}`,
    `listeners=${listeners.join(',')}`,
    `advertised.listeners=${advertised.join(',')}`,
    `listener.security.protocol.map=${protocols.join(',')}`,
    ...extra.map((l) => `listener.name.${l.name.toLowerCase()}.plain.sasl.jaas.config=${jaas}`),
    'inter.broker.listener.name=SASL_PLAINTEXT',
    'controller.listener.names=CONTROLLER',
    'sasl.enabled.mechanisms=PLAIN',
    'sasl.mechanism.inter.broker.protocol=PLAIN',
    'sasl.mechanism.controller.protocol=PLAIN',
    // The username/password pair is what the node itself logs in with; user_<name> is who may.
    `listener.name.sasl_plaintext.plain.sasl.jaas.config=${jaas}`,
    `listener.name.controller.plain.sasl.jaas.config=${jaas}`,
    `log.dirs=${o.logDir}`,
    'num.partitions=1',
    // One node: the internal topics cannot have more than one replica.
    'offsets.topic.replication.factor=1',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'share.coordinator.state.topic.replication.factor=1',
    'share.coordinator.state.topic.min.isr=1',
    'group.initial.rebalance.delay.ms=0', // a consumer group forms at once, not 3 s later
    'auto.create.topics.enable=true',
    // The largest record batch the broker takes (its default: 1 MiB and 12 bytes).
    ...(o.maxMessageBytes ? [`message.max.bytes=${o.maxMessageBytes}`] : []),
    '',
  ].join('\n');
}

const LOG4J = [
  'status = warn',
  'appender.out.type = Console',
  'appender.out.name = OUT',
  'appender.out.layout.type = PatternLayout',
  'appender.out.layout.pattern = [%d] %p %m (%c)%n',
  'rootLogger.level = INFO',
  'rootLogger.appenderRef.out.ref = OUT',
  '',
].join('\n');

/** Run StorageTool format on a fresh log folder (KRaft needs one before the first start). */
function format(java, classpath, dir, props) {
  return new Promise((resolve, reject) => {
    execFile(java, ['-Xmx256m', `-Dlog4j2.configurationFile=${path.join(dir, 'log4j2.properties')}`, '-cp', classpath,
      'kafka.tools.StorageTool', 'format', '-t', clusterId(), '-c', props],
    { timeout: DEFAULTS.formatTimeoutMs, cwd: dir }, (err, stdout, stderr) => {
      if (err) reject(new BrokerError('E_KAFKA_START', `formatting Kafka's log folder failed: ${err.message}\n${`${stdout}${stderr}`.slice(-4000)}`));
      else resolve();
    });
  });
}

/**
 * @param {object} [o]
 * @param {number} [o.port] client listener's port; 0 or absent: a free port
 * @param {number} [o.controllerPort] the controller listener's port; default a free port
 * @param {string} [o.host] listeners' address, default 127.0.0.1
 * @param {string} [o.advertisedHost] the address clients are told to use; default `host`
 *   (required when `host` is a wildcard address)
 * @param {string} [o.username] default s7t
 * @param {string} [o.password] default a fresh random one
 * @param {Array<{name: string, port?: number, advertisedPort: number}>} [o.listeners] more client
 *   listeners (SASL/PLAIN too), each on its own port (0 or absent: a free one, in `ports[name]`)
 *   and telling its clients to connect to advertisedPort (a proxy in front of it)
 * @param {string} [o.heap] JVM -Xmx, default 512m
 * @param {number} [o.maxMessageBytes] the largest record batch it takes (message.max.bytes; default
 *   Kafka's, 1 MiB: a high-frequency stream's frames of 800 KB of samples are larger in base64)
 * @param {number} [o.timeoutMs] start-up limit
 * @returns {Promise<{name:string, version:string, url:string, host:string, port:number, brokers:string[],
 *   credentials:{username:string,password:string,mechanism:string}, ports:{client:number,controller:number},
 *   pid:number, startMs:number, formatMs:number, logs:()=>string, exited:Promise<void>, stop:()=>Promise<void>}>}
 *   startMs: from the start of formatting to the broker's ready line; formatMs: the formatting's part
 * @throws {BrokerError} E_KAFKA_MISSING, E_KAFKA_START, E_BROKER_OPTION
 */
async function startKafka(o = {}) {
  const host = hostOption(o.host);
  const advertisedHost = o.advertisedHost || host;
  if (['0.0.0.0', '::'].includes(advertisedHost)) {
    throw new BrokerError('E_BROKER_OPTION', `advertisedHost: the address clients reach this broker at (host ${host} listens everywhere)`);
  }
  if (o.heap !== undefined && !/^\d+[mg]$/.test(o.heap)) throw new BrokerError('E_BROKER_OPTION', `heap: a JVM size such as 512m or 1g, got ${o.heap}`);
  if (o.maxMessageBytes !== undefined && !(Number.isInteger(o.maxMessageBytes) && o.maxMessageBytes >= 1024 && o.maxMessageBytes <= 2 ** 30)) {
    throw new BrokerError('E_BROKER_OPTION', `maxMessageBytes: whole bytes, 1024..2^30, got ${o.maxMessageBytes}`);
  }
  const cred = credentials(o);
  const extra = o.listeners || [];
  for (const l of extra) {
    if (!/^[A-Z][A-Z0-9_]{0,31}$/.test(l.name || '') || ['SASL_PLAINTEXT', 'CONTROLLER'].includes(l.name)) {
      throw new BrokerError('E_BROKER_OPTION', `listeners: a name of A-Z 0-9 _ other than SASL_PLAINTEXT and CONTROLLER, got ${l.name}`);
    }
    if (!(Number.isInteger(l.advertisedPort) && l.advertisedPort > 0 && l.advertisedPort <= 65535)) {
      throw new BrokerError('E_BROKER_OPTION', `listeners: ${l.name} needs the port its clients are told (advertisedPort), got ${l.advertisedPort}`);
    }
  }
  const p = await ports({ client: o.port, controller: o.controllerPort, ...Object.fromEntries(extra.map((l) => [l.name, l.port])) }, host);
  const listeners = extra.map((l) => ({ ...l, port: p[l.name] }));
  const java = findProgram('java');
  const version = kafkaVersion();
  if (!java || !version) {
    const what = !java ? 'Java 17 or later is not installed' : `Kafka's jars are not in ${path.join(KAFKA_DIR, 'libs')}`;
    throw new BrokerError('E_KAFKA_MISSING', `${what}: run \`bash scripts/broker-deps.sh kafka\` (as root where Java or Maven is missing)`);
  }
  const run = createRun('kafka');
  const { dir } = run;
  const classpath = path.join(KAFKA_DIR, 'libs', '*');
  const props = path.join(dir, 'server.properties');
  let server = null;
  let formatMs;
  const t0 = performance.now();
  try {
    const properties = serverProperties({
      host, advertisedHost, port: p.client, controllerPort: p.controller, listeners, ...cred, logDir: path.join(dir, 'data'),
      maxMessageBytes: o.maxMessageBytes,
    });
    fs.writeFileSync(props, properties, { mode: 0o600 });
    fs.writeFileSync(path.join(dir, 'log4j2.properties'), LOG4J);
    await format(java, classpath, dir, props);
    formatMs = performance.now() - t0;
    server = await run.start({
      name: 'Kafka', code: 'E_KAFKA_START', command: java, cwd: dir, env: process.env,
      args: [`-Xmx${o.heap || DEFAULTS.heap}`, ...JVM_FLAGS, `-Dlog4j2.configurationFile=${path.join(dir, 'log4j2.properties')}`,
        '-cp', classpath, 'kafka.Kafka', props],
      ready: /Kafka Server started/,
      fatal: [{ re: /UnsupportedClassVersionError/, why: 'this Java is too old (Kafka 4 needs Java 17 or later)' }],
      timeoutMs: o.timeoutMs || DEFAULTS.startTimeoutMs,
    });
  } catch (err) {
    await run.stop();
    throw err;
  }
  return {
    name: 'kafka',
    version,
    url: `kafka://${advertisedHost}:${p.client}`,
    host: advertisedHost,
    port: p.client,
    brokers: [`${advertisedHost}:${p.client}`],
    credentials: { ...cred, mechanism: 'PLAIN' },
    ports: p,
    pid: server.pid,
    startMs: performance.now() - t0,
    formatMs,
    logs: () => server.logs(),
    exited: server.exited,
    stop: run.stop,
  };
}

module.exports = { startKafka, kafkaVersion, KAFKA_DIR, DEFAULTS };
