'use strict';
/**
 * The plant history and the command log in a fleet, end to end: a real redis-server, two cloud
 * Node-RED instances on it running the project's cloud flow, one plant (a virtual PLC and an edge
 * Node-RED, the edge on instance 1), a twin on each instance sending commands and a viewer on
 * instance 2 recording every state frame it gets. `GET /s7twin/history` and `GET /s7twin/audit`
 * answer the same on both instances: every state the viewer saw, each once (only the instance
 * its edge is connected to files it), and every command of either twin with its outcome. Then
 * instance 1 is restarted with its disk (its edge moves to instance 2, a new twin connects to it):
 * both answers still hold everything from before, and what came after.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { startFleet } = require('../../system/fleet');
const { createTransport } = require('../../twin/transports/ws');
const { openClient } = require('../helpers/nodes');
const { waitFor } = require('../helpers/nodered');

/** A ws twin with every answer recorded. */
async function twin(opts) {
  const t = createTransport({ ...opts, backoff: { initialMs: 100, maxMs: 1000 } });
  const answers = new Map();
  t.onAnswer((a) => answers.set(a.seq, a));
  await t.connect();
  return {
    t,
    answers,
    /** Send a command and wait for its one answer. */
    async cmd(d) {
      const seq = t.send(d);
      return { seq, ...(await waitFor(() => answers.get(seq), 20000, `the answer to command ${seq}`)) };
    },
  };
}

/** GET a record from an instance's admin API (open: the fleet's editor has no login). */
async function get(cloud, what, query) {
  const res = await fetch(`${cloud.url}/s7twin/${what}?${new URLSearchParams(query)}`);
  assert.equal(res.status, 200, `${what} on ${cloud.url}: ${res.status}`);
  return res.json();
}

/** The plant history's counters of an instance (GET /s7twin/stats). */
async function historyCounters(cloud) {
  const body = await (await fetch(`${cloud.url}/s7twin/stats`)).json();
  return body.nodes.find((n) => n.type === 's7twin-history').counters.history;
}

/** A state frame's identity: the edge's own stamp. */
const idOf = (f) => `${f.k}:${f.ets ?? f.ts}:${f.seq}`;

/**
 * Both instances answer the same; every state frame the viewer saw is in the history exactly once;
 * every command sent (src#seq) is in the log exactly once, with an outcome.
 */
async function checkBoth(fleet, viewer, sent, from) {
  // The frames the viewer has now were filed before it got them: by now on the instances' clocks
  // (this machine's; a little margin for how each process reads it).
  const seen = viewer.frames.filter((f) => f.k === 'state');
  const to = Date.now() + 100;
  // The viewer's frames are filed by the instance the edge sent them to, a moment before the
  // viewer on the other instance got them: they are all there once the last one is written.
  await waitFor(async () => {
    const h = await get(fleet.clouds[1], 'history', { plant: 'plant1', from, to });
    const ids = new Set(h.states.map(idOf));
    return seen.every((f) => ids.has(idOf(f)));
  }, 20000, 'every state the viewer saw in the history');
  const histories = await Promise.all(fleet.clouds.map((c) => get(c, 'history', { plant: 'plant1', from, to })));
  assert.deepEqual(histories[0].states, histories[1].states, 'the same history on both instances');
  const ids = histories[0].states.filter((f) => f.k === 'state').map(idOf);
  assert.equal(new Set(ids).size, ids.length, 'no state filed twice');
  assert.ok(seen.length > 10, `the viewer saw states (${seen.length})`);

  const audits = await Promise.all(fleet.clouds.map((c) => get(c, 'audit', { plant: 'plant1', from, to })));
  const view = (a) => a.commands.map((c) => `${c.src}#${c.seq}:${c.outcome}`);
  assert.deepEqual(view(audits[0]), view(audits[1]), 'the same commands on both instances');
  for (const a of audits) {
    assert.equal(a.complete, true);
    assert.ok(a.chains.every((c) => c.ok), JSON.stringify(a.chains));
    const refs = a.commands.map((c) => `${c.src}#${c.seq}`);
    assert.equal(new Set(refs).size, refs.length, 'no command twice');
    for (const s of sent) {
      const row = a.commands.find((c) => c.src === s.src && c.seq === s.seq);
      assert.ok(row, `command ${s.src}#${s.seq} in the log`);
      assert.equal(row.outcome, s.ok ? 'written' : 'refused', `${s.src}#${s.seq}: ${JSON.stringify(row)}`);
    }
  }
  // The browser twin's replay reads the window's commands with the states (commands=1): the
  // fleet's too, the same on both instances as the auditor's.
  const timelines = await Promise.all(fleet.clouds.map((c) => get(c, 'history', { plant: 'plant1', from, to, commands: 1 })));
  assert.deepEqual(view(timelines[0]), view(timelines[1]), 'the same timeline commands on both instances');
  assert.deepEqual(view(timelines[0]), view(audits[0]), 'the timeline has every command of the log');
  return { histories, audits };
}

