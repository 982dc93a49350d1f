'use strict';
/**
 * Where an MQTT twin's bytes go: every packet it sends and receives, by direction and by what it
 * is (a PUBLISH by the last level of its topic: cmd, state, req, res; any other packet by its
 * type), with a PUBLISH split into its fixed header, topic and payload. The benchmark's report
 * shows it beside the WebSocket–S7 path's ("where the bytes go"). Browser-safe.
 */
const utf8 = new TextEncoder();

/** Bytes of MQTT's variable-length "remaining length" field (MQTT 3.1.1, 2.2.3). */
const lengthBytes = (n) => (n < 128 ? 1 : n < 16384 ? 2 : n < 2097152 ? 3 : 4);
const sizeOf = (x) => (x === undefined || x === null ? 0 : typeof x === 'string' ? utf8.encode(x).length : x.length);

/** A PUBLISH's topic class: the level that says what it carries (the slot number of a probe answer skipped). */
function topicKind(topic) {
  const levels = String(topic || '').split('/');
  const last = levels[levels.length - 1];
  return /^\d+$/.test(last) && levels.length > 1 ? levels[levels.length - 2] : last;
}

/** An empty book: rows per direction and kind, in the WebSocket book's shape where it applies. */
function createPacketBook() {
  const rows = {};
  return {
    /**
     * One packet (mqtt.js 'packetsend' / 'packetreceive').
     * @param {'up'|'down'} dir
     * @param {{cmd: string, topic?: string, payload?: Buffer|string, qos?: number, length?: number}} p
     */
    add(dir, p) {
      const kind = p.cmd === 'publish' ? `publish ${topicKind(p.topic)}` : p.cmd;
      const key = `${dir} ${kind}`;
      if (!rows[key]) rows[key] = { dir, kind, frames: 0, wire: 0, wireFraming: 0, header: 0, values: 0 };
      const r = rows[key];
      let rest;
      if (p.cmd === 'publish') {
        const topic = 2 + sizeOf(p.topic);
        const payload = sizeOf(p.payload);
        rest = topic + (p.qos ? 2 : 0) + payload;
        r.header += topic + (p.qos ? 2 : 0);
        r.values += payload;
      } else {
        rest = typeof p.length === 'number' ? p.length : 0; // a sent packet's size is known on receipt only
      }
      r.frames += 1;
      r.wireFraming += 1 + lengthBytes(rest);
      r.wire += 1 + lengthBytes(rest) + rest;
    },
    rows: () => Object.values(rows).map((r) => ({ ...r })),
  };
}

module.exports = { createPacketBook, topicKind };
