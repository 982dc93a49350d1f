'use strict';
/** nodes/lib/opcua/client-pki.js: one certificate manager per folder, the folder's certificate made once. */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const pki = require('../../../../nodes/lib/opcua/client-pki');

const fakeOpcua = { OPCUACertificateManager: class { constructor(o) { this.options = o; } } };

test('one manager per folder, which is created; another folder gets its own', (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 's7twin-pki-test-'));
  t.after(() => { fs.rmSync(root, { recursive: true, force: true }); pki.resetCertificateManagers(); });
  const a = path.join(root, 'a');
  const cm = pki.certificateManager(fakeOpcua, a);
  assert.ok(fs.existsSync(a));
  assert.equal(cm.options.rootFolder, a);
  assert.equal(cm.options.automaticallyAcceptUnknownCertificate, true);
  assert.equal(pki.certificateManager(fakeOpcua, a), cm);
  assert.notEqual(pki.certificateManager(fakeOpcua, path.join(root, 'b')), cm);
  pki.resetCertificateManagers();
  assert.notEqual(pki.certificateManager(fakeOpcua, a), cm, 'forgotten after a reset');
});

test('the first client of a folder makes the certificate, the others wait for it; a failure is forgotten', async (t) => {
  t.after(() => pki.resetCertificateManagers());
  const dir = path.join(os.tmpdir(), 's7twin-pki-test-ready');
  let made = 0;
  let fail = true;
  const client = { initializeCM: async () => { made += 1; if (fail) throw new Error('half-written key'); } };
  await assert.rejects(pki.certificateReady(client, dir), /half-written/);
  fail = false;
  await Promise.all([pki.certificateReady(client, dir), pki.certificateReady(client, dir), pki.certificateReady(client, dir)]);
  assert.equal(made, 2, 'tried again after the failure, then once for three clients');
});
