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
const fs = require('node:fs');
const { codedError } = require('../../nodes/lib/errors');

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
  try { ({ chromium } = require('playwright-core')); } catch (err) { throw new BrowserError('E_NO_BROWSER', `playwright-core is not installed (a dev dependency): ${err.message}`); }
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
  if (o.mqtt) {
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
  let last = null;
  for (;;) {
    last = await page.evaluate(() => window.s7twin.snapshot());
    if (last && pred(last)) return last;
    if (Date.now() > end) throw new BrowserError('E_PAGE_TIMEOUT', `the page did not get there within ${timeoutMs} ms; last snapshot: ${JSON.stringify(last && { mode: last.mode, connection: last.connection, counts: last.counts, log: last.log.slice(-5) })}`);
    await page.waitForTimeout(100);
  }
}

module.exports = { ARGS, BrowserError, chromiumPath, launchChromium, openTwinPage, waitSnapshot };
