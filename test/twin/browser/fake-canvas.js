'use strict';
/**
 * A document whose canvases draw nothing, so modules of the browser twin's 3D view that paint
 * textures on a canvas run in Node (three.js itself needs no DOM to build a scene graph).
 */

/** Install a stand-in `document` on the global object; returns a function that removes it. */
function installFakeDocument() {
  const noop = () => {};
  const ctx = new Proxy({}, { get: () => noop, set: () => true });
  const had = 'document' in globalThis;
  const before = globalThis.document;
  globalThis.document = { createElement: () => ({ width: 0, height: 0, getContext: () => ctx }) };
  return () => { if (had) globalThis.document = before; else delete globalThis.document; };
}

module.exports = { installFakeDocument };
