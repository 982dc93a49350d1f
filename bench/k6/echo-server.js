#!/usr/bin/env node
'use strict';
/**
 * A trivial twin endpoint for measuring a load generator's own floor: it answers every `probe`
 * envelope at once with a `probe-res` carrying the same slots and values (no PLC, no scan, no
 * edge). Both generators (bench/k6/ws-probes.js, bench/load-against.js) can be pointed at it, so
 * what they report above the system's figures is theirs. docs/bench.md.
 *
 *   node bench/k6/echo-server.js [--port 28990]      ws://127.0.0.1:28990/s7twin/twin
 */
const { parseArgs } = require('node:util');
const { WebSocketServer } = require('ws');
const { probeAnswer } = require('./echo');

const { values: a } = parseArgs({ options: { port: { type: 'string', default: '28990' } } });
const wss = new WebSocketServer({ host: '127.0.0.1', port: Number(a.port), perMessageDeflate: false });
let seq = 0;
wss.on('connection', (ws, req) => {
  req.socket.setNoDelay(true);
  ws.on('message', (data) => {
    const out = probeAnswer(data, () => { seq += 1; return seq; });
    if (out) ws.send(out);
  });
});
wss.on('listening', () => console.log(`echo twin endpoint on ws://127.0.0.1:${wss.address().port}/s7twin/twin`));
process.on('SIGTERM', () => wss.close(() => process.exit(0)));
