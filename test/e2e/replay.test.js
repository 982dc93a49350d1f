'use strict';
/**
 * The browser twin's replay in a real browser (Debian's Chromium, playwright-core) against the
 * running system: the virtual PLC, the edge and the cloud Node-RED with the project's flows. A
 * page drives the plant and sorts boxes; another sender commands over REST and a viewer is
 * refused; the edge and then the cloud restart. A second page then picks that past window, plays
 * it at 16×: the boxes move in its 3D scene and are sorted as they were, the counters are the
 * PLC's, the commands are marked on the timeline with their senders, the edge's snapshots of both
 * restarts are on the track; it steps frame by frame from the keyboard, fits a phone's width,
 * sends nothing while it replays, and Live brings the present back. Screenshots are kept in
 * results/test-artifacts/ (replay.png, replay-phone.png).
 *
 * Every wait is for a condition, with generous limits: the page renders WebGL in software and the
 * machine is shared.
 */
// The functions handed to page.evaluate and page.waitForFunction run in the page: its globals.
/* global window, document */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startWsSystem, dumpSystem, TOKENS } = require('../helpers/system');
const { waitFor } = require('../../system/wait');
const { nodeStats } = require('../helpers/nodered');
const { tokenId } = require('../../nodes/lib/access/auth');
const { launchChromium, openTwinPage, waitSnapshot, dumpPages } = require('../../bench/lib/browser');

const ROOT = path.join(__dirname, '..', '..');
const ARTIFACTS = path.join(ROOT, 'results', 'test-artifacts');

/** The replay's state as the page reports it. */
const replayOf = (page) => page.evaluate(() => window.s7twin.replay());

async function waitReplay(page, pred, timeoutMs = 60000, what = 'the replay') {
  return waitFor(async () => { const r = await replayOf(page); return pred(r) && r; }, timeoutMs, what, 100);
}

