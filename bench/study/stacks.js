'use strict';
/**
 * The stacks of the protocol study: the protocol table's rows (nodes/lib/core/paths.js
 * STUDY_STACKS: name, label, what is on the wire, the bundle path it belongs to) with how each is
 * run here: its implementation, what it needs on the machine, which roles its companion plays, and
 * how to start it. The bench, its report and the CI test read this table; a new stack is a row
 * there, a row of RUN here, and a companion under bench/study/companions/ that speaks common.py's
 * lines.
 */
const fs = require('node:fs');
const path = require('node:path');
const { STUDY_STACKS } = require('../../nodes/lib/core/paths');

const ROOT = path.join(__dirname, '..', '..');
const DIR = path.join(__dirname, 'companions');
const TOOLS = path.join(ROOT, '.tools');
/** The Python of the Cyclone DDS companion: a venv made by scripts/study-deps.sh from PyPI. */
const VENV_PYTHON = path.join(TOOLS, 'study-venv', 'bin', 'python');
/** The Fast DDS companion, built by scripts/study-deps.sh with g++ against Debian's headers. */
const FASTDDS_BIN = path.join(TOOLS, 'bin', 'study-fastdds');
/** Debian's python3: rospy is a Debian package for the system's interpreter. */
const SYSTEM_PYTHON = '/usr/bin/python3';

const node = (stack) => (role, args) => ({ cmd: process.execPath, args: [path.join(DIR, 'node.js'), stack, role, ...args] });

/**
 * @typedef {object} Stack
 * @property {string} id
 * @property {string} label what the report calls it
 * @property {string} impl the implementation on the wire, with its version
 * @property {string} transport 'tcp' or 'udp'
 * @property {'baseline'|'bundle'|'other'} kind raw sockets, a stack this bundle's paths are built
 *   on, or a protocol the bundle does not speak
 * @property {string} wire what is on the wire
 * @property {string|null} path the bundle path whose wire protocol it measures
 * @property {string} needs what the machine must have (the README lists it)
 * @property {string|null} master 'rosmaster' or 'mqtt-broker': a third process the pair talks through
 * @property {number} [hops] links a message crosses between the pair (2 through a broker; default 1)
 * @property {boolean} chain has forward and chain roles (the many-nodes test)
 * @property {(role:string, args:string[]) => {cmd:string, args:string[]}} command
 * @property {() => string|null} missing why it cannot run here, or null
 */

/**
 * How each of the study's protocols (nodes/lib/core/paths.js STUDY_STACKS: id, label, wire, path,
 * kind) is run here.
 */
const RUN = {
  tcp: { impl: 'Node.js net', transport: 'tcp', needs: 'nothing', master: null, chain: false, command: node('tcp'), missing: () => null },
  udp: { impl: 'Node.js dgram', transport: 'udp', needs: 'nothing', master: null, chain: false, command: node('udp'), missing: () => null },
  ws: {
    impl: 'ws 8 with the bridge\'s envelope (a probe frame and its answer)', transport: 'tcp',
    needs: 'nothing', master: null, chain: false, command: node('ws'), missing: () => null,
  },
  mqtt: {
    impl: 'MQTT 3.1.1 QoS 0: aedes 1.2 broker, mqtt.js 5 clients', transport: 'tcp',
    needs: 'nothing', master: 'mqtt-broker', hops: 2, chain: true, command: node('mqtt'), missing: () => null,
  },
  mosquitto: {
    impl: 'MQTT 3.1.1 QoS 0: Eclipse Mosquitto 2.0 broker (Debian, C), mqtt.js 5 clients', transport: 'tcp',
    needs: 'Debian: mosquitto (bash scripts/broker-deps.sh mosquitto)', master: 'mosquitto', hops: 2, chain: true, command: node('mqtt'),
    missing: () => (exists('/usr/sbin/mosquitto') || exists('/usr/bin/mosquitto') ? null : 'mosquitto missing (bash scripts/broker-deps.sh mosquitto)'),
  },
  opcua: {
    impl: 'node-opcua 2.186 (a method call; ack: a Write)', transport: 'tcp',
    needs: 'nothing', master: null, chain: false, command: node('opcua'), missing: () => null,
  },
  ros: {
    impl: 'rospy 1.15 (Debian), rosmaster, TCPROS, std_msgs/String', transport: 'tcp',
    needs: 'Debian: python3-rospy, python3-rosmaster, python3-std-msgs', master: 'rosmaster', chain: true,
    command: (role, args) => ({ cmd: SYSTEM_PYTHON, args: [path.join(DIR, 'ros1.py'), role, ...args] }),
    missing: () => (exists('/usr/bin/rosmaster') && exists('/usr/lib/python3/dist-packages/rospy') ? null : 'rosmaster or rospy missing (bash ' +
      'scripts/study-deps.sh)'),
  },
  dds: {
    impl: 'Eclipse Cyclone DDS 11 (PyPI cyclonedds wheel), RTPS/UDP, unicast discovery', transport: 'udp',
    needs: 'PyPI: cyclonedds 11.0.1 in .tools/study-venv (Debian python3-venv)', master: null, chain: true,
    command: (role, args) => ({ cmd: VENV_PYTHON, args: [path.join(DIR, 'dds_cyclone.py'), role, ...args] }),
    missing: () => (exists(VENV_PYTHON) ? null : '.tools/study-venv missing (bash scripts/study-deps.sh)'),
  },
  fastdds: {
    impl: 'eProsima Fast DDS 2.9 (Debian libfastrtps; the study\'s Fast RTPS), C++, RTPS/UDP, unicast discovery', transport: 'udp',
    needs: 'Debian: libfastrtps-dev, libfastcdr-dev, g++ (the companion is built into .tools/bin)', master: null, chain: false,
    command: (role, args) => ({ cmd: FASTDDS_BIN, args: [role, ...args] }),
    missing: () => (exists(FASTDDS_BIN) ? null : '.tools/bin/study-fastdds missing (bash scripts/study-deps.sh)'),
  },
};

/** @type {Object<string, Stack>} the protocol table's rows with how each is run */
const STACKS = Object.fromEntries(STUDY_STACKS.map((s) => {
  if (!RUN[s.id]) throw new Error(`the study has no way to run "${s.id}" (nodes/lib/core/paths.js STUDY_STACKS): add it to RUN in bench/study/stacks.js`);
  return [s.id, { ...s, ...RUN[s.id] }];
}));

function exists(p) {
  try { fs.accessSync(p); return true; } catch { return false; }
}

/**
 * The stacks named in a list ('all' or comma-separated ids).
 * @param {string} list
 * @returns {Stack[]}
 * @throws {Error} E_STUDY_ARGS on an unknown id
 */
function pick(list) {
  const ids = !list || list === 'all' ? Object.keys(STACKS) : list.split(',').map((s) => s.trim()).filter(Boolean);
  return ids.map((id) => {
    if (!STACKS[id]) throw Object.assign(new Error(`unknown stack "${id}" (${Object.keys(STACKS).join(', ')})`), { code: 'E_STUDY_ARGS' });
    return STACKS[id];
  });
}

module.exports = { STACKS, pick, VENV_PYTHON, FASTDDS_BIN, SYSTEM_PYTHON, ROOT };
