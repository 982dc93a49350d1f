'use strict';
/**
 * A stand-in for node-opcua's client side, for the unit tests of the client session's parts
 * (connector, monitoring, requests, session): the calls they make, recorded, with failures a test
 * can switch on (`world.refuse.connect`, `.session`, `.subscription`, `.monitor`, `.write`,
 * `.read`, `.terminate`), calls that never answer (`world.hang`; a hanging connect fails once the
 * client is disconnected, as node-opcua's does), and a way to push notifications (`group.notify`).
 * No sockets.
 */
const { EventEmitter } = require('node:events');

const status = (name) => ({ name, isGood: () => name === 'Good', isNotGood: () => name !== 'Good' });

/** @returns {{opcua: object, world: object}} a fresh fake node-opcua and what it saw */
function fakeOpcua() {
  const world = {
    refuse: {}, // which calls throw, by name: a message
    clients: [],
    sessions: [],
    values: {}, // nodeId -> value for read()
    writes: [], // nodesToWrite of every Write
    hang: {}, // calls that never answer, by name
  };
  const check = (what) => {
    if (world.hang[what]) return new Promise(() => {});
    if (world.refuse[what]) return Promise.reject(new Error(world.refuse[what]));
    return Promise.resolve();
  };

  class Group extends EventEmitter {
    constructor(sub, items, params) {
      super();
      this.sub = sub;
      this.items = items.map((it, i) => ({
        itemToMonitor: { nodeId: { toString: () => it.nodeId } }, id: `${sub.nextId + i}`,
        result: { revisedSamplingInterval: params.samplingInterval },
      }));
      this.monitoredItems = this.items;
      for (const it of this.items) sub.monitoredItems[it.id] = it;
      sub.nextId += items.length;
    }

    async terminate() {
      await check('terminate');
      for (const it of this.items) delete this.sub.monitoredItems[it.id];
    }

    /** Notifications of one publish, delivered one by one as node-opcua does. */
    notify(changes) {
      for (const [nodeId, value, extra] of changes) {
        const item = this.items.find((it) => it.itemToMonitor.nodeId.toString() === nodeId);
        this.emit('changed', item, { value: { value }, statusCode: status('Good'), ...extra });
      }
    }
  }

  class Subscription {
    constructor(params) {
      this.params = params;
      this.publishingInterval = params.requestedPublishingInterval;
      this.monitoredItems = {};
      this.nextId = 1;
      this.groups = [];
      this.calls = []; // [items, params, timestamps] of every monitorItems
    }

    async monitorItems(items, params, timestamps) {
      this.calls.push([items, params, timestamps]);
      await check('monitor');
      const g = new Group(this, items, params);
      this.groups.push(g);
      return g;
    }
  }

  class Session extends EventEmitter {
    constructor(identity) {
      super();
      this.identity = identity;
      this.subscriptions = [];
      this.closed = false;
    }

    async createSubscription2(params) {
      await check('subscription');
      const s = new Subscription(params);
      this.subscriptions.push(s);
      return s;
    }

    async write(nodes) {
      await check('write');
      world.writes.push(nodes);
      return nodes.map((n) => status(world.values[n.nodeId] === 'denied' ? 'BadUserAccessDenied' : 'Good'));
    }

    async read(nodes, maxAge) {
      await check('read');
      this.lastMaxAge = maxAge;
      return nodes.map((n) => (n.nodeId in world.values
        ? { value: { value: world.values[n.nodeId] }, statusCode: status('Good') }
        : { value: { value: null }, statusCode: status('BadNodeIdUnknown') }));
    }

    async close() { this.closed = true; }
  }

  class Client extends EventEmitter {
    constructor(options) {
      super();
      this.options = options;
      this.bytesWritten = 0;
      this.bytesRead = 0;
      this.disconnected = false;
    }

    async initializeCM() {}

    async connect(url) {
      this.url = url;
      // As node-opcua's: a connect still retrying fails once the client is disconnected.
      if (world.hang.connect) return new Promise((_, reject) => { this.abort = () => reject(new Error('disconnected while connecting')); });
      await check('connect');
      this.bytesWritten += 100;
      this.bytesRead += 50;
    }

    async createSession(identity) {
      await check('session');
      const s = new Session(identity);
      world.sessions.push(s);
      return s;
    }

    async disconnect() {
      this.disconnected = true;
      if (this.abort) this.abort();
    }
  }

  const opcua = {
    OPCUAClient: { create: (options) => { const c = new Client(options); world.clients.push(c); return c; } },
    OPCUACertificateManager: class { constructor(o) { this.options = o; } },
    MessageSecurityMode: { None: 1, Sign: 2, SignAndEncrypt: 3 },
    SecurityPolicy: { None: 'http://opcfoundation.org/UA/SecurityPolicy#None', Basic256Sha256: 'http://opcfoundation.org/UA/SecurityPolicy#Basic256Sha256' },
    UserTokenType: { Anonymous: 0, UserName: 1 },
    AttributeIds: { Value: 13 },
    TimestampsToReturn: { Source: 0, Server: 1, Both: 2 },
    DataType: { Boolean: 1, Int16: 4, Int32: 6, UInt32: 7 },
  };
  return { opcua, world, status };
}

module.exports = { fakeOpcua, status };
