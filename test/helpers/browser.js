'use strict';
/**
 * A headless Chromium (Debian's, driven by playwright-core) for tests that use a real page: the
 * Node-RED editor. scripts/system-deps.sh installs chromium where it is missing.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');

const EXECUTABLE = process.env.S7T_CHROMIUM || '/usr/bin/chromium';

/**
 * Launch Chromium with a fresh profile; `close()` also removes the profile.
 * @returns {Promise<{browser: import('playwright-core').BrowserContext, page: () => Promise<import('playwright-core').Page>, close: () => Promise<void>}>}
 */
async function launchBrowser() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: EXECUTABLE,
    headless: true,
    viewport: { width: 1600, height: 1000 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  return {
    browser: context,
    page: () => context.newPage(),
    async close() {
      await context.close().catch(() => {});
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

module.exports = { launchBrowser };
