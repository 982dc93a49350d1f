'use strict';
/**
 * Lint for the whole repository: ESLint's own recommended rules (@eslint/js), the globals of each
 * runtime the files run in (Node.js, the browser twin's page and worker, the Node-RED editor, k6),
 * and a line length a reader can take in at once. `npm run lint` runs it; the test command
 * (scripts/test.sh) runs it before the tests. A file that hands functions to a page through
 * playwright (page.evaluate) names the page's globals itself, in a `global` comment.
 * Nothing generated is on disk to skip: the browser twin's page bundle is built in memory and its
 * libraries are served from node_modules; flows are JSON, which ESLint does not read.
 */
const js = require('@eslint/js');
const globals = require('globals');

/** Scripts that never run in Node.js: they get their own runtime's globals only, not Node's. */
const NOT_NODE = ['resources/**', 'bench/k6/ws-probes.js'];
/** What k6 gives its scripts besides its modules (k6's docs: init context, execution context variables). */
const K6_GLOBALS = { __ENV: 'readonly', __VU: 'readonly', __ITER: 'readonly', open: 'readonly', console: 'readonly' };

module.exports = [
  {
    ignores: ['node_modules/**', '.tools/**', 'results/**', 'bench/results/**', '.node-red-*/**', '.fleet/**'],
  },
  js.configs.recommended,
  {
    files: ['**/*.js'],
    ignores: NOT_NODE,
    languageOptions: { ecmaVersion: 2024, sourceType: 'commonjs', globals: { ...globals.node } },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: { ...globals.node } },
  },
  {
    // What runs in the browser twin's page and worker (served by nodes/lib/web/ui.js); its CommonJS
    // files run in Node.js too (the page bundle is made of them, and their tests load them).
    files: ['twin/browser/**'],
    languageOptions: { globals: { ...globals.browser, ...globals.worker } },
  },
  {
    // The edit dialogs' shared script: a classic script in the Node-RED editor, beside its jQuery
    // (`$`) and its `RED`.
    files: ['resources/**'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'script', globals: { ...globals.browser, $: 'readonly', RED: 'readonly' } },
  },
  {
    // k6 load scripts: ES modules run by k6, not Node.js (bench/k6/echo*.js are Node.js).
    files: ['bench/k6/ws-probes.js'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: K6_GLOBALS },
  },
  {
    // No function of the bundle, the virtual PLC or the twins needs a scroll bar (docs/layout.md,
    // "Small units"): past 150 lines of code it is several functions.
    files: ['nodes/**/*.js', 'plc/**/*.js', 'twin/**/*.js', 'twin/**/*.mjs'],
    rules: { 'max-lines-per-function': ['error', { max: 150, skipBlankLines: true, skipComments: true }] },
  },
  {
    rules: {
      'max-len': ['error', { code: 160, ignoreUrls: true, ignoreRegExpLiterals: true }],
      // A rest sibling is how an object is copied without some keys (`const { hist, ...rest } = r`).
      'no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      'prefer-const': 'error',
      'no-var': 'error',
      eqeqeq: ['error', 'smart'],
    },
  },
];
