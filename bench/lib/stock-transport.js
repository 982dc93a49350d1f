'use strict';
/**
 * Twin-side client for the stock replica of the study's WebSocket–S7 path (bench/flows/stock-*),
 * with the same shape as the twin transports (twin/transports/<protocol>.js) so the benchmark
 * drives both alike. It only does probes (slot 0): the replica's edge maps one probe slot.
 * Frames are the study's style of JSON text: {"i":slot,"v":value}.
 */
const WebSocket = require('ws');

const DEFAULTS = {
  connectTimeoutMs: 10000, // opening handshake, ms
};

/**
 * @param {{url:string}} opts ws://host:port/stock/twin
 * @returns {{connect:()=>Promise<void>, send:()=>void, onValues:()=>void, probe:(slot:number, value:number)=>void,
 *   onProbe:(cb:(slot:number, value:number)=>void)=>void, close:()=>Promise<void>, stats:()=>object}}
 */
function createTransport(opts) {
  let ws = null;
  const probeCbs = [];
  const counters = { framesIn: 0, framesOut: 0, bytesIn: 0, bytesOut: 0, errors: 0 };
  let rawSocket = null;
  let base = { read: 0, written: 0 };

  function connect() {
    return new Promise((resolve, reject) => {
      ws = new WebSocket(opts.url, { perMessageDeflate: false, handshakeTimeout: DEFAULTS.connectTimeoutMs });
      ws.once('open', () => {
        rawSocket = ws._socket;
        rawSocket.setNoDelay(true);
        base = { read: rawSocket.bytesRead, written: rawSocket.bytesWritten }; // count after the handshake
        resolve();
      });
      ws.once('error', reject);
      ws.on('error', () => { counters.errors += 1; });
      ws.on('message', (data) => {
        counters.framesIn += 1;
        let m;
        try { m = JSON.parse(data); } catch { counters.errors += 1; return; }
        if (m && Number.isInteger(m.i) && typeof m.v === 'number') for (const cb of probeCbs) cb(m.i, m.v);
      });
    });
  }

  return {
    connect,
    send() { throw Object.assign(new Error('the stock replica carries probes only'), { code: 'E_UNSUPPORTED' }); },
    onValues() {},
    probe(slot, value) {
      if (!ws || ws.readyState !== WebSocket.OPEN) { counters.errors += 1; return; }
      counters.framesOut += 1;
      ws.send(JSON.stringify({ i: slot, v: value }));
    },
    onProbe(cb) { probeCbs.push(cb); },
    close() {
      return new Promise((resolve) => {
        if (!ws || ws.readyState === WebSocket.CLOSED) { resolve(); return; }
        const t = setTimeout(() => { ws.terminate(); resolve(); }, 2000);
        ws.once('close', () => { clearTimeout(t); resolve(); });
        ws.close();
      });
    },
    stats() {
      const s = rawSocket;
      return {
        ...counters,
        bytesIn: s ? s.bytesRead - base.read : 0,
        bytesOut: s ? s.bytesWritten - base.written : 0,
      };
    },
  };
}

module.exports = { createTransport };
