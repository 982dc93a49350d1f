'use strict';
/**
 * Lint for the whole repository: ESLint's own recommended rules (@eslint/js), the globals of each
 * runtime the files run in, and a line length a reader can take in at once. `npm run lint` runs
 * it; the test command runs it before the tests.
 */
const js = require('@eslint/js');
const globals = require('globals');

module.exports = [
  {
    ignores: ['node_modules/**', '.tools/**', 'results/**', 'bench/results/**', '.node-red-*/**', '.fleet/**', 'twin/browser/vendor/**'],
  },
  js.configs.recommended,
  {
    files: ['**/*.js'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'commonjs', globals: { ...globals.node } },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: { ...globals.node } },
  },
  {
    // What runs in the browser twin's page and worker (served by nodes/lib/web/ui.js).
    files: ['twin/browser/**', 'resources/**'],
    languageOptions: { globals: { ...globals.browser, ...globals.worker } },
  },
  {
    rules: {
      'max-len': ['error', { code: 160, ignoreUrls: true, ignoreRegExpLiterals: true }],
      'no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^_', caughtErrors: 'none' }],
      'prefer-const': 'error',
      'no-var': 'error',
      eqeqeq: ['error', 'smart'],
    },
  },
];
