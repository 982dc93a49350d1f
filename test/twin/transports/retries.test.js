'use strict';
/** Keyed commands in doubt tried again with the same key (twin/transports/retries.js, through answers.js). */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createAnswers } = require('../../../twin/transports/answers');

/** An answers book with retries, a hand-driven clock and a link that is up or down. */
function book(o = {}) {
  const stats = {};
  let t = 0;
  let up = true;
  let seq = 100;
  const sent = []; // attempts: {seq, cmd, fields}
  const a = createAnswers({
    stats,
    resend: () => {},
    canSend: () => up,
    retry: {
      now: () => t,
      askForMs: o.askForMs || 30000,
      delayMs: 10,
      maxDelayMs: 20,
      send(cmd, fields) {
        if (!up) return false;
        seq += 1;
        a.attempted(seq, cmd, fields.ttl, fields.ask);
        sent.push({ seq, key: cmd.key, fields });
        return true;
      },
    },
  });
  const got = [];
  a.onAnswer((x) => got.push(x));
  return { a, stats, sent, got, tick: (ms) => { t += ms; }, setUp: (v) => { up = v; } };
}

test('an unknown outcome goes again with the same key, for what is left of its lifetime, and the edge\'s answer is the one answer', () => {
  const b = book();
  b.a.sent(1, { st: 1 }, { key: 'k-1', ttl: 1000, sentAt: 0 });
  b.tick(300);
  b.a.answered(1, 'E_OUTCOME_UNKNOWN', 'link lost', 5000);
  assert.deepEqual(b.sent.map((s) => [s.key, s.fields]), [['k-1', { ttl: 680 }]], 'within the deadline: a command, 1000 - 300 - 20 ms margin');
  assert.equal(b.got.length, 0, 'no answer yet');
  assert.equal(b.a.inFlight, 1);
  b.a.answered(b.sent[0].seq, undefined, undefined, 5010, { key: 'k-1', repeat: true });
  assert.equal(b.got.length, 1);
  const g = b.got[0];
  assert.deepEqual([g.seq, g.ok, g.repeat, g.attempts, g.dl], [1, true, true, 2, 5000], 'the earliest deadline an attempt was given');
  assert.equal(b.stats.retries, 1);
  assert.equal(b.stats.repeats, 1);
});

test('a command in doubt whose input a later command set only asks, within its deadline too: an older value never goes back over a newer one', () => {
  const b = book();
  b.a.sent(1, { st: 1, se: 1 }, { key: 'k-1', ttl: 5000, sentAt: 0 });
  b.a.sent(2, { st: 0 }, { key: 'k-2', ttl: 5000, sentAt: 10 });
  b.a.answered(2, undefined, undefined, 6000, { key: 'k-2' });
  b.tick(300);
  b.a.answered(1, 'E_OUTCOME_UNKNOWN', 'link lost');
  assert.deepEqual(b.sent.map((s) => [s.key, s.fields]), [['k-1', { ask: true }]], 'st was set again by k-2 (acknowledged): k-1 may not write');
  // The edge never saw k-1: it closes the key. se, which nothing newer carries, is owed again.
  b.a.answered(b.sent[0].seq, 'E_EXPIRED', 'never seen before its deadline: closed', undefined, { key: 'k-1' });
  assert.deepEqual([b.got[1].seq, b.got[1].code], [1, 'E_EXPIRED']);
  assert.deepEqual(b.a.unsent(), { se: 1 }, 'only what nothing newer carries is owed');

  const c = book();
  c.a.sent(1, { st: 1 }, { key: 'k-1', ttl: 5000, sentAt: 0 });
  c.a.changedWhileDown({ st: 0 });
  c.a.answered(1, 'E_OUTCOME_UNKNOWN', 'link lost');
  assert.deepEqual(c.sent[0].fields, { ask: true }, 'a change made while down supersedes it too');

  const d = book();
  d.a.sent(1, { st: 1 }, { key: 'k-1', ttl: 5000, sentAt: 0 });
  d.a.sent(2, { se: 1 }, { key: 'k-2', ttl: 5000, sentAt: 10 });
  d.a.answered(1, 'E_OUTCOME_UNKNOWN', 'link lost');
  assert.deepEqual(d.sent[0].fields, { ttl: 4980 }, 'a later command on other inputs leaves it free to write');
});

