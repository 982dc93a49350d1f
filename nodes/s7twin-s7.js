'use strict';
/**
 * s7twin-s7 (edge): writes `cmd` envelopes to the PLC in one write each (all values checked
 * first: all or nothing), answers ack/err, writes `probe` slots and answers `probe-res`, and
 * streams PLC changes as `state` envelopes (one per read cycle with changes) and `snap`s.
 */
const envelope = require('./lib/envelope');
const { commandItems, probeItems, createStateDiffer } = require('./lib/edge-logic');
const { statusSetter } = require('./lib/status');
const registry = require('./lib/registry');

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
      probeTimeouts: 0, invalid: 0,
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
    const pending = new Map(); // probe slot -> {value, resAddr, resIndex, about, client, deadline}
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
    registry.add(node, () => ({ ...node.counters, pendingProbes: pending.size, probeBlocks: blocks.size + lingering.size, src, seq: sender.seq }));

    const emit = (env, client) => {
      const msg = { topic: env.k, payload: env };
      if (client !== undefined) msg._client = client;
      node.send(msg);
    };
    const answerErr = (err, about, client) => {
      const ref = about && about.src && about.seq ? { src: about.src, seq: about.seq } : undefined;
      emit(sender.error(err.code || 'E_INTERNAL', err.message, ref, about && about.cid), client);
    };

    function onStatus(s, detail) {
      if (s === 'connected') setStatus('connected', 'PLC connected');
      else if (s === 'connecting') setStatus('connecting', 'connecting to PLC');
      else setStatus('disconnected', detail === 'closed' ? 'PLC disconnected' : 'PLC down');
    }
    function onConnect() { snapNext = true; differ.reset(); }
    function onDisconnect(err) {
      for (const [slot, p] of pending) {
        unwatchBlock(p.resAddr);
        answerErr({ code: 'E_PLC_DOWN', message: `probe slot ${slot} lost with the PLC connection: ${err.message}` }, p.about, p.client);
      }
      pending.clear();
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
      if (pending.size) answerProbes(extra);
    }
    function answerProbes(extra) {
      const now = Date.now();
      const groups = new Map(); // "src:seq" -> {about, client, d}
      for (const [slot, p] of pending) {
        const block = extra[p.resAddr];
        if (Array.isArray(block) && block[p.resIndex] === p.value) {
          const key = `${p.about.src}:${p.about.seq}`;
          if (!groups.has(key)) groups.set(key, { about: p.about, client: p.client, d: {} });
          groups.get(key).d[slot] = p.value;
        } else if (now < p.deadline) {
          continue;
        } else {
          node.counters.probeTimeouts += 1;
          answerErr({ code: 'E_PROBE_TIMEOUT', message: `probe slot ${slot} did not answer ${p.value} within ${probeTimeoutMs} ms` }, p.about, p.client);
        }
        pending.delete(slot);
        unwatchBlock(p.resAddr);
      }
      for (const g of groups.values()) {
        node.counters.probeRes += 1;
        const fields = { d: g.d, ref: { src: g.about.src, seq: g.about.seq } };
        if (g.about.cid !== undefined) fields.cid = g.about.cid;
        emit(sender.make('probe-res', fields), g.client);
      }
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
        conn.write(items).then(() => {
          node.counters.acks += 1;
          const fields = { ref: { src: env.src, seq: env.seq } };
          if (env.cid !== undefined) fields.cid = env.cid;
          emit(sender.make('ack', fields), msg._client);
          done();
        }, (err) => {
          if (err.code === 'E_PLC_DOWN' || err.code === 'E_BUSY') node.counters.refused += 1;
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
        conn.write(items.map((i) => ({ addr: i.addr, value: i.value })), { independent: true }).then(() => {
          const about = { src: env.src, seq: env.seq, cid: env.cid };
          for (const i of items) {
            const prev = pending.get(i.slot);
            if (prev) unwatchBlock(prev.resAddr); // a new probe on a slot replaces the old one
            pending.set(i.slot, { value: i.value, resAddr: i.resAddr, resIndex: i.resIndex, about, client: msg._client, deadline: Date.now() + probeTimeoutMs });
            watchBlock(i.resAddr);
          }
          conn.readSoon();
          done();
        }, (err) => {
          node.counters.refused += 1;
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
      pending.clear();
      setStatus('clear');
      Promise.resolve(node.plc.deregister(node)).then(() => done(), () => done());
    });
  }
  RED.nodes.registerType('s7twin-s7', S7Node);
};
