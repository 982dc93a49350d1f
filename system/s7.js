'use strict';
/**
 * A promise-style S7 client (nodes7, rack 0, slot 1) to read and write a PLC as any S7 client
 * would: the tests, the bench tools and the end-to-end helpers look at the virtual PLC through it.
 *   const s7 = await s7Connect(plc.ports.s7);
 *   await s7.read(['DB1,X2.0']);        // → {'DB1,X2.0': true}
 *   await s7.write({ 'DB1,X0.0': true });
 *   await s7.close();
 */

/**
 * Connect. A read with a bad quality rejects with code E_S7_READ (`values` carry the "BAD ..."
 * strings); a failed write with E_S7_WRITE. Jobs run one at a time, as nodes7 needs.
 * @param {number} port
 * @param {string} [host='127.0.0.1']
 * @returns {Promise<{conn:object, read:(addrs:string[])=>Promise<object>, write:(map:object)=>Promise<void>, close:()=>Promise<void>}>}
 */
async function s7Connect(port, host = '127.0.0.1') {
  const NodeS7 = require('nodes7');
  const conn = new NodeS7({ silent: true });
  await new Promise((resolve, reject) => {
    conn.initiateConnection({ host, port, rack: 0, slot: 1, timeout: 5000 }, (err) => (err ? reject(err) : resolve()));
  });
  conn.setTranslationCB((t) => t);
  let queue = Promise.resolve(); // nodes7 runs one read or write job at a time
  const serial = (job) => { const p = queue.then(job); queue = p.catch(() => {}); return p; };
  return {
    conn,
    read(addrs) {
      return serial(() => new Promise((resolve, reject) => {
        conn.removeItems();
        conn.addItems(addrs);
        conn.readAllItems((bad, values) => {
          if (bad) {
            const e = new Error(`S7 read failed: ${JSON.stringify(values)}`);
            e.code = 'E_S7_READ';
            e.values = values;
            reject(e);
          } else resolve(values);
        });
      }));
    },
    write(map) {
      return serial(() => new Promise((resolve, reject) => {
        const keys = Object.keys(map);
        conn.writeItems(keys, keys.map((k) => map[k]), (bad) => {
          if (bad) { const e = new Error(`S7 write failed: ${keys.join(',')}`); e.code = 'E_S7_WRITE'; reject(e); } else resolve();
        });
      }));
    },
    close() { return new Promise((resolve) => conn.dropConnection(() => resolve())); },
  };
}

module.exports = { s7Connect };
