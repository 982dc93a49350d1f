// Does V8's sampling heap profiler, told to leave out objects collected by scavenges, count only
// what scavenges promote? A loop makes 2,000 small objects a millisecond, each dropped a
// millisecond later, and on about one tick in 20 keeps one for good; the profiler's total is printed. Compare
// it with what V8 itself says it promoted:
//   node --trace-gc-nvp profiler-check.js | grep -o ' promoted=[0-9]*' | awk -F= '{s+=$2} END {print s/1e6 " MB promoted"}'
//   node profiler-check.js                 (the profiler's total and its largest sites)
//   NOPROF=1 node --trace-gc-nvp …         (the same loop without the profiler)
const inspector = require('node:inspector');

const s = new inspector.Session();
s.connect();
const post = (m, p) => new Promise((res, rej) => s.post(m, p, (e, r) => (e ? rej(e) : res(r))));
const shortLived = () => ({ a: new Array(32).fill(1), b: `x${Math.random()}` });
const longLived = () => ({ a: new Array(32).fill(2), b: `y${Math.random()}` });

(async () => {
  const prof = !process.env.NOPROF;
  if (prof) {
    await post('HeapProfiler.enable');
    await post('HeapProfiler.startSampling', { samplingInterval: 8192, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false });
  }
  const keep = [];
  let held = [];
  const t0 = Date.now();
  await new Promise((done) => {
    const iv = setInterval(() => {
      held = [];
      for (let i = 0; i < 2000; i++) held.push(shortLived());
      if (Math.random() < 0.05) keep.push(longLived());
      if (Date.now() - t0 > 5000) { clearInterval(iv); done(); }
    }, 1);
  });
  if (!prof) return;
  const { profile } = await post('HeapProfiler.stopSampling');
  const by = {};
  let total = 0;
  (function walk(n) {
    const k = n.callFrame.functionName || '(anonymous)';
    by[k] = (by[k] || 0) + n.selfSize;
    total += n.selfSize;
    (n.children || []).forEach(walk);
  })(profile.head);
  console.error(`the profiler: ${(total / 1e6).toFixed(0)} MB not collected by scavenges (kept: ${keep.length} objects)`);
  for (const [k, v] of Object.entries(by).sort((a, b) => b[1] - a[1]).slice(0, 5)) console.error(`  ${(v / 1e6).toFixed(1)} MB ${k}`);
})();
