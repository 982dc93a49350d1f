'use strict';
/**
 * The link's promises over one transport, as libraries (no Node-RED): the cloud's edge endpoint
 * (lib/link/endpoint.js) with the transport's listener (lib/link/transports/), and the edge's
 * dialer (lib/link/dialer.js) over the same broker. test/nodes/lib/link/transports/<id>.test.js
 * runs these checks on each transport's real broker (the ZeroMQ ones on no broker at all).
 */
const assert = require('node:assert/strict');
const clock = require('../../nodes/lib/core/clock');
const { createEndpoint } = require('../../nodes/lib/link/endpoint');
const { createDialer } = require('../../nodes/lib/link/dialer');
const { listen } = require('../../nodes/lib/link/transports');
const { waitFor } = require('../../system/wait');

const TOKEN = 'edge-token-1';

/**
 * A cloud: an edge endpoint for plant1 taking sessions over the transport.
 * @param {object} o
 * @param {string} o.transport
 * @param {string} o.url the broker (or bind) address
 * @param {object} [o.login] {username, password} of the cloud on the broker
 * @param {object} [o.endpoint] more endpoint options
 */
async function startLinkCloud(o) {
  const ep = createEndpoint({
    path: '/s7twin/edge', role: 'edge', tokens: [TOKEN], plant: 'plant1', src: 'cloud-edge-t', transport: o.transport, linkTimeoutMs: 3000, ...o.endpoint,
  });
  const listener = listen(o.transport, { url: o.url, ...(o.login || {}), admitRequest: ep.admitRequest, maxPayload: 1024 * 1024 });
  const got = [];
  const refused = [];
  ep.on('envelope', (env) => got.push(env));
  ep.on('refused', (reason) => refused.push(reason));
  await listener.start();
  return {
    ep, listener, got, refused,
    /** The address an edge dials (ZeroMQ: the port the router took). */
    url: o.transport === 'zmq' ? `tcp://127.0.0.1:${listener.carrier.port}` : o.url,
    async stop() { await ep.close(); await listener.close(); },
  };
}

/**
 * An edge's dialer for plant1.
 * @param {string} transport
 * @param {string} url
 * @param {object} [o] dialer options (token, username, password, …)
 */
function startLinkEdge(transport, url, o = {}) {
  const d = createDialer({
    transport, url, plant: 'plant1', token: TOKEN, src: 'edge-link-t', heartbeatMs: 200, backoff: { initialMs: 50, maxMs: 500 }, ...o,
  });
  const got = [];
  const failures = [];
  d.on('envelope', (env) => got.push(env));
  d.on('failure', (err) => failures.push(err.code || err.message));
  d.start();
  return Object.assign(d, { got, failures });
}

let twinSeq = 0;
/** A command as the twin endpoint relays it: with a deadline on the cloud's clock. */
const command = (ttlMs = 2000) => ({ v: 1, k: 'cmd', src: 'twin-t', seq: ++twinSeq, ts: Date.now(), dl: clock.now() + ttlMs, d: { c1: 1 } });

/**
 * Admitted, heartbeats, clock offset, a command down and its one answer up, a state up.
 * @returns {Promise<object>} the command's answer as the cloud's flow got it
 */
async function checkRoundTrip(cloud, edge) {
  await waitFor(() => cloud.ep.edgeReady('plant1'), 60000, 'the edge admitted and its first sync answered');
  await waitFor(() => edge.counters.syncs >= 2 && edge.clockOffset(), 20000, 'syncs answered: a clock-offset estimate');
  const cmd = command();
  assert.equal(cloud.ep.send(cmd, undefined, 'plant1'), 1);
  const down = await waitFor(() => edge.got.find((e) => e.k === 'cmd' && e.seq === cmd.seq), 20000, 'the command at the edge');
  assert.equal(down.dl, cmd.dl);
  assert.ok(edge.localDeadline(cmd.dl) !== null, 'the edge can judge the deadline');
  edge.send({ v: 1, k: 'ack', src: 'edge-s7-t', seq: cmd.seq, ts: Date.now(), ref: { src: cmd.src, seq: cmd.seq }, dl: cmd.dl });
  edge.send({ v: 1, k: 'state', src: 'edge-s7-t', seq: cmd.seq + 100000, ts: Date.now(), d: { grn: 1 } });
  const ack = await waitFor(() => cloud.got.find((e) => e.k === 'ack' && e.ref.seq === cmd.seq), 20000, 'the ack at the cloud');
  await waitFor(() => cloud.got.some((e) => e.k === 'state' && e.d.grn === 1), 20000, 'the state at the cloud');
  assert.equal(cloud.ep.counters.lateAnswers, 0);
  return ack;
}

/** A wrong token is refused (E_AUTH) and not one frame of it is read. */
async function checkWrongToken(cloud, transport, login) {
  const accepted = cloud.ep.counters.accepted;
  const intruder = startLinkEdge(transport, cloud.url, { ...login, token: 'not-the-token', src: 'edge-link-x' });
  try {
    await waitFor(() => intruder.failures.includes('E_AUTH'), 30000, 'the refusal');
    assert.equal(intruder.connected, false);
    assert.ok(cloud.refused.includes('token'));
    assert.equal(cloud.ep.counters.accepted, accepted, 'a refused session never becomes a peer: none of its frames is read');
  } finally {
    await intruder.close();
  }
}

/** A second edge of the plant is refused (E_EDGE_TAKEN) while the first is alive. */
async function checkSecondEdge(cloud, transport, login) {
  const second = startLinkEdge(transport, cloud.url, { ...login, src: 'edge-link-2' });
  try {
    await waitFor(() => second.failures.includes('E_EDGE_TAKEN'), 30000, 'the 409');
    assert.equal(second.connected, false);
  } finally {
    await second.close();
  }
}

/**
 * The cloud goes: a command the edge has not answered gets E_OUTCOME_UNKNOWN, the edge notices and
 * redials; a new cloud admits it again, and nothing of the old session reaches the new one.
 * @param {() => Promise<object>} restart start a cloud again on the same address
 */
async function checkCloudRestart(cloud, edge, restart) {
  const unanswered = command(5000);
  cloud.ep.send(unanswered, undefined, 'plant1');
  await waitFor(() => edge.got.some((e) => e.seq === unanswered.seq), 20000, 'the command at the edge');
  const connects = edge.counters.connects;
  await cloud.stop();
  const answer = cloud.got.find((e) => e.ref && e.ref.seq === unanswered.seq);
  assert.equal(answer && answer.e.code, 'E_OUTCOME_UNKNOWN', 'the held command answered once, at once');
  await waitFor(() => !edge.connected, 20000, 'the edge notices the cloud went');
  const next = await restart();
  await waitFor(() => edge.counters.connects > connects && next.ep.edgeReady('plant1'), 60000, 'the edge back on the new cloud');
  const before = edge.got.length;
  const ack = await checkRoundTrip(next, edge);
  assert.equal(ack.k, 'ack');
  assert.ok(edge.got.slice(before).every((e) => e.seq !== unanswered.seq), 'nothing of the old session delivered again');
  return next;
}

module.exports = { TOKEN, startLinkCloud, startLinkEdge, command, checkRoundTrip, checkWrongToken, checkSecondEdge, checkCloudRestart };
