'use strict';
/**
 * Test helpers for the twin: run the plant model in lock-step with the real PLC program
 * (plc/program.js) with an optional one-way latency, and a small WebSocket harness that stands in
 * for the cloud twin endpoint by relaying cmd envelopes to that program on a real scan timer.
 */
const http = require('node:http');
const { WebSocketServer } = require('ws');
const program = require('../../plc/program');
const envelope = require('../../nodes/lib/core/envelope');
const { demoTable, tableOf } = require('../../nodes/lib/core/io-table');
const { JSON_PROTOCOL } = require('../../nodes/lib/core/codec');

const tags = demoTable();
const STREAMED = tags.outputs.filter((t) => !t.noStream).map((t) => t.short);
const pick = (o, keys = STREAMED) => Object.fromEntries(keys.map((k) => [k, o[k]]));

/**
 * Run plant and PLC program on one simulated clock.
 * @param {object} plant a twin/plant.js plant
 * @param {{scanMs?:number, tickMs?:number, latencyMs?:number|Function, maxMs?:number, start?:boolean, stalled?:Function, maxDtMs?:number,
 *   onScan?:(t:number, inputs:object, outputs:object)=>void}} [opts] latencyMs: one way, or `(way, t) => ms` per
 *   message (way 'toPlc' or 'toTwin'; the link keeps the order: a message never overtakes the one before);
 *   onScan: after every scan, the PLC's input image and streamed outputs (what an edge reading the PLC would see then);
 *   stalled: `(t) => boolean`, the twin's event loop is held at t: it neither takes outputs nor ticks, and then
 *   ticks at most maxDtMs (default 50) at once, as the browser twin's session and twin/run.js do: its plant
 *   time falls behind
 * @returns {{summary:object, frames:number, scans:number, time:number, outputs:object}}
 */
function runLockStep(plant, opts = {}) {
  const scanMs = opts.scanMs || 10;
  const tickMs = opts.tickMs || 1;
  const oneWay = typeof opts.latencyMs === 'function' ? opts.latencyMs : () => opts.latencyMs || 0;
  let latency = 0; // the longest one-way latency so far (the settling time after the last box)
  const latencyOf = (way, at) => { const ms = oneWay(way, at); latency = Math.max(latency, ms); return ms; };
  const maxMs = opts.maxMs || 60000;
  const maxDtMs = opts.maxDtMs || 50;
  let held = 0; // how long the twin's event loop has been held (opts.stalled)
  let state = program.initialState();
  let image = {}; // PLC input image (what was delivered so far)
  let lastOut = {};
  const toPlc = []; // [deliverAt, values]
  const toTwin = [];
  let frames = 0;
  let scans = 0;
  let t = 0;
  let nextScan = 0;
  const send = (vals) => { frames += 1; toPlc.push([t + latencyOf('toPlc', t), vals]); };
  plant.on('inputs', send);
  send(plant.inputs());
  if (opts.start !== false) plant.press('st');
  let settleUntil = Infinity; // after the last box, let the PLC see the last sensor changes
  while (t < maxMs && t < settleUntil) {
    if (plant.done && settleUntil === Infinity) settleUntil = t + 2 * latency + 5 * scanMs;
    while (toPlc.length && toPlc[0][0] <= t) image = { ...image, ...toPlc.shift()[1] };
    if (t >= nextScan) {
      const r = program.scan(state, image);
      state = r.state;
      scans += 1;
      const ch = tags.diff(lastOut, pick(r.outputs));
      lastOut = pick(r.outputs);
      if (opts.onScan) opts.onScan(t, { ...image }, lastOut);
      if (Object.keys(ch).length) toTwin.push([t + latencyOf('toTwin', t), ch]);
      nextScan += scanMs;
    }
    if (opts.stalled && opts.stalled(t)) {
      held += tickMs;
    } else {
      while (toTwin.length && toTwin[0][0] <= t) plant.applyOutputs(toTwin.shift()[1]);
      plant.tick(Math.min(tickMs + held, maxDtMs));
      held = 0;
    }
    t += tickMs;
  }
  return { summary: plant.summary(), frames, scans, time: t, outputs: lastOut };
}

