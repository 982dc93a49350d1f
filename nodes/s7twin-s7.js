'use strict';
/**
 * s7twin-s7 (edge): writes `cmd` envelopes to the PLC in one write each (all values checked
 * first: all or nothing), answers ack/err, writes `probe` slots and answers `probe-res`, and
 * streams PLC changes as `state` envelopes (one per read cycle with changes) and `snap`s.
 *
 * Every request (cmd, probe) gets exactly one answer. A request with a deadline
 * (`msg.deadline`, this edge's clock, set by s7twin-link-in from the cloud's `dl`) is never
 * written after it: it is answered E_EXPIRED when it arrives late, or when its turn in the write
 * queue comes too late (lib/s7/connection.js checks again right before the write request).
 */
const envelope = require('./lib/core/envelope');
const clock = require('./lib/core/clock');
const { commandItems, probeItems, createStateDiffer } = require('./lib/s7/edge');
const { statusSetter } = require('./lib/runtime/status');
const registry = require('./lib/runtime/registry');

const PROBE_TIMEOUT_MS = 5000; // a probe whose response slot never shows its value is answered E_PROBE_TIMEOUT
const BLOCK_LINGER_MS = 2000; // an emptied probe response block stays in the read this long

module.exports = function register(RED) {
  function S7Node(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    const setStatus = statusSetter(node);
    node.plc = RED.nodes.getNode(config.plc);
    node.counters = {
      cmds: 0, acks: 0, refused: 0, writeErrors: 0, states: 0, snaps: 0, probes: 0, probeRes: 0,
      probeTimeouts: 0, invalid: 0, expired: 0, superseded: 0,
    };
    if (!node.plc) {
      setStatus('error', 'no PLC configured');
      node.error('s7twin-s7 needs an s7twin-plc config node');
      node.on('input', (msg, send, done) => done(new Error('no PLC configured')));
      return;
    }
    const src = (config.src || `edge-${node.id}`).replace(/[^A-Za-z0-9_.:-]/g, '').slice(0, 64);
    const sender = envelope.createSender(src); // one sender per node: seq continues across reconnects
    const probeTimeoutMs = Number(config.probeTimeoutMs) > 0 ? Number(config.probeTimeoutMs) : PROBE_TIMEOUT_MS;
    const differ = createStateDiffer();
    const conn = node.plc.conn;
    const frames = new Map(); // "src seq" of a probe frame written -> {about, client, left: Map(slot -> item), got, deadline}
    const frameOfSlot = new Map(); // probe slot -> the key of the frame waiting on it
    const blocks = new Map(); // response block read item -> pending probes in it
    // A block whose last probe was answered stays in the read for BLOCK_LINGER_MS: with many
    // twins, blocks empty and refill all the time, and every change of nodes7's item list re-parses
    // and re-prepares the whole read (4.7 % of the edge's JS time at 1,000 twins). An idle block costs
    // 256 bytes more per read until it goes.
    const lingering = new Map(); // block -> timer that unwatches it
    const watchBlock = (addr) => {
      blocks.set(addr, (blocks.get(addr) || 0) + 1);
      if (blocks.get(addr) !== 1) return;
      if (lingering.has(addr)) { clearTimeout(lingering.get(addr)); lingering.delete(addr); return; }
      conn.watch(addr);
    };
    const unwatchBlock = (addr) => {
      const n = (blocks.get(addr) || 1) - 1;
      if (n > 0) { blocks.set(addr, n); return; }
      blocks.delete(addr);
      if (lingering.has(addr)) return;
      lingering.set(addr, setTimeout(() => { lingering.delete(addr); conn.unwatch(addr); }, BLOCK_LINGER_MS));
    };
    let snapNext = true; // the first read after (re)connect goes out as a snap
    registry.add(node, () => ({ ...node.counters, pendingProbes: frameOfSlot.size, probeBlocks: blocks.size + lingering.size, src, seq: sender.seq }));

    const emit = (env, client) => {
      const msg = { topic: env.k, payload: env };
      if (client !== undefined) msg._client = client;
      node.send(msg);
    };
    const answerErr = (err, about, client) => {
      const ref = about && about.src && about.seq ? { src: about.src, seq: about.seq } : undefined;
      emit(sender.error(err.code || 'E_INTERNAL', err.message, ref, about && about.cid, about && about.dl), client);
    };

    function onStatus(s, detail) {
      if (s === 'connected') setStatus('connected', 'PLC connected');
      else if (s === 'connecting') setStatus('connecting', 'connecting to PLC');
      else setStatus('disconnected', detail === 'closed' ? 'PLC disconnected' : 'PLC down');
    }
    function onConnect() { snapNext = true; differ.reset(); }
    /** Forget a probe frame (its slots no longer watched) and answer it with an error. */
    function failFrame(key, code, message) {
      const f = frames.get(key);
      frames.delete(key);
      for (const [slot, item] of f.left) {
        frameOfSlot.delete(slot);
        unwatchBlock(item.resAddr);
      }
      answerErr({ code, message }, f.about, f.client);
    }
    function onDisconnect(err) {
      for (const key of [...frames.keys()]) {
        failFrame(key, 'E_PLC_DOWN', `probe slot(s) ${[...frames.get(key).left.keys()].join(', ')} lost with the PLC connection: ${err.message}`);
      }
    }
    function onData(buf, extra) {
      const { values, changed, first } = differ.update(buf);
      if (snapNext || first) {
        snapNext = false;
        node.counters.snaps += 1;
        emit(sender.make('snap', { d: values }));
      } else if (Object.keys(changed).length) {
        node.counters.states += 1;
        emit(sender.make('state', { d: changed }));
      }
      if (frames.size) answerProbes(extra);
    }
    /** A probe frame is answered once: probe-res when every slot shows its value, else one err. */
    function answerProbes(extra) {
      const now = Date.now();
      for (const [key, f] of frames) {
        for (const [slot, item] of f.left) {
          const block = extra[item.resAddr];
          if (!Array.isArray(block) || block[item.resIndex] !== item.value) continue;
          f.got[slot] = item.value;
          f.left.delete(slot);
          frameOfSlot.delete(slot);
          unwatchBlock(item.resAddr);
        }
        if (f.left.size === 0) {
          frames.delete(key);
          node.counters.probeRes += 1;
          const fields = { d: f.got, ref: { src: f.about.src, seq: f.about.seq }, dl: f.about.dl };
          if (f.about.cid !== undefined) fields.cid = f.about.cid;
          emit(sender.make('probe-res', fields), f.client);
        } else if (now >= f.deadline) {
          node.counters.probeTimeouts += 1;
          failFrame(key, 'E_PROBE_TIMEOUT', `probe slot(s) ${[...f.left].map(([slot, i]) => `${slot}=${i.value}`).join(', ')} did not answer within ${probeTimeoutMs} ms`);
        }
      }
    }
    /** Why a request may not be written now (its deadline, judged on this edge's clock), or null. */
    function lateness(env, msg) {
      if (typeof msg.deadline === 'number') {
        const left = msg.deadline - clock.now();
        return left > 0 ? null : `its deadline passed ${Math.round(-left)} ms before it could be written`;
      }
      // A deadline on the cloud's clock with no offset estimate to judge it by: the clocks of two
      // hosts are never taken to be equal. (s7twin-link-in sets msg.deadline on the edge.)
      if (env.dl !== undefined) return 'it carries a deadline on another host\'s clock and no estimate of that clock (msg.deadline); send it through an s7twin-link-in on an s7twin-link-client';
      return null;
    }
    function expire(env, why, client) {
      node.counters.expired += 1;
      answerErr({ code: 'E_EXPIRED', message: `${env.k} not written: ${why}` }, env, client);
    }
    conn.on('status', onStatus);
    conn.on('connect', onConnect);
    conn.on('disconnect', onDisconnect);
    conn.on('data', onData);
    onStatus(conn.state);
    node.plc.register(node);

    node.on('input', (msg, send, done) => {
      const p = msg.payload;
      if (msg.topic === 'snapshot' || (p && p.k === 'snap-request')) {
        if (!conn.connected) {
          answerErr({ code: 'E_PLC_DOWN', message: 'no snapshot: the PLC is not connected (one follows when it is)' }, null, msg._client);
        } else {
          snapNext = true; // the next read (right away) goes out as a snap: fresh values, not cached ones
          conn.readSoon();
        }
        done();
        return;
      }
      let env;
      try {
        env = typeof p === 'string' || Buffer.isBuffer(p) ? envelope.parse(p) : envelope.validate(p);
      } catch (err) {
        node.counters.invalid += 1;
        answerErr(err, err.ref, msg._client);
        done(err);
        return;
      }
      if (envelope.REQUEST_KINDS.has(env.k)) {
        const late = lateness(env, msg);
        if (late) { node.counters[env.k === 'cmd' ? 'cmds' : 'probes'] += 1; expire(env, late, msg._client); done(); return; }
      }
      const writeOpts = typeof msg.deadline === 'number' ? { deadline: msg.deadline } : {};
      if (env.k === 'cmd') {
        node.counters.cmds += 1;
        let items;
        try {
          items = commandItems(env.d);
        } catch (err) {
          node.counters.refused += 1;
          answerErr(err, env, msg._client);
          done();
          return;
        }
        conn.write(items, writeOpts).then(() => {
          node.counters.acks += 1;
          const fields = { ref: { src: env.src, seq: env.seq }, dl: env.dl };
          if (env.cid !== undefined) fields.cid = env.cid;
          emit(sender.make('ack', fields), msg._client);
          done();
        }, (err) => {
          if (err.code === 'E_EXPIRED') node.counters.expired += 1;
          else if (err.code === 'E_PLC_DOWN' || err.code === 'E_BUSY') node.counters.refused += 1;
          else if (err.code === 'E_OUTCOME_UNKNOWN') node.counters.unknownOutcomes = (node.counters.unknownOutcomes || 0) + 1;
          else node.counters.writeErrors += 1;
          answerErr(err, env, msg._client);
          done();
        });
        return;
      }
      if (env.k === 'probe') {
        node.counters.probes += 1;
        let items;
        try {
          items = probeItems(env.d);
        } catch (err) {
          node.counters.refused += 1;
          answerErr(err, env, msg._client);
          done();
          return;
        }
        conn.write(items.map((i) => ({ addr: i.addr, value: i.value })), { ...writeOpts, independent: true }).then(() => {
          const key = `${env.src} ${env.seq}`;
          const f = { about: { src: env.src, seq: env.seq, cid: env.cid, dl: env.dl }, client: msg._client, left: new Map(), got: {}, deadline: Date.now() + probeTimeoutMs };
          for (const i of items) {
            // A new probe on a slot replaces the one waiting there: that frame is answered now.
            const prev = frameOfSlot.get(i.slot);
            if (prev !== undefined && prev !== key && frames.has(prev)) {
              node.counters.superseded += 1;
              failFrame(prev, 'E_PROBE_SUPERSEDED', `probe slot ${i.slot} was probed again before it answered`);
            }
            f.left.set(i.slot, i);
            frameOfSlot.set(i.slot, key);
            watchBlock(i.resAddr);
          }
          frames.set(key, f);
          conn.readSoon();
          done();
        }, (err) => {
          node.counters[err.code === 'E_EXPIRED' ? 'expired' : 'refused'] += 1;
          answerErr(err, env, msg._client);
          done();
        });
        return;
      }
      node.counters.refused += 1;
      answerErr({ code: 'E_KIND', message: `s7twin-s7 takes cmd, probe and snap-request frames, not "${env.k}"` }, env, msg._client);
      done();
    });

    node.on('close', (removed, done) => {
      registry.remove(node);
      conn.removeListener('status', onStatus);
      conn.removeListener('connect', onConnect);
      conn.removeListener('disconnect', onDisconnect);
      conn.removeListener('data', onData);
      for (const addr of blocks.keys()) conn.unwatch(addr);
      for (const [addr, timer] of lingering) { clearTimeout(timer); conn.unwatch(addr); }
      lingering.clear();
      blocks.clear();
      frames.clear();
      frameOfSlot.clear();
      setStatus('clear');
      Promise.resolve(node.plc.deregister(node)).then(() => done(), () => done());
    });
  }
  RED.nodes.registerType('s7twin-s7', S7Node);
};
