'use strict';
/**
 * The MQTT path's topic names, one home for the PLC's client (plc/mqtt.js), the twin transport
 * (twin/transports/mqtt.js), the broker's ACLs (nodes/lib/mqtt/auth.js) and the cloud flow.
 * Templates come from the I/O table's `mqtt` section (the demo plant's where no table is given;
 * a table that leaves the section out has the same):
 *
 *   s7twin/<plant>/cmd               twin → PLC   inputs
 *   s7twin/<plant>/state             PLC → twins  outputs that changed
 *   s7twin/<plant>/probe/req         twin → PLC   {"i":slot,"v":value} or an array of them
 *   s7twin/<plant>/probe/res/<slot>  PLC → twin   the answer, on the topic of the request's
 *                                                 (first) slot
 *
 * Why one response topic per slot (docs/fleet.md, "MQTT under load"): with one shared
 * `probe/res` topic every twin of a plant received every probe answer and dropped all but its
 * own, so the broker's deliveries grew with the square of the twins (200 twins probing twice a
 * second: 80,000 deliveries a second for 400 answers) and the path queued past 80 twins. A twin
 * now subscribes to the response topic of each slot it probes, and gets its own answers only.
 * Pure functions, no RED, no sockets; runs in the browser twin too.
 */
const { demoTable, template } = require('../core/io-table');

/**
 * The topic of one probe slot's answers.
 * @param {string} plant
 * @param {number|string} slot a slot number, or '+' for a filter over every slot
 * @param {object} [table] the plant's I/O table (default: the demo plant's)
 * @returns {string}
 */
function probeResponseTopic(plant, slot, table = demoTable()) {
  return template(table.TABLE.mqtt.probeResponseTopic, { plant, slot });
}

/**
 * The topics of one plant.
 * @param {string} plant plant id (or '+' for filters over every plant)
 * @param {object} [table] the plant's I/O table (default: the demo plant's)
 * @returns {{cmd:string, state:string, req:string, res:(slot:number)=>string, resAll:string}}
 *   resAll: the filter over every slot's answers (a monitor, or a twin probing many slots)
 */
function topicsOf(plant, table = demoTable()) {
  const T = table.TABLE.mqtt;
  const fill = (t) => template(t, { plant });
  return {
    cmd: fill(T.commandTopic),
    state: fill(T.stateTopic),
    req: fill(T.probeRequestTopic),
    res: (slot) => probeResponseTopic(plant, slot, table),
    resAll: probeResponseTopic(plant, '+', table),
  };
}

/**
 * Which probe slot a response topic of this plant names, or null when it is not one (another
 * plant, another topic, a slot out of 0..probeSlots-1 or not written as a plain integer).
 * @param {string} topic
 * @param {string} plant
 * @param {object} [table] the plant's I/O table (default: the demo plant's)
 * @returns {number|null}
 */
function slotOfResponse(topic, plant, table = demoTable()) {
  const prefix = probeResponseTopic(plant, '\u0000', table);
  const cut = prefix.indexOf('\u0000');
  const head = prefix.slice(0, cut);
  const tail = prefix.slice(cut + 1);
  if (typeof topic !== 'string' || !topic.startsWith(head) || !topic.endsWith(tail)) return null;
  const s = topic.slice(head.length, topic.length - tail.length);
  if (!/^(0|[1-9]\d{0,9})$/.test(s)) return null;
  const slot = Number(s);
  return slot < table.PROBE_SLOTS ? slot : null;
}

/**
 * The slot whose response topic carries the answer to a probe request: its only slot, or an
 * array request's first. One request, one answer message (an array answered as one array).
 * @param {Array<{i:number}>|{i:number}} request items as checked (i = slot)
 * @returns {number}
 */
function answerSlot(request) {
  return Array.isArray(request) ? request[0].i : request.i;
}

/**
 * The topics of the edge↔cloud link when it runs over this broker (lib/link/transports/mqtt.js),
 * one pair per plant: the plant's edge publishes on `up` and reads `down`, the cloud the other way
 * round. The broker's ACLs (lib/mqtt/auth.js roles `edge` and `link`) let only the plant's edge
 * user publish on its `up`, so a message there comes from that plant's edge.
 */
const LINK_TOPICS = Object.freeze({ up: 's7twin/{plant}/link/up', down: 's7twin/{plant}/link/down' });

/**
 * The link topics of one plant ('+' for a filter over every plant).
 * @param {string} plant
 * @returns {{up: string, down: string}}
 */
function linkTopicsOf(plant) {
  return { up: LINK_TOPICS.up.replace('{plant}', plant), down: LINK_TOPICS.down.replace('{plant}', plant) };
}

/**
 * Is this a topic of the link (either way, any plant)?
 * @param {string} topic
 * @returns {boolean}
 */
function isLinkTopic(topic) {
  const p = String(topic).split('/');
  return p.length === 4 && p[0] === 's7twin' && p[2] === 'link' && (p[3] === 'up' || p[3] === 'down') && p[1] !== '+' && p[1] !== '#';
}

module.exports = { probeResponseTopic, topicsOf, slotOfResponse, answerSlot, LINK_TOPICS, linkTopicsOf, isLinkTopic };
