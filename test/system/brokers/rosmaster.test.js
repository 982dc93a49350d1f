'use strict';
/**
 * The ROS 1 master the protocol study starts (system/brokers/rosmaster.js): Debian's rosmaster on
 * a free loopback port, answering the master's XML-RPC API, listening on loopback only, and gone
 * with its private folder once stopped. Needs python3-rosmaster (scripts/study-deps.sh).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const { startRosMaster } = require('../../../system/brokers/rosmaster');
const { listeningAddresses } = require('../../helpers/listening');

/** One XML-RPC call to the master; the response body. */
function xmlRpc(url, method, params) {
  const values = params.map((p) => `<param><value><string>${p}</string></value></param>`).join('');
  const body = `<?xml version="1.0"?><methodCall><methodName>${method}</methodName><params>${values}</params></methodCall>`;
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'text/xml' } }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve(text));
    });
    req.once('error', reject);
    req.end(body);
  });
}

const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };

test('rosmaster starts on a free loopback port, answers its API, and is gone once stopped', async (t) => {
  const m = await startRosMaster({});
  t.after(() => m.stop());
  assert.match(m.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.deepEqual(Object.keys(m.env).sort(), ['ROS_HOME', 'ROS_HOSTNAME', 'ROS_LOG_DIR', 'ROS_MASTER_URI']);
  assert.equal(m.env.ROS_MASTER_URI, m.url);
  const uri = await xmlRpc(m.url, 'getUri', ['/study-test']);
  assert.ok(uri.includes(`${m.port}`), `getUri names the master's own port: ${uri}`);
  assert.ok(listeningAddresses(m.port).every((a) => /^(127\.|::1$|::ffff:127\.)/.test(a)), 'loopback only');
  await m.stop();
  assert.equal(alive(m.pid), false, 'the master process is gone');
  assert.equal(fs.existsSync(m.env.ROS_HOME), false, 'its private folder is removed');
});

test('a port that is not a port is refused before anything starts', async () => {
  await assert.rejects(startRosMaster({ port: 70000 }), { code: 'E_BROKER_OPTION' });
});
