'use strict';
/**
 * The stacks of the protocol study, one row each: what is measured (label, implementation), what
 * it needs on the machine, which roles its companion plays, and how to start it. The bench, its
 * report and the CI test read this table; a new stack is a row here and a companion under
 * bench/study/companions/ that speaks common.py's lines.
 */
const fs = require('node:fs');
const path = require('node:path');

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
 * @property {'baseline'|'ours'|'companion'} kind baselines (raw sockets), the stacks this bundle
 *   is built on, or a companion of another language
 * @property {string} needs what the machine must have (the README lists it)
 * @property {string|null} master 'rosmaster' or 'mqtt-broker': a third process the pair talks through
 * @property {number} [hops] links a message crosses between the pair (2 through a broker; default 1)
 * @property {boolean} chain has forward and chain roles (the many-nodes test)
 * @property {(role:string, args:string[]) => {cmd:string, args:string[]}} command
 * @property {() => string|null} missing why it cannot run here, or null
 */

/** @type {Object<string, Stack>} */
const STACKS = {
  tcp: {
    id: 'tcp', label: 'TCP (raw)', impl: 'Node.js net', transport: 'tcp', kind: 'baseline',
    needs: 'nothing', master: null, chain: false, command: node('tcp'), missing: () => null,
  },
  udp: {
    id: 'udp', label: 'UDP (raw)', impl: 'Node.js dgram', transport: 'udp', kind: 'baseline',
    needs: 'nothing', master: null, chain: false, command: node('udp'), missing: () => null,
  },
  ws: {
    id: 'ws', label: 'WebSocket + envelope', impl: 'ws 8 with the bridge\'s envelope (a probe frame and its answer)', transport: 'tcp', kind: 'ours',
    needs: 'nothing', master: null, chain: false, command: node('ws'), missing: () => null,
  },
  mqtt: {
    id: 'mqtt', label: 'MQTT', impl: 'MQTT 3.1.1 QoS 0: aedes 1.2 broker, mqtt.js 5 clients', transport: 'tcp', kind: 'ours',
    needs: 'nothing', master: 'mqtt-broker', hops: 2, chain: true, command: node('mqtt'), missing: () => null,
  },
  opcua: {
    id: 'opcua', label: 'OPC UA C/S', impl: 'node-opcua 2.186 (a method call; ack: a Write)', transport: 'tcp', kind: 'ours',
    needs: 'nothing', master: null, chain: false, command: node('opcua'), missing: () => null,
  },
  ros: {
    id: 'ros', label: 'ROS 1', impl: 'rospy 1.15 (Debian), rosmaster, TCPROS, std_msgs/String', transport: 'tcp', kind: 'companion',
    needs: 'Debian: ros-base, python3-rospy, python3-rosmaster, python3-std-msgs', master: 'rosmaster', chain: true,
    command: (role, args) => ({ cmd: SYSTEM_PYTHON, args: [path.join(DIR, 'ros1.py'), role, ...args] }),
    missing: () => (exists('/usr/bin/rosmaster') && exists('/usr/lib/python3/dist-packages/rospy') ? null : 'rosmaster or rospy missing (bash scripts/study-deps.sh)'),
  },
  dds: {
    id: 'dds', label: 'DDS (Cyclone)', impl: 'Eclipse Cyclone DDS 11 (PyPI cyclonedds wheel), RTPS/UDP, unicast discovery', transport: 'udp', kind: 'companion',
    needs: 'PyPI: cyclonedds 11.0.1 in .tools/study-venv (Debian python3-venv)', master: null, chain: true,
    command: (role, args) => ({ cmd: VENV_PYTHON, args: [path.join(DIR, 'dds_cyclone.py'), role, ...args] }),
    missing: () => (exists(VENV_PYTHON) ? null : '.tools/study-venv missing (bash scripts/study-deps.sh)'),
  },
  fastdds: {
    id: 'fastdds', label: 'DDS (Fast DDS)', impl: 'eProsima Fast DDS 2.9 (Debian libfastrtps; the study\'s Fast RTPS), C++, RTPS/UDP, unicast discovery', transport: 'udp', kind: 'companion',
    needs: 'Debian: libfastrtps-dev, libfastcdr-dev, g++ (the companion is built into .tools/bin)', master: null, chain: false,
    command: (role, args) => ({ cmd: FASTDDS_BIN, args: [role, ...args] }),
    missing: () => (exists(FASTDDS_BIN) ? null : '.tools/bin/study-fastdds missing (bash scripts/study-deps.sh)'),
  },
};

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
