'use strict';
/** The HTTP transport's commands, one POST at a time (twin/transports/http/commands.js), on a stand-in endpoint. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createCommands, commandAnswer } = require('../../../../twin/transports/http/commands');
const { createEnvelopes } = require('../../../../twin/transports/envelopes');

/** Commands over a post function the test answers by hand, one request at a time. */
function rig(maxQueue = 10, opts = {}) {
  const stats = { connected: true, sent: 0, inFlight: 0, acks: 0, coalesced: 0, authFailures: 0 };
  const errors = [];
  const posts = []; // {body, resolve, reject}
  const events = [];
  let closed = false;
  const countError = (c) => errors.push(c);
  const link = createEnvelopes({
    src: 'twin-h', stats, countError, resend: (d) => cmds.resend(d), attempt: (make) => cmds.attempt(make),
    canSend: () => stats.connected, atOnce: true, ...opts,
  });
  const answers = [];
  link.answers.onAnswer((a) => answers.push(a));
  const cmds = createCommands({
    link, stats, countError: (c) => errors.push(c), maxQueue,
    post: (body) => new Promise((resolve, reject) => posts.push({ body: JSON.parse(body), resolve, reject })),
    closed: () => closed,
    onLost: (err) => { events.push(['lost', err.message]); stats.connected = false; },
    onRefused: () => { events.push(['refused']); closed = true; },
  });
  const tick = () => new Promise((r) => setImmediate(r));
  return { cmds, link, stats, errors, posts, events, answers, tick };
}

test('commandAnswer: an ack, a refused token, an err envelope, or a bare HTTP status', () => {
  const none = { key: undefined, repeat: undefined };
  assert.deepEqual(commandAnswer({ status: 200, text: '{"k":"ack","dl":9}' }), { ok: true, dl: 9, extra: none });
  const repeat = { status: 200, text: '{"k":"ack","key":"k-1","repeat":true}' };
  assert.deepEqual(commandAnswer(repeat), { ok: true, dl: undefined, extra: { key: 'k-1', repeat: true } }, 'a repeat of a keyed command says so');
  assert.deepEqual(commandAnswer({ status: 401, text: '' }), { unauthorized: true });
  const err = { status: 400, text: '{"k":"err","e":{"code":"E_NOT_WRITABLE","msg":"c1"}}' };
  assert.deepEqual(commandAnswer(err), { code: 'E_NOT_WRITABLE', msg: 'c1', dl: undefined, extra: none });
  assert.deepEqual(commandAnswer({ status: 502, text: '<html>' }), { code: 'E_HTTP_502', msg: '', dl: undefined, extra: {} });
  assert.deepEqual(commandAnswer({ status: 200, text: '{"k":"state"}' }), { code: 'E_HTTP_200', msg: '', dl: undefined, extra: none },
    'a 200 that is not an ack is no ack');
});

test('one POST at a time, in order; every command answered once', async () => {
  const { cmds, link, stats, errors, posts, answers, tick } = rig();
  Object.assign(link.image, { st: 1 });
  cmds.send({ st: 1 });
  Object.assign(link.image, { se: 1 });
  cmds.send({ se: 1 });
  await tick();
  assert.equal(posts.length, 1, 'the second waits for the first answer');
  assert.equal(stats.inFlight, 1);
  assert.deepEqual(posts[0].body.d, { st: 1 });
  posts[0].resolve({ status: 200, text: JSON.stringify({ k: 'ack', dl: 5 }) });
  await tick();
  assert.equal(posts.length, 2);
  assert.deepEqual(posts[1].body.d, { se: 1 });
  assert.ok(posts[1].body.seq > posts[0].body.seq);
  posts[1].resolve({ status: 400, text: JSON.stringify({ k: 'err', e: { code: 'E_RANGE', msg: 'no' } }) });
  await tick();
  assert.deepEqual(answers.map((a) => [a.ok, a.code, a.dl]), [[true, undefined, 5], [false, 'E_RANGE', undefined]]);
  assert.equal(stats.acks, 1);
  assert.equal(stats.sent, 2);
  assert.equal(stats.inFlight, 0);
  assert.deepEqual(errors, ['E_RANGE']);
});

