'use strict';
/**
 * The command log end to end, as a user runs it: virtual S7-1500, edge and cloud Node-RED with the
 * project's flows (WebSocket twins and the REST endpoint), an editor login and an auditor token.
 * Commands written, refused and read-only are in the log with who sent them and their outcome, and
 * a command of the cloud's own flow (an s7twin-link-out node) with that node as its sender;
 * auditors and the admin read it (JSON and CSV), twins and viewers get 403; the chain verifies,
 * goes on across a cloud restart, and a tampered copy is found. The plant history holds the edge's
 * states, a viewer reads it, an edge token may not, and it outlives the restart.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const WebSocket = require('ws');
const { startWsSystem, TOKENS } = require('../helpers/system');
const { waitFor } = require('../helpers/nodered');
const tags = require('../../nodes/lib/core/io-table').demoTable();
const { tokenId } = require('../../nodes/lib/access/auth');

const AUDITOR = 'test-auditor-token';
const ADMIN_PASSWORD = 'test-admin-password';
const VERIFY = path.join(__dirname, '..', '..', 'scripts', 'audit-verify.js');
const WRITABLE = tags.inputs.find((t) => t.cloudWritable && t.type === 'BOOL').short;

/** A raw twin on the WebSocket: frames received, and a command's one answer. */
async function rawTwin(url, token, src) {
  const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` }, perMessageDeflate: false });
  const frames = [];
  ws.on('message', (d) => frames.push(JSON.parse(d)));
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  let seq = 0;
  return {
    frames,
    async command(d, extra = {}) {
      seq += 1;
      const mine = seq;
      ws.send(JSON.stringify({ v: 1, k: 'cmd', src, seq: mine, ts: Date.now(), d, ...extra }));
      return waitFor(() => frames.find((f) => (f.k === 'ack' || f.k === 'err') && f.ref && f.ref.seq === mine), 15000, `answer to ${src}#${mine}`);
    },
    close: () => new Promise((r) => {
      if (ws.readyState === WebSocket.CLOSED) { r(); return; }
      ws.once('close', r);
      ws.close();
    }),
  };
}

const verify = (...args) => spawnSync(process.execPath, [VERIFY, ...args], { encoding: 'utf8' });

