'use strict';
/**
 * A twin that owes the PLC an input while the edge is away (the browser's transport, which
 * resyncs at once after a doubtful answer) against the real cloud, edge and virtual PLC: every
 * attempt is refused E_EDGE_DOWN, and it tries again twice a second, not at every refusal. Sent
 * again at once it sent 467 commands in 3 s and the twin endpoint's rate limit cut it off
 * (twin/transports/answers.js downResyncMs). Once the edge is back, the input reaches the PLC.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { startWsSystem, TOKENS } = require('../helpers/system');
const { waitFor } = require('../../system/wait');
const { createTransport } = require('../../twin/browser/link-ws');

test('while the edge is away an owed input is tried twice a second, not flooded; it lands once the edge is back', { timeout: 180000 }, async (t) => {
  const sys = await startWsSystem({ cloudParts: ['cloud-ws'] });
  t.after(() => sys.stop());
  const tr = createTransport({ url: sys.twinUrl, token: TOKENS.twin, id: 'edge-away' });
  t.after(() => tr.close());
  let snaps = 0;
  tr.onValues((v, k) => { if (k === 'snap') snaps += 1; });
  await tr.connect();
  await waitFor(async () => snaps >= 1, 30000, 'the PLC\'s snapshot');
  assert.equal((await sys.plc.values()).se, 0);

  await sys.edge.stop({ keep: true });
  tr.send({ se: 1 });
  await new Promise((r) => setTimeout(r, 3000));
  const away = tr.stats();
  assert.ok(away.errorCodes.E_EDGE_DOWN >= 1, JSON.stringify(away.errorCodes));
  assert.ok(away.sent <= 10, `${away.sent} commands in 3 s with the edge away`);
  assert.equal(away.errorCodes.E_RATE_LIMIT, undefined, 'not cut off by the rate limit');
  assert.equal(away.reconnects, 0);
  assert.equal(away.plcAway, 'E_EDGE_DOWN', 'the transport says the PLC cannot hear it (a driving page holds its plant)');

  await sys.startEdge();
  await waitFor(async () => (await sys.plc.values()).se === 1, 60000, 'the owed input in the PLC');
  const back = tr.stats();
  assert.equal(back.reconnects, 0);
  assert.equal(back.inFlight, 0);
  assert.equal(back.plcAway, '', 'back');
  t.diagnostic(`with the edge away: ${away.sent} commands in 3 s; after it came back: ${back.sent} in all, ${back.acks} acknowledged`);
});
