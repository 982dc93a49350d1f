// k6 load script: the benchmark's load (bench/lib/load.js) from an independent generator.
// N virtual twins (one k6 VU each, its own WebSocket to the cloud twin endpoint, its own PLC probe
// slot), one probe in flight, an exponential think time between probes (mean 500 ms); each probe
// writes a fresh value to the twin's request slot and is timed until that exact value comes back
// on its response slot.
//
//   .tools/bin/k6 run -e URL=ws://127.0.0.1:1880/s7twin/twin -e TOKEN=dev-twin-token \
//     -e TWINS=1000 -e SECONDS=20 --summary-export summary.json bench/k6/ws-probes.js
//
// Encoding: the readable JSON envelope (subprotocol s7twin.v1+json, asked for in the opening
// handshake), not the compact MessagePack one the browsers and the headless twin use by default:
// a probe answer is then found by a text search, and a load generator need not carry the codec.
//
// Only this twin's own answers are parsed. Every twin of the plant also receives the plant's
// states (one per PLC scan with a change) and a snapshot; a frame that does not carry this VU's
// sender id (in the ref of its answers) is skipped by one substring search before any
// JSON.parse. 1,000 VUs parsing every frame of that fan-out were this script's own floor, not
// k6. Check the floor against bench/k6/echo-server.js (same VUs) before trusting a figure.
//
// Env: URL, TOKEN, PROTOCOL (s7twin.v1+json; empty: ask for none, which is JSON too), TWINS
// (1000), SECONDS (25, the measured part), THINK_MS (500), THINK (exp: exponential, mean
// THINK_MS, the default; uniform: 0.5-1.5 x THINK_MS like bench/lib/load.js), SLOT_BASE (1),
// WARMUP_S (5: probes answered before this many seconds are kept apart as probe_rtt_warmup, as a
// start-up burst is not the steady state), TIMEOUT_MS (5000).
// Metrics: probe_rtt (ms, after the warm-up), probe_rtt_warmup; failed probes: probe_timeouts (no
// answer within TIMEOUT_MS), probe_errors (an err answer, tagged with its code), probe_wrong (a
// later value than the one asked for); twin_connect_failed (no WebSocket), frames_binary (frames
// of the compact encoding: should stay 0, a server that did not speak JSON).
// docs/bench.md "An independent load generator (k6)".
import ws from 'k6/ws';
import { Trend, Counter } from 'k6/metrics';
import exec from 'k6/execution';
import { sleep } from 'k6';

const E = (k, d) => (__ENV[k] === undefined || __ENV[k] === '' ? d : __ENV[k]);
const URL = E('URL', 'ws://127.0.0.1:1880/s7twin/twin');
const TOKEN = E('TOKEN', 'dev-twin-token');
const PROTOCOL = __ENV.PROTOCOL === undefined ? 's7twin.v1+json' : __ENV.PROTOCOL; // '': ask for none
const TWINS = Number(E('TWINS', 1000));
const SECONDS = Number(E('SECONDS', 25));
const THINK_MS = Number(E('THINK_MS', 500));
const THINK = E('THINK', 'exp');
const SLOT_BASE = Number(E('SLOT_BASE', 1));
const WARMUP_S = Number(E('WARMUP_S', 5));
const TIMEOUT_MS = Number(E('TIMEOUT_MS', 5000));
const RAMP_S = Math.ceil(TWINS / 200); // connect 200 twins a second (a connect storm would measure the storm)

const rtt = new Trend('probe_rtt', true);
const rttWarm = new Trend('probe_rtt_warmup', true);
const timeouts = new Counter('probe_timeouts');
const errors = new Counter('probe_errors');
const wrong = new Counter('probe_wrong');
const connectFailed = new Counter('twin_connect_failed');
const binary = new Counter('frames_binary');

export const options = {
  scenarios: {
    twins: {
      executor: 'per-vu-iterations', vus: TWINS, iterations: 1, maxDuration: `${RAMP_S + WARMUP_S + SECONDS + 30}s`,
    },
  },
  summaryTrendStats: ['avg', 'min', 'med', 'p(95)', 'p(99)', 'max', 'count'],
};

function think() {
  if (THINK === 'exp') return -Math.log(1 - Math.random()) * THINK_MS;
  return THINK_MS * (0.5 + Math.random());
}

export default function twin() {
  const vu = exec.vu.idInTest; // 1..TWINS
  const slot = SLOT_BASE + vu - 1;
  const src = `twin-k6-${vu}`;
  // The one cheap test every frame gets: this VU's sender id with its closing quote, which only
  // the ref of its own answers carries (twin-k6-1 does not match twin-k6-10).
  const mine = `"${src}"`;
  let seq = 0;
  let value = vu * 1000000; // fresh values per slot, never repeated (below 2^32: the slots are UDInt)
  const t0 = exec.scenario.startTime; // ms since the epoch, the same for every VU
  const measureFrom = t0 + (RAMP_S + WARMUP_S) * 1000;
  const endAt = measureFrom + SECONDS * 1000;
  sleep((RAMP_S * (vu - 1)) / TWINS); // spread the connects over RAMP_S seconds
  const headers = { Authorization: `Bearer ${TOKEN}` };
  if (PROTOCOL) headers['Sec-WebSocket-Protocol'] = PROTOCOL;
  const res = ws.connect(URL, { headers }, (socket) => {
    let pending = null; // {seq, value, t0}
    const send = () => {
      if (Date.now() >= endAt) { socket.close(); return; }
      value += 1;
      seq += 1;
      pending = { seq, value, t0: Date.now() };
      socket.send(JSON.stringify({ v: 1, k: 'probe', src, seq, ts: Date.now(), d: { [slot]: value } }));
      const asked = pending;
      socket.setTimeout(() => { if (pending === asked) { timeouts.add(1); pending = null; next(); } }, TIMEOUT_MS);
    };
    const next = () => socket.setTimeout(send, think());
    const done = (p) => {
      if (p.t0 >= measureFrom) rtt.add(Date.now() - p.t0); else rttWarm.add(Date.now() - p.t0);
      pending = null;
      next();
    };
    socket.on('open', () => socket.setTimeout(send, Math.random() * THINK_MS));
    socket.on('binaryMessage', () => binary.add(1));
    socket.on('message', (data) => {
      if (!pending || data.indexOf(mine) < 0) return; // the fan-out: skipped unparsed
      let env;
      try { env = JSON.parse(data); } catch (e) { return; }
      if (!env.ref || env.ref.src !== src || env.ref.seq !== pending.seq) return; // an answer given up on
      if (env.k === 'err') {
        errors.add(1, { code: String(env.e && env.e.code) });
        pending = null;
        next();
        return;
      }
      if (env.k !== 'probe-res' || !env.d || env.d[slot] === undefined) return;
      if (env.d[slot] !== pending.value) { wrong.add(1); return; }
      done(pending);
    });
    socket.setTimeout(() => socket.close(), endAt - Date.now() + TIMEOUT_MS);
  });
  if (!res || res.status !== 101) connectFailed.add(1);
}
