'use strict';
/**
 * Per-channel limits on the cloud OPC UA server (channel-limits.js): a twin that floods the server with
 * requests is answered with a ServiceFault that says why and disconnected, while a well-behaved
 * twin keeps getting its answers; the edge account is exempt; a channel whose requests keep
 * failing spends its error budget and is closed.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { OPCUAClient, OPCUACertificateManager, UserTokenType, AttributeIds, StatusCodes } = require('node-opcua');
const { createOpcuaServer } = require('../../../../nodes/lib/opcua/server');
const { freePort, waitFor } = require('../../../helpers/nodered');
const { pkiDir } = require('../../../helpers/opcua');

const TWIN = { user: 'twin', password: 'twin' };
const EDGE = { user: 'edge', password: 'edge' };

async function session(t, url, creds) {
  const client = OPCUAClient.create({
    endpointMustExist: false,
    connectionStrategy: { maxRetry: 0, initialDelay: 100, maxDelay: 200 },
    clientCertificateManager: new OPCUACertificateManager({ rootFolder: pkiDir('limits-client'), automaticallyAcceptUnknownCertificate: true }),
  });
  const closed = new Promise((r) => client.once('close', r));
  await client.connect(url);
  const s = await client.createSession({ type: UserTokenType.UserName, userName: creds.user, password: creds.password });
  t.after(async () => { await s.close().catch(() => {}); await client.disconnect().catch(() => {}); });
  return { client, session: s, closed };
}

async function startServer(t, opts) {
  const srv = createOpcuaServer({ host: '127.0.0.1', port: await freePort(), pkiDir: pkiDir('limits-server'), ...opts });
  await srv.start();
  t.after(() => srv.stop());
  return srv;
}

test('a flooding twin gets BadTcpServerTooBusy with the reason and is closed; a well-behaved twin keeps its answers', async (t) => {
  const srv = await startServer(t, { ratePerS: 50, burst: 100 });
  const limited = [];
  srv.on('limited', (ev) => limited.push(ev));
  const good = await session(t, srv.endpointUrl, TWIN);
  const flood = await session(t, srv.endpointUrl, TWIN);
  const nodeId = srv.nodeIdOf('st');

  // The flooder: 2,000 reads at once, never waiting for an answer.
  const results = await Promise.all(Array.from({ length: 2000 }, () => flood.session.read({ nodeId, attributeId: AttributeIds.Value }).then(
    (dv) => (dv.statusCode.isGood() ? 'good' : dv.statusCode.name),
    (err) => String(err.message),
  )));
  // Meanwhile and after, the well-behaved twin reads one at a time and always gets its answer.
  for (let i = 0; i < 30; i += 1) {
    const dv = await good.session.read({ nodeId, attributeId: AttributeIds.Value });
    assert.ok(dv.statusCode.isGood(), `read ${i} answered`);
  }
  assert.ok(results.includes('good'), 'the flooder was served up to its burst');
  assert.ok(results.some((r) => /BadTcpServerTooBusy|E_RATE_LIMIT/.test(r)), `the flooder was told why: ${[...new Set(results)].slice(0, 4).join(' | ')}`);
  assert.equal(srv.counters.rateLimited, 1);
  assert.equal(limited[0].code, 'E_RATE_LIMIT');
  await flood.closed; // its channel was closed
});

test('the edge account is exempt from the rate; a twin whose writes keep being denied spends its error budget', async (t) => {
  const srv = await startServer(t, { ratePerS: 20, burst: 20, errors: 5, errorWindowMs: 60000 });
  const edge = await session(t, srv.endpointUrl, EDGE);
  const nodeId = srv.nodeIdOf('c1');
  const many = await Promise.all(Array.from({ length: 300 }, () => edge.session.read({ nodeId, attributeId: AttributeIds.Value })));
  assert.ok(many.every((dv) => dv.statusCode.isGood()), 'the edge is never limited');
  assert.equal(srv.counters.rateLimited, 0);

  const twin = await session(t, srv.endpointUrl, TWIN);
  const outcomes = [];
  for (let i = 0; i < 10; i += 1) {
    try {
      // c1 is a state: the twin may not write it (BadUserAccessDenied), one refused request each.
      const sc = await twin.session.write({ nodeId, attributeId: AttributeIds.Value, value: { value: { dataType: 'Boolean', value: true } } });
      outcomes.push(sc.name);
    } catch (err) {
      outcomes.push('closed');
      break;
    }
  }
  await waitFor(() => srv.counters.errorBudget === 1, 10000, 'the error budget spent');
  await twin.closed;
  assert.equal(outcomes.filter((o) => o === StatusCodes.BadUserAccessDenied.name).length >= 5, true, outcomes.join(','));
  assert.ok(outcomes.length < 10 || outcomes.includes('closed'), `the channel was closed before the tenth denied write: ${outcomes.join(',')}`);
});