test('after the deadline it asks; an answer that reached no edge settles nothing: it asks again later', async () => {
  const b = book();
  b.a.sent(1, { st: 1 }, { key: 'k-1', ttl: 1000, sentAt: 0 });
  b.tick(1300);
  b.a.answered(1, 'E_OUTCOME_UNKNOWN', 'no answer by the deadline');
  assert.deepEqual(b.sent[0].fields, { ask: true });
  b.a.answered(b.sent[0].seq, 'E_EDGE_DOWN', 'no edge');
  assert.equal(b.got.length, 0, 'E_EDGE_DOWN says this attempt reached no edge: still in doubt');
  await new Promise((r) => setTimeout(r, 40));
  assert.equal(b.sent.length, 2, 'asked again after the back-off');
  b.a.answered(b.sent[1].seq, 'E_EXPIRED', 'not written', undefined, { key: 'k-1', repeat: true });
  assert.deepEqual([b.got[0].ok, b.got[0].code, b.got[0].repeat], [false, 'E_EXPIRED', true], 'the edge says: never written');
  assert.equal(b.stats.asks, 2);
});

test('a first answer that reached no edge is final; without a key nothing goes again', () => {
  const b = book();
  b.a.sent(1, { st: 1 }, { key: 'k-1', ttl: 1000, sentAt: 0 });
  b.a.answered(1, 'E_EDGE_DOWN', 'no edge');
  assert.equal(b.got[0].code, 'E_EDGE_DOWN');
  b.a.sent(2, { st: 1 }, { ttl: 1000, sentAt: 0 });
  b.a.answered(2, 'E_OUTCOME_UNKNOWN', 'lost');
  assert.equal(b.got[1].code, 'E_OUTCOME_UNKNOWN');
  assert.equal(b.sent.length, 0);
});

test('lost with the connection: sent again once it is back; given up as unknown when the time to ask is over', async () => {
  const b = book({ askForMs: 60 });
  b.a.sent(1, { st: 1 }, { key: 'k-1', ttl: 1000, sentAt: 0 });
  b.a.sent(2, { se: 1 }, { key: 'k-2', ttl: 1000, sentAt: 0 });
  b.setUp(false);
  b.a.connectionLost();
  assert.equal(b.a.retrying, 2);
  b.setUp(true);
  b.a.connected();
  assert.deepEqual(b.sent.map((s) => s.key), ['k-1', 'k-2']);
  b.a.answered(b.sent[0].seq, undefined, undefined, undefined, { key: 'k-1' });
  b.setUp(false);
  b.a.connectionLost();
  b.tick(100);
  await new Promise((r) => setTimeout(r, 80));
  assert.deepEqual(b.got.map((x) => [x.seq, x.code]), [[1, undefined], [2, 'E_OUTCOME_UNKNOWN']]);
  assert.match(b.got[1].msg, /still unknown/);
  assert.equal(b.a.inFlight, 0);
});

test('close answers every command still open once, E_OUTCOME_UNKNOWN', () => {
  const b = book();
  b.a.sent(1, { st: 1 }, { key: 'k-1', ttl: 1000, sentAt: 0 });
  b.a.sent(2, { se: 1 }, { key: 'k-2', ttl: 1000, sentAt: 0 });
  b.setUp(false);
  b.a.answered(1, 'E_OUTCOME_UNKNOWN', 'lost');
  b.a.close();
  assert.deepEqual(b.got.map((x) => [x.seq, x.code]).sort(), [[1, 'E_OUTCOME_UNKNOWN'], [2, 'E_OUTCOME_UNKNOWN']]);
  b.a.close();
  assert.equal(b.got.length, 2);
});
