'use strict';
/**
 * A real browser for the browser twin: Debian's Chromium driven by playwright-core (a dev
 * dependency; scripts/system-deps.sh installs chromium where it is missing). Shared by the page's
 * end-to-end test and the benchmark's twin-side cost.
 *
 * Chromium runs headless with a fresh profile and without its own network traffic (without
 * --disable-background-networking and friends it floods a closed network with update and sync
 * requests). WebGL: there is no GPU here, so it renders through SwiftShader, Chromium's software
 * GL (--use-angle=swiftshader; --enable-unsafe-swiftshader lets WebGL use it).
 */
// The functions handed to page.evaluate and page.waitForFunction run in the page: its globals.
/* global window */
const fs = require('node:fs');
const { codedError } = require('../../nodes/lib/core/errors');

/** Error with a stable `code`. */
const BrowserError = codedError('BrowserError');

const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
  '--enable-precise-memory-info', // performance.memory exact, not bucketed
];

/** Where Chromium is: S7T_CHROMIUM, else Debian's. */
function chromiumPath() {
  return process.env.S7T_CHROMIUM || '/usr/bin/chromium';
}

/**
 * Launch Chromium (playwright gives it a fresh temporary profile).
 * @returns {Promise<import('playwright-core').Browser>}
 * @throws {BrowserError} E_NO_BROWSER when Chromium or playwright-core is missing
 */
async function launchChromium() {
  const exe = chromiumPath();
  if (!fs.existsSync(exe)) throw new BrowserError('E_NO_BROWSER', `no Chromium at ${exe} (bash scripts/system-deps.sh installs Debian's, or set S7T_CHROMIUM)`);
  let chromium;
  try {
    ({ chromium } = require('playwright-core'));
  } catch (err) {
    throw new BrowserError('E_NO_BROWSER', `playwright-core is not installed (a dev dependency): ${err.message}`);
  }
  return chromium.launch({ executablePath: exe, args: ARGS });
}

/**
 * Open the browser twin in a new page and connect it, as a user does: type the token (and the
 * MQTT user), choose the protocol, press Connect. Page errors are collected.
 * @param {object} browser
 * @param {object} o
 * @param {string} o.url page URL (…/s7twin/ui/), query parameters allowed
 * @param {string} o.token
 * @param {'ws'|'mqttws'|'http'} [o.protocol]
 * @param {{user:string, password:string}} [o.mqtt]
 * @param {{width:number, height:number}} [o.viewport]
 * @param {boolean} [o.wait] wait until connected (default true)
 * @returns {Promise<{page: object, errors: string[], context: object}>}
 */
