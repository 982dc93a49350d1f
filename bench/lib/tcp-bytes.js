'use strict';
/**
 * Bytes per box counted from a packet capture (bench/tcp-bytes.js runs tshark over it), beside
 * what the twin transports count themselves: a check of Table 3 by a tool this project did not
 * write. This module is the pure part: which TCP streams are a production twin's connection, and
 * what they carried each way.
 *
 * A production twin's id is `p<block>x<5 letters or digits>` (bench/lib/productions.js; the
 * warm-up's block is 999, and its bytes are not in the report). A stream is a WebSocket–S7 twin
 * connection when its first payload is the opening handshake `GET /s7twin/twin`, and belongs to
 * the production whose sender id `twin-p…` it carries first (in the cloud's answers, which name
 * the command they answer: a client's own frames are masked); a stream is an MQTT twin connection
 * when its first payload is a CONNECT (first byte 0x10) naming the client `s7twin-twin-p…`.
 * The cloud↔edge link carries twins' ids too (relayed commands), but starts with another path.
 *
 * On a WAN profile every connection crosses Toxiproxy, so the capture holds it twice (twin →
 * proxy, proxy → cloud) with the same payload bytes: the streams of one production are grouped,
 * and the first one opened (the twin's own) is counted. A production belongs to the profile whose
 * cloud (or MQTT broker) port one of its streams reaches, as the run's logs name them: a capture
 * of a shared machine holds other systems' productions too, which are left out.
 */

const ID_RE = /twin-(p\d{1,3}x[a-z0-9]{5})/;
const WARMUP_BLOCK = 'p999x';
const WS_HANDSHAKE = 'GET /s7twin/twin';
const MQTT_CONNECT = 0x10;

/** The text of a hex payload as tshark prints it (`tcp.payload`, with or without colons). */
const bytesOf = (hex) => Buffer.from(String(hex).replace(/:/g, ''), 'hex');

/**
 * The production streams, from tshark's rows of the packets that name a production twin or open a
 * WebSocket twin connection.
 * @param {Array<{stream: number, time: number, srcPort: number, dstPort: number, payload: string}>} rows
 *   in capture order (payload in hex)
 * @returns {Map<number, {stream: number, id: string, protocol: 'ws'|'mqtt', serverPort: number, openedAt: number}>}
 */
function productionStreams(rows) {
  const first = new Map(); // stream -> its first payload row
  const ids = new Map(); // stream -> the first production id it names
  for (const r of rows) {
    const b = bytesOf(r.payload);
    if (!first.has(r.stream)) first.set(r.stream, { ...r, bytes: b });
    if (!ids.has(r.stream)) {
      const m = ID_RE.exec(b.toString('latin1'));
      if (m) ids.set(r.stream, m[1]);
    }
  }
  const out = new Map();
  for (const [stream, f] of first) {
    const id = ids.get(stream);
    if (!id || id.startsWith(WARMUP_BLOCK)) continue;
    let protocol = null;
    if (f.bytes.toString('latin1').startsWith(WS_HANDSHAKE)) protocol = 'ws';
    else if (f.bytes[0] === MQTT_CONNECT && f.bytes.toString('latin1').includes(`s7twin-twin-${id}`.slice(0, 23))) protocol = 'mqtt';
    if (protocol) out.set(stream, { stream, id, protocol, serverPort: f.dstPort, openedAt: f.time });
  }
  return out;
}

/**
 * Bytes per production: the first-opened stream of each id counted, each way.
 * @param {Map} streams productionStreams()
 * @param {Array<{stream: number, srcPort: number, len: number}>} sizes every payload of those streams
 * @returns {Array<{id, protocol, legs: number, serverPorts: number[], up: number, down: number}>}
 */
function perProduction(streams, sizes) {
  const bytes = new Map([...streams.keys()].map((s) => [s, { up: 0, down: 0 }]));
  for (const z of sizes) {
    const s = streams.get(z.stream);
    if (!s) continue;
    bytes.get(z.stream)[z.srcPort === s.serverPort ? 'down' : 'up'] += z.len;
  }
  const groups = new Map();
  for (const s of streams.values()) {
    const g = groups.get(s.id) || [];
    g.push(s);
    groups.set(s.id, g);
  }
  return [...groups.values()].map((g) => {
    const twin = g.reduce((a, b) => (b.openedAt < a.openedAt ? b : a));
    return { id: twin.id, protocol: twin.protocol, legs: g.length, serverPorts: g.map((x) => x.serverPort), ...bytes.get(twin.stream) };
  });
}

/**
 * The ports a run's cloud listened on, per profile, from its logs (`<profile>-cloud.log`): Node-RED's
 * HTTP port (the twin endpoint) and the MQTT broker's.
 * @param {Object<string, string>} logs profile -> the cloud's log text
 * @returns {Map<number, string>} port -> profile
 */
function portsOf(logs) {
  const out = new Map();
  for (const [profile, text] of Object.entries(logs)) {
    for (const re of [/Server now running at https?:\/\/[^/\s]*:(\d+)/g, /MQTT broker listening on mqtts?:\/\/[^/\s]*:(\d+)/g]) {
      for (const m of text.matchAll(re)) out.set(Number(m[1]), profile);
    }
  }
  return out;
}

/**
 * The totals per profile and protocol, with the report's own bytes per box beside them.
 * @param {Array} prods perProduction()
 * @param {object} summary the run's summary.json
 * @param {Map<number, string>} ports portsOf(): productions reaching none of them are another system's
 * @returns {Array<{profile, protocol, productions, up, down, boxes, perBox, reportPerBox, reportProductions}>}
 */
function totals(prods, summary, ports) {
  const acc = new Map();
  for (const p of prods) {
    const port = p.serverPorts.find((x) => ports.has(x));
    if (port === undefined) continue;
    const key = `${ports.get(port)}\t${p.protocol}`;
    const a = acc.get(key) || { productions: 0, up: 0, down: 0 };
    a.productions += 1;
    a.up += p.up;
    a.down += p.down;
    acc.set(key, a);
  }
  return [...acc.entries()].map(([key, a]) => {
    const [profile, protocol] = key.split('\t');
    const r = summary.profiles[profile] && summary.profiles[profile].productions[protocol];
    const boxes = r ? r.bytes.boxes : null;
    return {
      profile, protocol, ...a, boxes,
      perBox: boxes ? (a.up + a.down) / boxes : null,
      reportPerBox: r ? r.bytes.bothPerBox : null,
      reportProductions: r ? r.productions : null,
    };
  }).sort((x, y) => (x.profile === y.profile ? x.protocol.localeCompare(y.protocol) : x.profile.localeCompare(y.profile)));
}

module.exports = { productionStreams, perProduction, portsOf, totals, ID_RE };
