// k6 load script: the benchmark's load (bench/lib/load.js) from an independent generator.
// N virtual twins (one k6 VU each, its own WebSocket to the cloud twin endpoint, its own PLC probe
// slot), one probe in flight, a think time between probes; each probe writes a fresh value to the
// twin's request slot and is timed until that exact value comes back on its response slot.
//
//   .tools/bin/k6 run -e URL=ws://127.0.0.1:1880/s7twin/twin -e TOKEN=dev-twin-token \
//     -e TWINS=1000 -e SECONDS=25 bench/k6/ws-probes.js
//
// Frames not addressed to this VU (the plant's states and snapshots go to every twin) are
// skipped by a text search, without parsing: 1,000 VUs parsing every frame of the fan-out were
// this script's own floor (p99 ~400 ms against the echo endpoint), not k6's garbage collector.
// Check the floor against bench/k6/echo-server.js before trusting a figure.
//
// Env: URL, TOKEN, TWINS (1000), SECONDS (25, the measured part), THINK_MS (500), THINK
// (exp: exponential, mean THINK_MS, the default; uniform: 0.5-1.5 x THINK_MS like
// bench/lib/load.js), SLOT_BASE (1), WARMUP_S (5: probes answered before this many seconds are
// kept apart as probe_rtt_warmup, as a start-up burst is not the steady state), TIMEOUT_MS (5000).
// Metrics: probe_rtt (ms, after the warm-up), probe_rtt_warmup, probe_timeouts, probe_wrong.
// docs/bench.md "An independent load generator (k6)".
import ws from 'k6/ws';
import { Trend, Counter } from 'k6/metrics';
import exec from 'k6/execution';
import { sleep } from 'k6';

const E = (k, d) => (__ENV[k] === undefined || __ENV[k] === '' ? d : __ENV[k]);
const URL = E('URL', 'ws://127.0.0.1:1880/s7twin/twin');
const TOKEN = E('TOKEN', 'dev-twin-token');
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
const wrong = new Counter('probe_wrong');

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
  const mine = `"src":"${src}"`; // in the ref of this VU's probe answers (the JSON envelope)
  let seq = 0;
  let value = vu * 1000000; // fresh values per slot, never repeated
  const t0 = exec.scenario.startTime; // ms since the epoch, the same for every VU
  const measureFrom = t0 + (RAMP_S + WARMUP_S) * 1000;
  const endAt = measureFrom + SECONDS * 1000;
  sleep((RAMP_S * (vu - 1)) / TWINS); // spread the connects over RAMP_S seconds
  ws.connect(URL, { headers: { Authorization: `Bearer ${TOKEN}` } }, (socket) => {
    let pending = null; // {value, t0, timer}
    const send = () => {
      if (Date.now() >= endAt) { socket.close(); return; }
      value += 1;
      seq += 1;
      pending = { value, t0: Date.now() };
      socket.send(JSON.stringify({ v: 1, k: 'probe', src, seq, ts: Date.now(), d: { [slot]: value } }));
      const mine = pending;
      socket.setTimeout(() => { if (pending === mine) { timeouts.add(1); pending = null; next(); } }, TIMEOUT_MS);
    };
    const next = () => socket.setTimeout(send, think());
    socket.on('open', () => socket.setTimeout(send, Math.random() * THINK_MS));
    socket.on('message', (data) => {
      // Only this twin's probe answers are read: a text search, not a parse, for every other frame.
      if (!pending || data.indexOf('"probe-res"') < 0 || data.indexOf(mine) < 0) return;
      let env;
      try { env = JSON.parse(data); } catch (e) { return; }
      if (env.k !== 'probe-res' || !env.d || env.d[slot] === undefined || !pending) return;
      const v = env.d[slot];
      if (v !== pending.value) { if (v > pending.value) wrong.add(1); return; }
      const ms = Date.now() - pending.t0;
      if (pending.t0 >= measureFrom) rtt.add(ms); else rttWarm.add(ms);
      pending = null;
      next();
    });
    socket.setTimeout(() => socket.close(), endAt - Date.now() + TIMEOUT_MS);
  });
}
