'use strict';
/**
 * A reporter for Node's test runner that writes one JSON line per failed test: its file, line,
 * name and the first lines of its error. scripts/run-tests.js runs it beside the TAP reporter and
 * prints the failures of both passes last, so that the end of a long log (all a CI run may keep)
 * names what failed, wherever in the run it was.
 *
 * A test that failed only because a subtest did is left out: the subtest is the line to read.
 *
 * At the end it writes one line per test file with the time its top-level tests and suites took
 * (`{"file", "ms"}`; hooks outside a suite and loading the file are not in it), so the summary can
 * name the slowest files.
 */

/** Lines of an error's message kept per failure. */
const MESSAGE_LINES = 12;

/**
 * What a failed test's error says, the assertion's own error where the runner wrapped it.
 * @param {unknown} error the `details.error` of a `test:fail` event
 * @returns {string} the message, at most MESSAGE_LINES lines
 */
function messageOf(error) {
  const inner = error && typeof error === 'object' && error.cause ? error.cause : error;
  let text;
  if (inner instanceof Error) text = inner.stack || `${inner.name}: ${inner.message}`;
  else if (inner && typeof inner === 'object' && typeof inner.message === 'string') text = inner.message;
  else text = String(inner);
  return text.split('\n').slice(0, MESSAGE_LINES).join('\n');
}

/**
 * One failure as a record, or null when it failed only through its subtests.
 * @param {{name: string, file?: string, line?: number, nesting: number, details: {error?: any}}} data
 * @returns {{file: string|null, line: number|null, name: string, message: string}|null}
 */
function failureOf(data) {
  const error = data.details && data.details.error;
  if (error && error.failureType === 'subtestsFailed') return null;
  return {
    file: data.file || null,
    line: data.line || null,
    name: data.name,
    message: messageOf(error),
  };
}

/**
 * The reporter: an async generator over the runner's events.
 * @param {AsyncIterable<{type: string, data: any}>} source
 */
async function* failuresReporter(source) {
  const msByFile = new Map();
  for await (const event of source) {
    const { type, data } = event;
    if ((type === 'test:pass' || type === 'test:fail') && data.nesting === 0 && data.file) {
      msByFile.set(data.file, (msByFile.get(data.file) || 0) + ((data.details && data.details.duration_ms) || 0));
    }
    if (type !== 'test:fail') continue;
    const failure = failureOf(data);
    if (failure) yield `${JSON.stringify(failure)}\n`;
  }
  for (const [file, ms] of msByFile) yield `${JSON.stringify({ file, ms: Math.round(ms) })}\n`;
}

module.exports = failuresReporter;
