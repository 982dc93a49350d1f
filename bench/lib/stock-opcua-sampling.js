'use strict';
/**
 * Preloaded (`--require`) into the cloud Node-RED of a benchmark run with
 * `--stock-opcua-sampling <ms>`: the study's edit of node-red-contrib-opcua, without editing
 * node_modules. The contrib OPC UA server node gives every variable it adds
 * `minimumSamplingInterval: 500` (hard-coded in opcua/104-opcuaserver.js), so a client's
 * monitored item on it is sampled every 500 ms however fast it asks; the study "reduced [it]
 * from 500 ms to 50 ms" in that file (section 5.2). Here the address space that node uses gets
 * S7T_STOCK_OPCUA_MIN_SAMPLING_MS instead of 500 for every variable added with 500.
 * Without the option (the default) the replica runs the node as installed.
 */
const path = require('node:path');

const ms = Number(process.env.S7T_STOCK_OPCUA_MIN_SAMPLING_MS);
if (process.env.S7T_STOCK_OPCUA_MIN_SAMPLING_MS && Number.isFinite(ms) && ms >= 0) {
  // node-red-contrib-opcua ships its own node-opcua: patch the copy it loads, not ours.
  const contrib = path.dirname(require.resolve('node-red-contrib-opcua/package.json'));
  const { NamespaceImpl } = require(require.resolve('node-opcua-address-space/dist/src/namespace_impl', { paths: [contrib] }));
  const addVariable = NamespaceImpl.prototype.addVariable;
  NamespaceImpl.prototype.addVariable = function addVariableStudy(options) {
    if (options && options.minimumSamplingInterval === 500) return addVariable.call(this, { ...options, minimumSamplingInterval: ms });
    return addVariable.call(this, options);
  };
}
