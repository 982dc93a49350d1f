// Preload: on SIGUSR2 start V8's sampling heap profiler counting objects a major GC collected
// (promoted, then dead); on the next SIGUSR2 stop and write the profile to HEAPSAMPLE_DIR.
const inspector = require('node:inspector');
const fs = require('node:fs');
const path = require('node:path');
const dir = process.env.HEAPSAMPLE_DIR || '/tmp';
let session = null;
function toggle() {
  if (!session) {
    session = new inspector.Session();
    session.connect();
    session.post('HeapProfiler.enable', () => session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false }, (err) => {
      if (err) console.error('heapsample start', err.message); else console.error(`heapsample started in ${process.pid}`);
    }));
    return;
  }
  session.post('HeapProfiler.stopSampling', (err, res) => {
    if (err) { console.error('heapsample stop', err.message); return; }
    const f = path.join(dir, `heap-${process.pid}.heapprofile`);
    fs.writeFileSync(f, JSON.stringify(res.profile));
    console.error(`heapsample written ${f}`);
    session.disconnect(); session = null;
  });
}
let state = 0; // 0 nothing, 1 started
setInterval(() => {
  const f = path.join(dir, 'go');
  const want = fs.existsSync(f) ? 1 : 0;
  if (want !== state) { state = want; toggle(); }
}, 300).unref();