test('replay: a past window plays again in the 3D twin, commands marked with their senders, across restarts; Live returns', { timeout: 600000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-replay-e2e-'));
  // The history and the command log outside the cloud's user directory: a restarted cloud finds them, as a real one finds its disk.
  const sys = await startWsSystem({
    cloudParts: ['cloud-ws', 'cloud-twin-ui'],
    env: { S7T_MQTT_WS_PORT: '', S7T_HISTORY_FILE: path.join(dir, 'history.sqlite'), S7T_AUDIT_FILE: path.join(dir, 'audit.jsonl') },
  });
  const browser = await launchChromium();
  t.after(async () => { await browser.close(); await sys.stop(); fs.rmSync(dir, { recursive: true, force: true }); });
  const url = `${sys.cloud.url}/s7twin/ui/?profile=fast`;
  const edgeUp = () => waitFor(async () => ((await nodeStats(sys.cloud)).edge || {}).connections >= 1, 60000, 'the edge connected to the cloud');
  const history = async (query, token = TOKENS.twin) => {
    const res = await fetch(`${sys.cloud.url}/s7twin/history?plant=plant1&${query}`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200, await res.clone().text());
    return res.json();
  };
  const rest = (token, src, d) => fetch(`${sys.cloud.url}/s7twin/rest/cmd`, {
    method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: JSON.stringify({ v: 1, k: 'cmd', src, seq: Date.now(), ts: Date.now(), d }),
  });

  // On a failure, what every page last showed (its whole log) goes to the test's output.
  const pages = {};
  try {
    // ---- the past: a page drives and sorts three boxes; another sender and a viewer command over REST
    const a = await openTwinPage(browser, { url, token: TOKENS.twin });
    pages.a = a;
    let s = await waitSnapshot(a.page, (x) => x.mode === 'driving' && x.counts.good !== null);
    const g0 = s.counts.good;
    const r0 = s.counts.rejected;
    const from = Date.now() - 1000;
    await a.page.click('#start');
    await waitSnapshot(a.page, (x) => x.lamps.green);
    assert.equal((await rest(TOKENS.twin, 'line-mes', { st: 1 })).status, 200, 'another sender: written');
    assert.equal((await rest(TOKENS.viewer, 'viewer-tool', { sp: 1 })).status, 403, 'a viewer: refused (logged as rest-viewer: its body is not read)');
    await a.page.click('#feed-good');
    await a.page.click('#feed-bad');
    await a.page.click('#feed-good');
    await waitSnapshot(a.page, (x) => x.counts.good === g0 + 2 && x.counts.rejected === r0 + 1, 120000);
    await waitSnapshot(a.page, (x) => x.feed.waiting === 0 && x.counts.boxesIn !== null, 30000);
    const sorted = await sys.plc.values();
    const driverSrc = (await history(`from=${from}&commands=1`)).commands.find((c) => c.values && c.values.se === 1).src;
    assert.match(driverSrc, /web-/, 'the driving page\'s sensor inputs are its commands');

    // ---- the edge restarts, then the cloud: the history and the log are kept; after each restart
    // the edge's snapshot (sent when it is connected again) is in the history
    const snapSince = (t0) => waitFor(async () => (await history(`from=${t0}`)).states.some((f) => f.k === 'snap'), 60000, 'the edge\'s snapshot');
    let restartAt = Date.now();
    await sys.startEdge();
    await snapSince(restartAt);
    restartAt = Date.now();
    await sys.startCloud();
    await edgeUp();
    await snapSince(restartAt);
    await waitSnapshot(a.page, (x) => x.connection.connected && x.connection.reconnects >= 1 && x.mode === 'driving', 120000);
    const to = Date.now();
    const kept = await history(`from=${from}&to=${to}&commands=1`, TOKENS.viewer);
    assert.ok(kept.states.filter((f) => f.k === 'snap').length >= 2, 'both snapshots in the window');
    assert.ok(kept.commands.some((c) => c.src === 'line-mes') && kept.commands.some((c) => c.src === driverSrc), 'the log outlived the cloud\'s restart');

    // ---- a second page (a twin token: it watches) replays that window
    const b = await openTwinPage(browser, { url, token: TOKENS.twin });
    pages.b = b;
    await waitSnapshot(b.page, (x) => x.mode === 'watching');
    await b.page.waitForFunction(() => !document.getElementById('replay-load').disabled, null, { timeout: 30000 });
    const local = (ms) => b.page.evaluate((x) => window.S7Twin.require('twin/browser/timeline.js').toLocalInput(x), ms);
    await b.page.fill('#replay-from', await local(from));
    await b.page.fill('#replay-to', await local(to + 1000));
    await b.page.click('#replay-load');
    let r = await waitReplay(b.page, (x) => x.window && x.state, 60000, 'the window loaded');
    assert.equal(r.replaying, true);
    assert.ok(r.window.frames > 20 && r.window.commands >= 5, JSON.stringify(r.window));
    assert.equal(r.window.truncated, false);
    assert.ok(r.window.marks.snaps.length >= 2, 'both restarts\' snapshots on the track');
    assert.match(await b.page.textContent('#conn'), /^replay/);
    assert.equal(await b.page.isVisible('#replay-flag'), true, 'labelled replay');
    for (const id of ['#start', '#stop', '#feed-good', '#feed-bad', '#rate']) assert.equal(await b.page.isDisabled(id), true, `${id} off while replaying`);

    // The commands on the timeline, with their senders.
    const marks = await b.page.$$eval('#timeline-marks .tl-cmd', (els) => els.map((e) => e.title));
    assert.equal(marks.length, r.window.commands);
    const twinId = tokenId(TOKENS.twin);
    assert.ok(marks.some((m) => /StartButton=1 from line-mes \(twin token [0-9a-f]{12}, rest\): written$/.test(m) && m.includes(twinId)), marks.join('\n'));
    assert.ok(marks.some((m) => m.includes(`from rest-viewer (viewer token ${tokenId(TOKENS.viewer)}, rest): refused E_READ_ONLY`)), marks.join('\n'));
    assert.ok(marks.some((m) => m.includes(`from ${driverSrc} (twin token ${twinId}, ws): written`)));
    const senders = await b.page.textContent('#replay-senders');
    for (const src of [driverSrc, 'line-mes', 'rest-viewer']) assert.ok(senders.includes(src), `${src} in the legend: ${senders}`);

    // Play at 16×: the boxes move in the 3D scene and are sorted as they were; the counters are the PLC's.
    await b.page.check('input[name=replay-speed][value="16"]');
    await b.page.click('#replay-play');
    r = await waitReplay(b.page, (x) => x.state.ended, 120000, 'the replay reached the window\'s end');
    assert.equal(r.state.speed, 16);
    assert.ok(r.moved >= 1, `the scenes the page drew showed a box ride along a belt (${r.moved} moved)`);
    if (r.boxes.packed !== 2 || r.boxes.rejected !== 1) {
      // What the window held, for the failure's message: the rising edges the shadow follows.
      const rises = {};
      const last = {};
      for (const f of (await history(`from=${from}&to=${to + 1000}`)).states) {
        for (const [k, v] of Object.entries(f.d || {})) {
          if (['se', 'p1fw', 'p2fw', 'sd', 'dmg', 'sk'].includes(k) && v === 1 && last[k] !== 1) rises[k] = (rises[k] || 0) + 1;
          last[k] = v;
        }
      }
      assert.fail(`the replayed plant sorted ${JSON.stringify(r.boxes)}, the real one 2 packed, 1 rejected; the replay's own counters `
        + `${JSON.stringify(r.state.counters)}, window ${JSON.stringify(r.window)}, rising edges in the history ${JSON.stringify(rises)}`);
    }
    s = await b.page.evaluate(() => window.s7twin.snapshot());
    assert.deepEqual([s.counts.good, s.counts.rejected], [sorted.ng, sorted.nr], 'the PLC\'s counters at the window\'s end');
    fs.mkdirSync(ARTIFACTS, { recursive: true });

    // Frame by frame from the keyboard, on the position: back, then forward.
    await b.page.focus('#replay-pos');
    await b.page.keyboard.press(',');
    r = await waitReplay(b.page, (x) => x.state.pos < x.window.to && !x.state.playing, 30000, 'a step back');
    const back = r.state.pos;
    await b.page.keyboard.press(',');
    await waitReplay(b.page, (x) => x.state.pos < back, 30000, 'another step back');
    await b.page.keyboard.press('.');
    await waitReplay(b.page, (x) => x.state.pos === back, 30000, 'a step forward to the frame it came from');
    // A command's line in the list goes to its time; from there frame by frame until two boxes are on
    // the belts: the picture for the docs.
    const at = Number(await b.page.getAttribute('#replay-cmds button[data-at]', 'data-at'));
    await b.page.click('#replay-cmds button[data-at]');
    await waitReplay(b.page, (x) => x.state.pos === at, 30000, 'at the first command');
    await b.page.focus('#replay-pos');
    const rode = new Map(); // box id on conveyor 1 -> where the steps showed it first and last
    for (let i = 0; i < 400; i += 1) {
      const sc = await b.page.evaluate(() => window.s7twin.scene());
      for (const x of sc.c1) rode.set(x.id, { first: rode.has(x.id) ? rode.get(x.id).first : x.x, last: x.x });
      if (sc.c1.length + sc.c2.length >= 2) break;
      const pos = (await replayOf(b.page)).state.pos;
      await b.page.keyboard.press('.');
      await waitReplay(b.page, (x) => x.state.pos > pos, 30000, 'a step forward');
    }
    const shown = await b.page.evaluate(() => window.s7twin.scene());
    assert.ok(shown.c1.length + shown.c2.length >= 2, `two boxes on the belts: ${JSON.stringify(shown)}`);
    assert.ok([...rode.values()].some((v) => v.last > v.first), 'step by step, a box rode along conveyor 1');
    await b.page.screenshot({ path: path.join(ARTIFACTS, 'replay.png'), fullPage: true });
    await b.page.setViewportSize({ width: 390, height: 844 });
    assert.ok(await b.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'at 390 px nothing needs sideways scrolling');
    await b.page.screenshot({ path: path.join(ARTIFACTS, 'replay-phone.png'), fullPage: true });
    await b.page.setViewportSize({ width: 1280, height: 800 });

    // Nothing leaves a replaying page: a press through the page's API is dropped; a marker sent
    // after it is in the log, the press is not.
    await b.page.evaluate(() => window.s7twin.act('pressStop'));
    assert.equal((await rest(TOKENS.twin, 'marker', { st: 0 })).status, 200);
    const during = (await history(`from=${to}&commands=1`)).commands;
    assert.ok(during.some((c) => c.src === 'marker'));
    assert.deepEqual(during.filter((c) => c.src !== 'marker' && c.src !== driverSrc), [], 'no command from the replaying page');
    assert.equal((await sys.plc.values()).grn, 1, 'the plant still runs');

    // Live: the present at once, the controls back.
    await b.page.click('#replay-live');
    s = await waitSnapshot(b.page, (x) => x.connection && x.connection.connected && x.mode === 'watching', 30000);
    assert.equal((await replayOf(b.page)).replaying, false);
    assert.doesNotMatch(await b.page.textContent('#conn'), /replay/);
    assert.equal(await b.page.isDisabled('#stop'), false, 'Stop works again');
    assert.equal(await b.page.isHidden('#replay-flag'), true);
    const now = await sys.plc.values();
    assert.deepEqual([s.counts.good, s.counts.rejected], [now.ng, now.nr], 'the live plant\'s counters');
    await a.page.click('#stop');
    await waitSnapshot(b.page, (x) => !x.lamps.green, 30000);
  } catch (err) {
    await dumpPages(t, pages);
    await dumpSystem(t, sys);
    throw err;
  }
  for (const p of Object.values(pages)) assert.deepEqual(p.errors, [], 'no errors in the page');
});
