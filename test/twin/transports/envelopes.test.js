'use strict';
/** The twin's side of the envelope protocol (twin/transports/envelopes.js). */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createEnvelopes } = require('../../../twin/transports/envelopes');

function side(extra = {}) {
  const stats = { acks: 0 };
  const errors = [];
  const resent = [];
  const countError = (code, msg) => errors.push([code, msg]);
  const link = createEnvelopes({ src: 'twin-t', stats, countError, resend: (d) => resent.push(d), canSend: () => true, ...extra });
  const got = { values: [], probes: [], answers: [], sent: [] };
  link.onValues((d, kind) => got.values.push([kind, d]));
  link.onProbe((slot, v) => got.probes.push([slot, v]));
  link.answers.onAnswer((a) => got.answers.push(a));
  link.onSent((s) => got.sent.push(s));
  return { link, stats, errors, resent, got };
}

test('a command is a cmd envelope of this twin, booked for its answer, heard of before it goes out', () => {
  const { link, got } = side({ ttl: 500 });
  Object.assign(link.image, { st: 1, se: 0 });
  const env = link.command({ st: 1 });
  assert.equal(env.k, 'cmd');
  assert.equal(env.src, 'twin-t');
  assert.equal(env.ttl, 500);
  assert.deepEqual(env.d, { st: 1 });
  assert.equal(link.answers.inFlight, 1);
  assert.deepEqual(got.sent, [{ seq: env.seq, d: { st: 1 }, image: { st: 1, se: 0 } }]);
  got.sent[0].image.st = 9;
  assert.equal(link.image.st, 1, 'onSent gets a copy of the image');
  assert.equal('ttl' in side({ keys: false }).link.command({ se: 1 }), false, 'without keys or a ttl the endpoint\'s default applies');
  const keyed = side().link.command({ se: 1 });
  assert.equal(keyed.ttl, 1000, 'with keys the lifetime is explicit: a retry asks for what is left of it');
  assert.match(keyed.key, /^[a-z0-9]{12}-\d+$/);
});

test('what the cloud sends: values, answers to this twin\'s commands only, probe answers', () => {
  const { link, stats, errors, got } = side();
  const a = link.command({ st: 1 });
  const b = link.command({ sp: 1 });
  link.receive({ k: 'snap', d: { c1: 0, grn: 1 } });
  link.receive({ k: 'state', d: { c1: 1 } });
  assert.deepEqual(got.values, [['snap', { c1: 0, grn: 1 }], ['state', { c1: 1 }]]);
  link.receive({ k: 'ack', ref: { src: 'twin-other', seq: a.seq } });
  assert.equal(stats.acks, 1, 'every ack is counted');
  assert.equal(got.answers.length, 0, 'another twin\'s ack answers none of ours');
  link.receive({ k: 'ack', ref: { src: 'twin-t', seq: a.seq }, dl: 123 });
  link.receive({ k: 'err', ref: { src: 'twin-t', seq: b.seq }, e: { code: 'E_RANGE', msg: 'too big' } });
  assert.deepEqual(got.answers.map((x) => [x.seq, x.ok, x.code, x.dl]), [[a.seq, true, undefined, 123], [b.seq, false, 'E_RANGE', undefined]]);
  assert.deepEqual(errors, [['E_RANGE', 'too big']]);
  link.receive({ k: 'probe-res', d: { 3: 77, 4: 5 } });
  assert.deepEqual(got.probes, [[3, 77], [4, 5]]);
  link.receive({ k: 'cmd', d: { st: 1 } });
  link.receive({ k: 'probe', d: { 1: 1 } });
  assert.equal(got.values.length + got.probes.length, 4, 'a cmd or a probe is not for a twin');
});

test('a doubtful answer brings a resync from the next state (or at once with atOnce)', () => {
  const late = side();
  Object.assign(late.link.image, { se: 1 });
  const c = late.link.command({ se: 1 });
  late.link.receive({ k: 'err', ref: { src: 'twin-t', seq: c.seq }, e: { code: 'E_EXPIRED', msg: 'late' } });
  assert.deepEqual(late.resent, []);
  late.link.receive({ k: 'state', d: { se: 0 } });
  assert.deepEqual(late.resent, [{ se: 1 }]);
  const now = side({ atOnce: true });
  Object.assign(now.link.image, { se: 1 });
  now.link.receive({ k: 'snap', d: { se: 0 } });
  const d = now.link.command({ se: 1 });
  now.link.receive({ k: 'err', ref: { src: 'twin-t', seq: d.seq }, e: { code: 'E_EXPIRED', msg: 'late' } });
  assert.deepEqual(now.resent, [{ se: 1 }]);
});