test('fleet: one history and one command log, the same on every instance, also after an instance restarts', { timeout: 600000 }, async (t) => {
  const fleet = await startFleet({ instances: 2, plants: 1 });
  t.after(() => fleet.stop());
  const closers = [];
  t.after(() => Promise.allSettled(closers.map((c) => c())));
  const from = Date.now() - 1000;

  // A twin on each instance (a on instance 1, where the edge is; b on instance 2) and a viewer on instance 2.
  const a = await twin(fleet.twin('plant1', 0, { id: 'a' }));
  const b = await twin(fleet.twin('plant1', 1, { id: 'b' }));
  closers.push(() => a.t.close(), () => b.t.close());
  const viewer = await openClient(`ws://127.0.0.1:${fleet.clouds[1].port}/s7twin/twin?plant=plant1`, { token: 'fleet-viewer-token' });
  closers.push(() => viewer.close());
  const sent = [];
  const send = async (tw, id, d) => { const r = await tw.cmd(d); sent.push({ src: `twin-${id}`, seq: r.seq, ok: r.ok }); return r; };
  // The plant changes state when its inputs do (the twins move its boxes): both twins toggle the
  // size sensor in turn, each change a command and a state frame, the next once the viewer has it.
  const drive = async (n) => {
    for (let i = 0; i < n; i += 1) {
      const se = i % 2 ? 0 : 1;
      const had = viewer.frames.length;
      await (se ? send(a, 'a', { se }) : send(b, 'b', { se }));
      await waitFor(() => viewer.frames.slice(had).some((f) => f.k === 'state' && f.d.se === se), 20000, `se=${se} at the viewer`);
    }
  };
  await waitFor(async () => (await send(a, 'a', { sp: 0, st: 1 })).ok, 90000, 'a command of plant1 acknowledged on instance 1');
  await waitFor(async () => (await send(b, 'b', { st: 0 })).ok, 90000, 'a command of plant1 acknowledged across instances');
  await drive(12);
  const before = await checkBoth(fleet, viewer, sent, from);
  // Only instance 1, where the edge is, filed states; instance 2 passed them to its twins only.
  const filed = await Promise.all(fleet.clouds.map((cl) => historyCounters(cl)));
  assert.equal(filed[1].frames, 0, 'instance 2 filed no state');
  assert.ok(filed[0].frames >= before.histories[0].count, `instance 1 filed them (${filed[0].frames})`);
  t.diagnostic(`before the restart: ${before.histories[0].count} states, ${before.audits[0].commands.length} commands, chains ` +
    `${before.audits[0].chains.map((c) => `${c.chain}:${c.entries}`).join(' ')}`);

  // Instance 1 restarted, with its disk: plant1's edge moves to instance 2 (once the lease has run
  // out), twin a reconnects; the plant runs on and both twins command it again.
  await fleet.restartCloud(0);
  await waitFor(async () => (await send(b, 'b', { sp: 1 })).ok, 60000, 'plant1 acknowledged again (its edge on instance 2)');
  await waitFor(async () => (await send(a, 'a', { sp: 0, st: 1 })).ok, 60000, 'twin a back');
  // A twin on the restarted instance: its commands go on in that instance's chain.
  const c = await twin(fleet.twin('plant1', 0, { id: 'c' }));
  closers.push(() => c.t.close());
  await send(c, 'c', { se: 1 });
  await send(c, 'c', { se: 0 });
  await drive(12);
  const after = await checkBoth(fleet, viewer, sent, from);
  t.diagnostic(`after the restart: ${after.histories[0].count} states, ${after.audits[0].commands.length} commands, chains ` +
    `${after.audits[0].chains.map((c) => `${c.chain}:${c.entries}`).join(' ')}`);

  // What was there before the restart is still there, unchanged.
  const windowBefore = { plant: 'plant1', from, to: before.histories[0].to };
  assert.deepEqual((await get(fleet.clouds[0], 'history', windowBefore)).states, before.histories[0].states, 'the history of before, unchanged');
  const chainsOf = (r) => Object.fromEntries(r.audits[0].chains.map((x) => [x.chain, x.entries]));
  const [was, now] = [chainsOf(before), chainsOf(after)];
  assert.deepEqual(Object.keys(now).sort(), Object.keys(was).sort(), 'the restarted instance went on with its chain (its file kept): still two chains');
  const own1 = before.audits[0].chains.find((x) => x.own).chain; // instance 1's
  assert.ok(now[own1] > was[own1], `instance 1's chain grew after its restart (${was[own1]} → ${now[own1]} entries), and verifies whole`);
});