/**
 * A stand-in cloud twin endpoint: token check before the upgrade, snap on connect, cmd → PLC
 * input image, one `state` frame per scan with the outputs that changed, `ack` per cmd, `err`
 * for malformed frames or unwritable tags, probe slots echoed. The PLC is plc/program.js on a
 * scan timer, or with `plc: true` the real virtual S7-1500 (createPlc, interfaces off), running
 * `table` (default: the demo plant's) with its program or echo rules. `viewerToken` connects
 * and is answered E_READ_ONLY for every command, as the cloud answers a viewer.
 * @param {{token?:string, viewerToken?:string, scanMs?:number, plc?:boolean, table?:object}} [opts]
 * @returns {Promise<{url:string, port:number, stats:object, clients:Set, close:()=>Promise<void>, dropClients:()=>void}>}
 */
async function startHarness(opts = {}) {
  const token = opts.token || 'secret';
  const scanMs = opts.scanMs || 10;
  const sender = envelope.createSender('harness');
  const tracker = envelope.createTracker();
  const stats = { cmds: 0, errors: 0, connections: 0, refused: 0 };
  const server = http.createServer((req, res) => { res.writeHead(404); res.end(); });
  // A JSON-only endpoint: of the subprotocols a twin offers it takes the JSON one (ws would
  // otherwise answer with the first offered, the compact one, and then speak JSON).
  const wss = new WebSocketServer({
    noServer: true, perMessageDeflate: false, maxPayload: envelope.MAX_FRAME_BYTES,
    handleProtocols: (offered) => (offered.has(JSON_PROTOCOL) ? JSON_PROTOCOL : false),
  });
  const broadcast = (env) => { const s = envelope.stringify(env); for (const c of wss.clients) if (c.readyState === 1) c.send(s); };
  const onChange = (ch) => { if (Object.keys(ch).length) broadcast(sender.make('state', { d: ch })); };
  const table = tableOf(opts.table);
  // Another table's tags stream as its edge streams them: every tag but the noStream ones.
  const streamed = opts.table ? table.streamed.map((t) => t.short) : STREAMED;
  const backend = opts.plc ? await plcBackend(scanMs, onChange, table, streamed) : programBackend(scanMs, onChange);
  const viewers = new WeakSet();

  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url, 'http://x');
    const auth = req.headers.authorization || '';
    const given = auth.startsWith('Bearer ') ? auth.slice(7) : url.searchParams.get('token');
    const viewer = Boolean(opts.viewerToken) && given === opts.viewerToken;
    if (url.pathname !== '/s7twin/twin' || (given !== token && !viewer)) {
      stats.refused += 1;
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    socket.setNoDelay(true);
    wss.handleUpgrade(req, socket, head, (ws) => { if (viewer) viewers.add(ws); wss.emit('connection', ws); });
  });
  wss.on('connection', (ws) => {
    stats.connections += 1;
    ws.send(envelope.stringify(sender.make('snap', { d: backend.outputs() })));
    ws.on('message', (raw) => {
      let env;
      try {
        env = envelope.parse(raw);
      } catch (err) {
        stats.errors += 1;
        ws.send(envelope.stringify(sender.error(err.code, err.message, err.ref)));
        return;
      }
      if (tracker.check(env) === 'duplicate') return;
      if (env.k === 'cmd') {
        const next = {};
        try {
          if (viewers.has(ws)) throw Object.assign(new Error('a viewer token may watch, not write'), { code: 'E_READ_ONLY' });
          for (const [k, v] of Object.entries(env.d)) next[k] = table.checkWrite(k, v).value;
        } catch (err) {
          stats.errors += 1;
          ws.send(envelope.stringify(sender.error(err.code, err.message, { src: env.src, seq: env.seq }, env.cid)));
          return;
        }
        backend.write(next);
        stats.cmds += 1;
        ws.send(envelope.stringify(sender.make('ack', { ref: { src: env.src, seq: env.seq } })));
      } else if (env.k === 'probe') {
        ws.send(envelope.stringify(sender.make('probe-res', { d: env.d })));
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    port,
    url: `ws://127.0.0.1:${port}/s7twin/twin`,
    stats,
    get outputs() { return backend.outputs(); },
    /** The PLC input image: every value the twins commanded so far. */
    get image() { return backend.image(); },
    /** The virtual PLC itself (with `plc: true`): what its program or another client writes. */
    get plc() { return backend.plc; },
    clients: wss.clients,
    /** Cut every twin connection (the twin must reconnect). */
    dropClients() { for (const c of wss.clients) c.terminate(); },
    async close() {
      for (const c of wss.clients) c.terminate();
      wss.close();
      await new Promise((resolve) => server.close(resolve));
      await backend.close();
    },
  };
}

/** plc/program.js on a setInterval scan: the lightest stand-in. */
function programBackend(scanMs, onChange) {
  let state = program.initialState();
  let image = {};
  let lastOut = pick(program.outputsOf(state));
  const timer = setInterval(() => {
    const r = program.scan(state, image);
    state = r.state;
    const out = pick(r.outputs);
    const ch = tags.diff(lastOut, out);
    lastOut = out;
    onChange(ch);
  }, scanMs);
  return {
    write(values) { image = { ...image, ...values }; },
    outputs: () => ({ ...lastOut }),
    image: () => ({ ...image }),
    async close() { clearInterval(timer); },
  };
}

/** The real virtual S7-1500 (plc/index.js createPlc) with its network interfaces off, running `table`. */
async function plcBackend(scanMs, onChange, table, streamed) {
  const { createPlc } = require('../../plc');
  const plc = await createPlc({ scanMs, s7: false, opcua: false, modbus: false, mqtt: false, table });
  const image = {};
  plc.on('scan', (ev) => onChange(pick2(ev.changed, streamed)));
  return {
    write(values) { Object.assign(image, values); plc.setInputs(values); },
    outputs: () => pick(plc.values(), streamed),
    image: () => ({ ...image }),
    plc,
    close: () => plc.stop(),
  };
}

/** The streamed outputs among the changed values of one scan. */
function pick2(changed, keys = STREAMED) {
  const out = {};
  for (const k of keys) if (k in changed) out[k] = changed[k];
  return out;
}

/**
 * The REST endpoint (nodes/lib/web/rest.js) on a bare HTTP server, with a stand-in edge
 * behind it: a command is checked against the tag dictionary (else an err, nothing written),
 * written to plc/program.js on a scan timer and acknowledged; every scan's changes come back as
 * a state frame, as the edge sends them.
 * @param {{tokens?: string[], viewerTokens?: string[], scanMs?: number, answerSlackMs?: number, edge?: 'up'|'down'|'silent'}} [opts]
 * @returns {Promise<{url:string, rest:object, relayed:object[], outputs:object, setEdge:(m:string)=>void, close:()=>Promise<void>}>}
 */
async function startRestHarness(opts = {}) {
  const { createRestEndpoint } = require('../../nodes/lib/web/rest');
  const edgeSender = envelope.createSender('edge-harness');
  let edge = opts.edge || 'up';
  const relayed = [];
  let rest = null;
  const backend = programBackend(opts.scanMs || 10, (ch) => { if (Object.keys(ch).length) rest.fromEdge(edgeSender.make('state', { d: ch })); });
  rest = createRestEndpoint({
    tokens: opts.tokens || ['T'],
    viewerTokens: opts.viewerTokens || [],
    src: 'cloud-rest-test',
    ...(opts.answerSlackMs === undefined ? {} : { answerSlackMs: opts.answerSlackMs }),
    state: backend.outputs(),
    relay(env) {
      relayed.push(env);
      if (edge === 'down') return 0;
      if (edge === 'silent') return 1;
      const ref = { src: env.src, seq: env.seq };
      setImmediate(() => {
        const next = {};
        try {
          for (const [k, v] of Object.entries(env.d)) next[k] = tags.checkWrite(k, v).value;
        } catch (err) {
          rest.fromEdge(edgeSender.error(err.code, err.message, ref));
          return;
        }
        backend.write(next);
        rest.fromEdge(edgeSender.make('ack', { ref }));
      });
      return 1;
    },
  });
  const server = http.createServer((req, res) => {
    const m = /^\/s7twin\/rest(\/.*)$/.exec(req.url);
    if (!m) { res.writeHead(404); res.end(); return; }
    req.url = m[1];
    rest.handle(req, res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/s7twin/rest`,
    rest,
    relayed,
    get outputs() { return backend.outputs(); },
    setEdge(mode) { edge = mode; },
    async close() {
      rest.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await backend.close();
    },
  };
}

module.exports = { runLockStep, startHarness, startRestHarness };
