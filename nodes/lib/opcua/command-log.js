'use strict';
/**
 * What the cloud OPC UA server tells the command log (`audit`, lib/history/command-audit.js,
 * handed in by the server node) of each write of a command variable (`Objects/<plant>/Commands/…`,
 * the PLC's inputs), one command per variable written (a Write request of several variables is
 * several commands of one session, numbered in order):
 *
 * - who: the session's user name and its account's role (`twin`, `edge`; `anonymous`), never a
 *   password; from where: the client's address:port; `src`: the session's name (the client's
 *   own), `seq`: the command's number in its session; `target`: the variable's node id;
 * - what it asked: the value, by the table's short name;
 * - what the server did: `relayed` (the variable took a new value: the edge's bridge, which
 *   monitors the command variables, writes it to the PLC if it still is the variable's value
 *   when the bridge samples it; OPC UA gives the twin no answer per command, so not "written"),
 *   `unchanged` (the variable already held that value: the bridge sees no change and writes
 *   nothing), or `refused`: E_OPCUA_DENIED (an account that may not write commands),
 *   E_OPCUA_WRITE (another bad status, in the message: a value of the wrong type), E_RATE_LIMIT
 *   (the session's channel went over its request rate: the write was not processed).
 *
 * A value set from the flow (the server node's input) is a command too, with the node as its
 * sender (role `flow`). Writes of the state variables (the edge's) and of the probe slots are not
 * commands and are not logged.
 *
 * Plain module: the protocol modules never import lib/history (docs/layout.md).
 */
const clock = require('../core/clock');
const ot = require('./tags');
const { whoOf } = require('./accounts');

const MSG_CHARS = 200;

/** A value as a command asked it, for the log: by the tag's type when it reads as one, else as sent (primitives only). */
function askedValue(tag, raw) {
  if (raw === null || raw === undefined || typeof raw === 'object') return undefined;
  try {
    return ot.fromVariant(tag, raw);
  } catch {
    return typeof raw === 'number' || typeof raw === 'string' || typeof raw === 'boolean' ? raw : undefined;
  }
}

/** The client's address:port of a session, if it still has its channel. */
function remoteOf(session) {
  const ch = session && session.channel;
  return ch && ch.remoteAddress ? `${ch.remoteAddress}:${ch.remotePort}` : undefined;
}

/**
 * @param {object} o
 * @param {{taken(c: object): boolean}} [o.audit] the command log's recorder; none: nothing is logged
 * @param {string} o.plant the server's plant
 * @param {(user: string) => string|null} o.roleOf the role of a user name (lib/opcua/accounts.js)
 * @param {() => number} [o.now] the cloud's clock
 */
function createCommandLog(o) {
  const { audit } = o;
  const now = o.now || clock.now;
  const seqOf = new WeakMap(); // session -> commands it wrote
  let localSeq = 0; // commands set from the flow

  /** The parts of a command every write of a session shares. */
  function base(tag, nodeId, session, at) {
    const user = whoOf(session ? { session } : null);
    const seq = (session ? seqOf.get(session) || 0 : 0) + 1;
    if (session) seqOf.set(session, seq);
    return {
      via: 'opcua', plant: o.plant, at, who: { user, role: o.roleOf(user) || (user === 'anonymous' ? 'anonymous' : undefined) },
      from: remoteOf(session), src: (session && session.sessionName) || user, seq, target: nodeId,
    };
  }

  return {
    /** Whether anything is logged (a server without a log skips the work). */
    on: Boolean(audit),
    /**
     * A client's write of a tag's variable begins (called before the value changes).
     * @param {object} tag
     * @param {string} nodeId
     * @param {object} context node-opcua's SessionContext
     * @param {object} writeValue node-opcua's WriteValue
     * @returns {null|((outcome: 'relayed'|'unchanged'|'denied'|'failed', status?: string) => void)}
     *   null: not a command (a state variable), or no log
     */
    begin(tag, nodeId, context, writeValue) {
      if (!audit || tag.dir !== 'in') return null;
      const at = now();
      const session = context && context.session;
      const dv = writeValue && writeValue.value;
      const asked = askedValue(tag, dv && dv.value && dv.value.value);
      const b = base(tag, nodeId, session, at);
      return (outcome, status) => {
        const d = asked === undefined ? undefined : { [tag.short]: asked };
        if (outcome === 'relayed' || outcome === 'unchanged') { audit.taken({ ...b, d, outcome }); return; }
        const code = outcome === 'denied' ? 'E_OPCUA_DENIED' : 'E_OPCUA_WRITE';
        const msg = outcome === 'denied'
          ? `BadUserAccessDenied: user "${b.who.user}" may not write commands`
          : `the server refused the write: ${String(status || 'a bad status').slice(0, MSG_CHARS)}`;
        audit.taken({ ...b, d, outcome: 'refused', code, msg });
      };
    },
    /**
     * A request refused before it was processed (its channel over its limits): its writes of
     * command variables, each refused with the limit's code.
     * @param {{request?: object, session?: object, code: string, message: string}} ev
     * @param {(nodeId: string) => object|undefined} tagOf the command tag of a node id
     */
    limited(ev, tagOf) {
      const writes = audit && ev.request && Array.isArray(ev.request.nodesToWrite) ? ev.request.nodesToWrite : [];
      const at = now();
      for (const w of writes) {
        if (!w || !w.nodeId) continue;
        const nodeId = w.nodeId.toString();
        const tag = tagOf(nodeId);
        if (!tag || tag.dir !== 'in') continue;
        const dv = w.value;
        const asked = askedValue(tag, dv && dv.value && dv.value.value);
        audit.taken({
          ...base(tag, nodeId, ev.session, at), d: asked === undefined ? undefined : { [tag.short]: asked }, outcome: 'refused', code: ev.code, msg: ev.message,
        });
      }
    },
    /**
     * A value set from the flow (the server node's input): a command with the node as its sender.
     * @param {{id: string, name?: string}} by
     * @param {object} tag
     * @param {string} nodeId
     * @param {*} value as the variable holds it now
     * @param {boolean} changed
     */
    local(by, tag, nodeId, value, changed) {
      if (!audit || !by || tag.dir !== 'in') return;
      localSeq += 1;
      audit.taken({
        via: 'opcua', plant: o.plant, at: now(), who: { user: by.name || by.id, role: 'flow' }, src: 'local', seq: localSeq, node: by.id, target: nodeId,
        d: { [tag.short]: value }, outcome: changed ? 'relayed' : 'unchanged',
      });
    },
  };
}

module.exports = { createCommandLog, askedValue, remoteOf };