test('command log and plant history: each command with sender and outcome, auditors only, verifiable, across a restart', { timeout: 300000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-audit-e2e-'));
  const file = path.join(dir, 'command-log.jsonl'); // outside the user dir: it outlives a restart
  const hash = require('bcryptjs').hashSync(ADMIN_PASSWORD, 4);
  const sys = await startWsSystem({
    cloudParts: ['cloud-ws', 'cloud-twin-ui'],
    env: { S7T_AUDITOR_TOKEN: AUDITOR, S7T_AUDIT_FILE: file, S7T_HISTORY_FILE: path.join(dir, 'history.sqlite'), S7T_ADMIN_HASH: hash },
  });
  t.after(async () => { await sys.stop(); fs.rmSync(dir, { recursive: true, force: true }); });
  const audit = async (query, token, route = 'audit') => {
    const res = await fetch(`${sys.cloud.url}/s7twin/${route}${query}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };
  const twin = await rawTwin(sys.twinUrl, TOKENS.twin, 'audit-twin');
  t.after(() => twin.close());
  await waitFor(() => twin.frames.find((f) => f.k === 'snap' && 'grn' in f.d), 30000, 'edge connected and snapshot served');
  const start = Date.now();

  // A written command, one refused at the cloud (a lifetime past the limit), a viewer's.
  const ack = await twin.command({ [WRITABLE]: 1 }, { cid: 'written-1', ttl: 2000 });
  assert.equal(ack.k, 'ack', JSON.stringify(ack));
  const range = await twin.command({ [WRITABLE]: 0 }, { ttl: 60000 });
  assert.equal(range.e.code, 'E_RANGE');
  const output = tags.outputs.find((x) => !x.cloudWritable).short;
  assert.equal((await twin.command({ [output]: 1 })).e.code, 'E_NOT_WRITABLE', 'refused by the plant\'s I/O table');
  const viewer = await rawTwin(sys.twinUrl, TOKENS.viewer, 'audit-viewer');
  assert.equal((await viewer.command({ [WRITABLE]: 1 })).e.code, 'E_READ_ONLY');
  await viewer.close();
  // One over REST.
  const rest = await fetch(`${sys.cloud.url}/s7twin/rest/cmd`, {
    method: 'POST', headers: { Authorization: `Bearer ${TOKENS.twin}` },
    body: JSON.stringify({ v: 1, k: 'cmd', src: 'audit-rest', seq: 1, ts: Date.now(), d: { [WRITABLE]: 0 } }),
  });
  assert.equal(rest.status, 200, await rest.clone().text());

  // Who may read it: twins and viewers 403, nobody 401, the auditor and the editor login 200.
  assert.equal((await audit('?plant=plant1', TOKENS.twin)).status, 403);
  assert.equal((await audit('?plant=plant1', TOKENS.viewer)).status, 403);
  assert.equal((await audit('?plant=plant1')).status, 401);
  const got = await audit(`?plant=plant1&from=${start - 1000}`, AUDITOR);
  assert.equal(got.status, 200, got.text);
  const { commands, head } = JSON.parse(got.text);
  const by = (src, seq) => commands.find((c) => c.src === src && c.seq === seq);
  const written = by('audit-twin', 1);
  assert.equal(written.outcome, 'written');
  assert.deepEqual([written.via, written.role, written.token, written.cid, written.values],
    ['ws', 'twin', tokenId(TOKENS.twin), 'written-1', { [WRITABLE]: 1 }]);
  assert.match(written.from, /^(::ffff:)?127\.0\.0\.1:\d+$/);
  assert.ok(written.deadline >= written.arrived + 1900 && written.deadline <= written.arrived + 2100, 'its deadline: arrival + ttl');
  assert.ok(Number.isFinite(written.plcAt), 'the time the edge saw the PLC take it');
  assert.deepEqual([by('audit-twin', 2).outcome, by('audit-twin', 2).code], ['refused', 'E_RANGE']);
  assert.deepEqual([by('audit-twin', 3).outcome, by('audit-twin', 3).code, by('audit-twin', 3).values], ['refused', 'E_NOT_WRITABLE', { [output]: 1 }]);
  assert.deepEqual([by('audit-viewer', 1).outcome, by('audit-viewer', 1).code, by('audit-viewer', 1).role], ['refused', 'E_READ_ONLY', 'viewer']);
  assert.deepEqual([by('audit-rest', 1).via, by('audit-rest', 1).outcome], ['rest', 'written']);
  assert.ok(!fs.readFileSync(file, 'utf8').includes(TOKENS.twin), 'no token in the log');

  const csv = await audit(`?plant=plant1&from=${start - 1000}&format=csv`, AUDITOR);
  assert.match(csv.type, /^text\/csv/);
  assert.equal(csv.text.trimEnd().split('\r\n').length, 1 + commands.length);

  const login = await fetch(`${sys.cloud.url}/auth/token`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_id: 'node-red-admin', grant_type: 'password', scope: '*', username: 'admin', password: ADMIN_PASSWORD }),
  });
  const session = (await login.json()).access_token;
  assert.equal((await audit('?plant=plant1', session)).status, 200, 'the editor login reads it');

  // A command of the cloud's own flow (an inject into an s7twin-link-out on the edge endpoint):
  // logged with that node as its sender and the edge's answer as its outcome, on the timeline too.
  const admin = { Authorization: `Bearer ${session}`, 'Content-Type': 'application/json' };
  const deployed = await (await fetch(`${sys.cloud.url}/flows`, { headers: admin })).json();
  const edgeServer = deployed.find((n) => n.type === 's7twin-link-server' && n.role === 'edge');
  const envelope = { v: 1, k: 'cmd', src: 'line-flow', seq: 1, ts: Date.now(), d: { [WRITABLE]: 0 } };
  const added = await fetch(`${sys.cloud.url}/flow`, {
    method: 'POST', headers: admin,
    body: JSON.stringify({
      label: 'a flow\'s own command',
      nodes: [
        {
          id: 'audit.inject', type: 'inject', props: [{ p: 'payload' }, { p: 'plant', v: 'plant1', vt: 'str' }],
          payload: JSON.stringify(envelope), payloadType: 'json', repeat: '', once: false, x: 150, y: 60, wires: [['audit.out']],
        },
        { id: 'audit.out', type: 's7twin-link-out', name: 'line command', mode: 'server', server: edgeServer.id, x: 350, y: 60, wires: [] },
      ],
    }),
  });
  assert.equal(added.status, 200, await added.clone().text());
  const tab = await (await fetch(`${sys.cloud.url}/flow/${(await added.json()).id}`, { headers: admin })).json();
  const inject = tab.nodes.find((n) => n.type === 'inject');
  const out = tab.nodes.find((n) => n.type === 's7twin-link-out');
  await waitFor(async () => (await fetch(`${sys.cloud.url}/inject/${inject.id}`, { method: 'POST', headers: admin })).status === 200, 15000, 'the inject');
  const flowCommand = await waitFor(async () => JSON.parse((await audit(`?plant=plant1&from=${start - 1000}`, AUDITOR)).text).commands
    .find((c) => c.via === 'flow' && c.outcome), 15000, 'the flow\'s command and its outcome in the log');
  assert.deepEqual([flowCommand.role, flowCommand.user, flowCommand.node, flowCommand.src, flowCommand.outcome, flowCommand.values],
    ['flow', 'line command', out.id, 'line-flow', 'written', { [WRITABLE]: 0 }]);
  assert.ok(Number.isFinite(flowCommand.plcAt), 'the time the edge saw the PLC take it');
  const timeline = JSON.parse((await audit(`?plant=plant1&from=${start - 1000}&commands=1`, TOKENS.viewer, 'history')).text).commands;
  assert.deepEqual(timeline.filter((c) => c.via === 'flow').map((c) => [c.role, c.src, c.outcome]), [['flow', 'line-flow', 'written']]);

  // The plant history: the edge's states, read with a viewer token; an edge token gets 403.
  const window = `?plant=plant1&from=${start - 60000}`;
  assert.equal((await audit(window, TOKENS.edge, 'history')).status, 403);
  const before = JSON.parse((await audit(window, TOKENS.viewer, 'history')).text);
  assert.ok(before.states.some((f) => f.k === 'snap' && 'grn' in f.d), 'the edge\'s snapshot is in the history');
  assert.ok(before.states.every((f, j) => j === 0 || f.t >= before.states[j - 1].t), 'oldest first');

  // The chain verifies; after a cloud restart it goes on without a seam.
  const first = verify(file);
  assert.equal(first.status, 0, first.stderr);
  await twin.close();
  const restartAt = Date.now();
  await sys.startCloud();
  const again = await rawTwin(sys.twinUrl, TOKENS.twin, 'audit-twin-2');
  t.after(() => again.close());
  await waitFor(() => again.frames.find((f) => f.k === 'snap' && 'grn' in f.d), 30000, 'edge back on the restarted cloud');
  assert.equal((await again.command({ [WRITABLE]: 0 })).k, 'ack');
  await waitFor(async () => JSON.parse((await audit('?plant=plant1', AUDITOR)).text).commands.some((c) => c.src === 'audit-twin-2' && c.outcome), 15000,
    'the new command and its outcome in the log');
  const kept = JSON.parse((await audit(`${window}&to=${restartAt}`, TOKENS.viewer, 'history')).text);
  assert.ok(kept.count >= before.count, 'the history from before the restart is still there');
  const seqs = new Set(kept.states.map((f) => `${f.k}:${f.seq}:${f.t}`));
  assert.ok(before.states.every((f) => seqs.has(`${f.k}:${f.seq}:${f.t}`)), 'every frame of it');
  assert.doesNotMatch(sys.cloud.logs(), /ExperimentalWarning/, 'node:sqlite is loaded without a warning in the user\'s log');
  const after = verify(file);
  assert.equal(after.status, 0, after.stderr);
  assert.ok(Number(/ok: (\d+) entries/.exec(after.stdout)[1]) >= head.n + 2, after.stdout);

  // A copy with one entry edited is found, at its line.
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
  const i = lines.findIndex((l) => l.includes('"src":"audit-twin"') && l.includes('"kind":"cmd"'));
  const copy = path.join(dir, 'tampered.jsonl');
  fs.writeFileSync(copy, `${lines.map((l, j) => (j === i ? l.replace('"seq":1', '"seq":9') : l)).join('\n')}\n`);
  const bad = verify(copy, '--no-head');
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, new RegExp(`^E_AUDIT_TAMPERED: line ${i + 1} was edited`));
});
