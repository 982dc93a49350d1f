'use strict';
/**
 * Cyclone DDS's configuration for the study: discovery by unicast on loopback. Cyclone finds its
 * peers by multicast by default, and a sandbox's loopback often has none; with multicast off and
 * 127.0.0.1 as the one peer, each participant sends its discovery data to the ports of
 * participant indices 0..MaxAutoParticipantIndex on 127.0.0.1, so that number must cover every
 * participant of a run (the many-nodes test raises it; each participant then sends to every
 * index, which is part of what discovery costs).
 */

/**
 * @param {{participants?:number}} [o] how many participants the run will have
 * @returns {string} the XML for CYCLONEDDS_URI
 */
function cycloneConfig(o = {}) {
  const maxIndex = Math.max(9, (o.participants || 2) + 2);
  return [
    '<CycloneDDS><Domain id="any">',
    '<General><Interfaces><NetworkInterface address="127.0.0.1"/></Interfaces><AllowMulticast>false</AllowMulticast></General>',
    `<Discovery><ParticipantIndex>auto</ParticipantIndex><MaxAutoParticipantIndex>${maxIndex}</MaxAutoParticipantIndex>`,
    '<Peers><Peer address="127.0.0.1"/></Peers></Discovery>',
    '</Domain></CycloneDDS>',
  ].join('');
}

module.exports = { cycloneConfig };