test('a request that fails (no keys): E_OUTCOME_UNKNOWN, and what the twin owes once the endpoint is back', async () => {
  const { cmds, link, stats, posts, events, answers, tick } = rig(10, { keys: false });
  Object.assign(link.image, { st: 1, se: 1 });
  cmds.send({ st: 1 });
  await tick();
  posts[0].reject(new Error('socket hang up'));
  await tick();
  assert.deepEqual(events, [['lost', 'socket hang up']]);
  assert.equal(answers[0].code, 'E_OUTCOME_UNKNOWN');
  Object.assign(link.image, { p1f: 1 });
  cmds.send({ p1f: 1 });
  assert.equal(stats.coalesced, 1, 'while down: merged into what the twin owes');
  assert.equal(posts.length, 1);
  stats.connected = true;
  cmds.sendImage();
  await tick();
  assert.equal(posts.length, 2);
  // The command in doubt (st) and the change made while down (p1f) go out; an input this twin
  // never sent (se, set by another twin) is not its to set again.
  assert.deepEqual(posts[1].body.d, { st: 1, p1f: 1 }, 'what the twin owes, not its whole image');
});

test('a keyed request that fails is tried again with the same key once the endpoint is back, and answered once', async () => {
  const { cmds, link, stats, posts, answers, tick } = rig();
  link.image.st = 1;
  cmds.send({ st: 1 });
  await tick();
  const key = posts[0].body.key;
  assert.ok(key, 'the command carries an idempotency key');
  posts[0].reject(new Error('socket hang up'));
  await tick();
  assert.deepEqual(answers, [], 'in doubt: not answered yet');
  stats.connected = true;
  link.answers.connected();
  await tick();
  assert.equal(posts.length, 2, 'tried again');
  assert.equal(posts[1].body.key, key, 'with the same key');
  assert.ok(posts[1].body.seq > posts[0].body.seq, 'as a new envelope');
  posts[1].resolve({ status: 200, text: JSON.stringify({ k: 'ack', key, repeat: true }) });
  await tick();
  assert.equal(answers.length, 1, 'one answer');
  assert.deepEqual([answers[0].ok, answers[0].repeat], [true, true]);
});

test('too many waiting: they are merged into one command with what the twin owes', async () => {
  const { cmds, link, stats, posts, tick } = rig(2);
  for (let i = 0; i < 4; i += 1) { link.image[`x${i}`] = i; cmds.send({ [`x${i}`]: i }); }
  await tick();
  // x0 in flight, x1 and x2 waited, x3 found the queue full: the queue gives way to one command
  // with the changes no command carries (x0 is carried by the one in flight).
  assert.equal(stats.coalesced, 1);
  posts[0].resolve({ status: 200, text: '{"k":"ack"}' });
  await tick();
  assert.deepEqual(posts[1].body.d, { x1: 1, x2: 2, x3: 3 });
  posts[1].resolve({ status: 200, text: '{"k":"ack"}' });
  await tick();
  assert.equal(posts.length, 2, 'nothing else waits');
});

test('a refused token answers the command and stops the sending', async () => {
  const { cmds, stats, posts, events, answers, tick } = rig();
  cmds.send({ st: 1 });
  cmds.send({ st: 0 });
  await tick();
  posts[0].resolve({ status: 401, text: '' });
  await tick();
  assert.deepEqual(events, [['refused']]);
  assert.equal(stats.authFailures, 1);
  assert.deepEqual(answers.map((a) => a.code), ['E_UNAUTHORIZED']);
  assert.equal(posts.length, 1, 'nothing more goes out');
});
