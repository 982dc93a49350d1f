'use strict';
/**
 * The study's edit of node-red-contrib-opcua (section 5.2: the server node's variables sampled
 * every 50 ms instead of the 500 ms hard-coded in 104-opcuaserver.js), applied by the preload
 * bench/lib/stock-opcua-sampling.js when a run asks for it: variables the node adds with 500 get
 * the asked interval, others keep theirs, and without the variable nothing changes. A bad
 * --stock-opcua-sampling is refused before anything starts.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { execFile } = require('node:child_process');
const { promisify } = require('node:util');
const { runBench } = require('../../bench/run');

const ROOT = path.join(__dirname, '..', '..');
const PRELOAD = path.join(ROOT, 'bench', 'lib', 'stock-opcua-sampling.js');

/** Adds two variables (asked 500 and 1000 ms) through the node-opcua that the contrib node loads. */
const PROBE = `
const path = require('node:path');
const contrib = path.dirname(require.resolve('node-red-contrib-opcua/package.json', { paths: [${JSON.stringify(ROOT)}] }));
const opcua = require(require.resolve('node-opcua', { paths: [contrib] }));
(async () => {
  const as = opcua.AddressSpace.create();
  await opcua.generateAddressSpace(as, [opcua.nodesets.standard]);
  const ns = as.registerNamespace('urn:t');
  const a = ns.addVariable({ browseName: 'a', dataType: 'Double', minimumSamplingInterval: 500 });
  const b = ns.addVariable({ browseName: 'b', dataType: 'Double', minimumSamplingInterval: 1000 });
  process.stdout.write(JSON.stringify([a.minimumSamplingInterval, b.minimumSamplingInterval]));
  as.dispose();
})();`;

async function sampled(env) {
  const { stdout } = await promisify(execFile)(process.execPath, ['--require', PRELOAD, '-e', PROBE], {
    cwd: ROOT, env: { ...process.env, S7T_STOCK_OPCUA_MIN_SAMPLING_MS: '', ...env }, timeout: 120000,
  });
  return JSON.parse(stdout);
}

test('with the option the contrib server\'s 500 ms variables get the asked interval, others keep theirs', async () => {
  assert.deepEqual(await sampled({ S7T_STOCK_OPCUA_MIN_SAMPLING_MS: '50' }), [50, 1000]);
});

test('without the option (or with a value that is no interval) the node runs as installed', async () => {
  assert.deepEqual(await sampled({}), [500, 1000]);
  assert.deepEqual(await sampled({ S7T_STOCK_OPCUA_MIN_SAMPLING_MS: 'fast' }), [500, 1000]);
});

test('a bad --stock-opcua-sampling is refused before anything starts', async () => {
  for (const bad of [Number.NaN, -1]) {
    await assert.rejects(runBench({ stockOpcuaSamplingMs: bad, log: () => {} }), { code: 'E_BENCH_ARGS', message: /stock-opcua-sampling/ });
  }
});