async function openTwinPage(browser, o) {
  const context = await browser.newContext({ viewport: o.viewport || { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(o.url);
  await page.waitForFunction(() => window.s7twin && window.s7twin.ready, null, { timeout: 60000 });
  await page.fill('#token', o.token);
  await page.check(`input[name=protocol][value="${o.protocol || 'ws'}"]`);
  if (o.mqtt && o.protocol === 'mqttws') {
    await page.fill('#mqtt-user', o.mqtt.user);
    await page.fill('#mqtt-pass', o.mqtt.password);
  }
  await page.click('#connect-btn');
  if (o.wait !== false) await waitSnapshot(page, (s) => s.connection.connected, 60000);
  return { page, errors, context };
}

/**
 * Wait until the page's snapshot satisfies `pred` (evaluated in Node on the snapshot the page
 * reports); returns that snapshot.
 */
async function waitSnapshot(page, pred, timeoutMs = 60000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const last = await page.evaluate(() => window.s7twin.snapshot());
    if (last && pred(last)) return last;
    if (Date.now() > end) {
      const seen = last && {
        mode: last.mode, connection: last.connection, counts: last.counts, counters: last.counters, feed: last.feed, log: last.log.slice(-12),
      };
      throw new BrowserError('E_PAGE_TIMEOUT', `the page did not get there within ${timeoutMs} ms; last snapshot: ${JSON.stringify(seen)}`);
    }
    await page.waitForTimeout(100);
  }
}

/**
 * What each page last showed (its snapshot with the whole log, and its scene), for a failed test's
 * output: a page that did not get somewhere says why only beside the other pages.
 * @param {{diagnostic(line: string): void}} t the test context
 * @param {Object<string, {page: object}>} pages by name
 */
async function dumpPages(t, pages) {
  for (const [name, p] of Object.entries(pages)) {
    if (!p) continue;
    const seen = await p.page.evaluate(() => ({ snapshot: window.s7twin.snapshot(), scene: window.s7twin.scene() })).catch((err) => err.message);
    t.diagnostic(`page ${name}: ${JSON.stringify(seen)}`);
  }
}

/** CPU seconds of Chromium's processes so far, by type (browser, renderer, GPU, …). */
async function processCpu(browserCdp) {
  const { processInfo } = await browserCdp.send('SystemInfo.getProcessInfo');
  const out = {};
  for (const p of processInfo) out[p.type] = (out[p.type] || 0) + p.cpuTime;
  return out;
}

/** The JS heap of the page's workers (Runtime.getHeapUsage through the page's CDP session), bytes. */
async function workerHeap(cdp) {
  const workers = [];
  const replies = new Map();
  const onAttach = (ev) => { if (ev.targetInfo.type === 'worker') workers.push(ev.sessionId); };
  const onMsg = (ev) => { try { const m = JSON.parse(ev.message); if (m.id) replies.set(`${ev.sessionId}:${m.id}`, m.result); } catch { /* not ours */ } };
  cdp.on('Target.attachedToTarget', onAttach);
  cdp.on('Target.receivedMessageFromTarget', onMsg);
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
  let total = 0;
  for (const sid of workers) {
    await cdp.send('Target.sendMessageToTarget', { sessionId: sid, message: JSON.stringify({ id: 1, method: 'Runtime.getHeapUsage' }) });
    const end = Date.now() + 5000;
    while (!replies.has(`${sid}:1`) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    const r = replies.get(`${sid}:1`);
    if (r) total += r.usedSize;
  }
  cdp.off('Target.attachedToTarget', onAttach);
  cdp.off('Target.receivedMessageFromTarget', onMsg);
  return workers.length ? total : null;
}

/**
 * The twin-side cost of the browser twin over one protocol, as the study measured its Unity twin
 * with the Unity Profiler: a fresh page drives the plant (Start, boxes fed automatically) for
 * `seconds`, after a warm-up, and reports the page's frame intervals and the work of each frame
 * on the main thread, long tasks (PerformanceObserver 'longtask'), the JS heap of the page and of
 * its worker (CDP), Chromium's CPU by process type over the window, and the round trips the page
 * itself measured (input event → PLC output, in its worker).
 * @param {object} browser launchChromium()
 * @param {object} o openTwinPage options plus seconds, warmupS, feedPerMinute
 * @returns {Promise<object>}
 */
async function measureTwinPage(browser, o) {
  const seconds = o.seconds || 20;
  const { page, errors, context } = await openTwinPage(browser, o);
  const browserCdp = await browser.newBrowserCDPSession();
  try {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    let s = await waitSnapshot(page, (x) => x.mode === 'driving' && x.counts.good !== null, 60000);
    if (!s.lamps.green) {
      await page.click('#start');
      await waitSnapshot(page, (x) => x.lamps.green, 30000);
    }
    await page.evaluate((rate) => window.s7twin.act('setAutoFeed', rate, 0.3), o.feedPerMinute || 120);
    await page.waitForTimeout((o.warmupS ?? 3) * 1000);
    const cpu0 = await processCpu(browserCdp);
    s = await page.evaluate(() => { window.s7twin.perf.reset(); return window.s7twin.snapshot(); });
    const t0 = Date.now();
    await page.waitForTimeout(seconds * 1000);
    const perf = await page.evaluate(() => window.s7twin.perf.get());
    const s1 = await page.evaluate(() => window.s7twin.snapshot());
    const dt = (Date.now() - t0) / 1000;
    const cpu1 = await processCpu(browserCdp);
    const m1 = await cdp.send('Performance.getMetrics');
    const metric = (m, name) => (m.metrics.find((x) => x.name === name) || {}).value;
    const wHeap = await workerHeap(cdp);
    await page.evaluate(() => window.s7twin.act('setAutoFeed', 0));
    await page.click('#stop');
    await waitSnapshot(page, (x) => !x.lamps.green, 30000).catch(() => {});
    // Disconnect as a user would, so the page releases what it holds (the stop button, the
    // driver lease) before the next page comes.
    await page.click('#disconnect');
    await page.waitForFunction(() => window.s7twin.closed === true, null, { timeout: 10000 }).catch(() => {});
    const cpu = {};
    for (const k of Object.keys(cpu1)) cpu[k] = (100 * (cpu1[k] - (cpu0[k] || 0))) / dt;
    return {
      protocol: o.protocol || 'ws',
      seconds: dt,
      frames: perf.intervals.length,
      frameIntervals: perf.intervals,
      frameWork: perf.work,
      longTasks: perf.longTasks,
      longTaskMs: perf.longTaskMs,
      heapBytes: metric(m1, 'JSHeapUsedSize') ?? perf.heap,
      workerHeapBytes: wHeap,
      cpuPct: cpu,
      rtt: perf.rtt,
      boxes: (s1.counts.good + s1.counts.rejected) - (s.counts.good + s.counts.rejected),
      connection: s1.connection,
      webgl: perf.webgl,
      software: perf.software,
      pixelRatio: perf.pixelRatio,
      errors,
    };
  } finally {
    await browserCdp.detach().catch(() => {});
    await context.close();
  }
}

module.exports = { ARGS, BrowserError, chromiumPath, launchChromium, openTwinPage, waitSnapshot, dumpPages, measureTwinPage, processCpu };
