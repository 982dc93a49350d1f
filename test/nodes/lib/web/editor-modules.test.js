'use strict';
/**
 * The table module as the I/O table node's editor gets it (nodes/lib/web/editor-modules.js, on
 * the files cache of nodes/lib/web/files.js): one script, run in a context with only what a
 * browser page has, gives the runtime's own checks, CSV and TIA readers and writers; served
 * gzipped and revalidated by ETag.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const vm = require('node:vm');
const zlib = require('node:zlib');
const { createEditorModules } = require('../../../../nodes/lib/web/editor-modules');
const table = require('../../../../nodes/lib/core/io-table');

async function serve(t) {
  const mods = createEditorModules();
  const server = http.createServer((req, res) => mods.handle(req, res));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => { server.closeAllConnections(); server.close(r); }));
  return { url: `http://127.0.0.1:${server.address().port}/modules.js`, mods };
}

test('the editor\'s script is the runtime\'s table module: the same findings, imports and exports', async (t) => {
  const { url, mods } = await serve(t);
  const res = await fetch(url);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /javascript/);
  const text = await res.text();
  const page = vm.createContext({ console, URL, TextEncoder, TextDecoder });
  page.self = page;
  vm.runInContext(text, page);
  const R = page.S7Twin.require;
  const T = R('nodes/lib/core/io-table.js');
  const csv = R('nodes/lib/core/table/csv.js');
  const bad = { tags: [{ name: 'A', short: 'a', type: 'INT', s7: 'DB1,INT1' }, { name: 'B', short: 'b', type: 'REAL', s7: 'DB1.DBD0', min: -1e39 }] };
  assert.deepEqual(JSON.parse(JSON.stringify(T.validateTable(bad))), table.validateTable(bad), 'the findings the runtime refuses a table with');
  const tank = table.demoTable().definition;
  assert.equal(T.toCsv(tank), table.toCsv(tank));
  assert.equal(T.toTiaSource(tank), table.toTiaSource(tank));
  assert.deepEqual(JSON.parse(JSON.stringify(csv.modbusCell('0.3', 'x'))), { reg: 0, bit: 3 });
  assert.equal(csv.timedText({ trigger: 'vlv', value: 1 }), 'vlv=1');
  assert.throws(() => T.loadTable({ file: 'x.json' }), /not available in the browser/, 'what reads files is not for the editor');
  assert.equal(mods.counters.files, 1);

  const again = await fetch(url, { headers: { 'If-None-Match': res.headers.get('etag') } });
  assert.equal(again.status, 304, 'revalidated by ETag');
  assert.equal(mods.counters.notModified, 1);
  const gz = await new Promise((resolve, reject) => http.get(url, { headers: { 'Accept-Encoding': 'gzip' } }, (r) => {
    const chunks = [];
    r.on('data', (c) => chunks.push(c));
    r.on('end', () => resolve({ enc: r.headers['content-encoding'], body: Buffer.concat(chunks) }));
  }).on('error', reject));
  assert.equal(gz.enc, 'gzip');
  assert.equal(zlib.gunzipSync(gz.body).toString('utf8'), text);
});
