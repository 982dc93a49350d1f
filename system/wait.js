'use strict';
/**
 * The one wait-for of the launcher, the tests and the bench tools: poll a condition instead of sleeping a fixed
 * time, so a test is as fast as the system allows and still passes on a loaded machine.
 */

/**
 * Poll `fn` until it returns a truthy value (it may be async; a throw counts as not yet), and
 * return that value. No timing assertion: the timeout only bounds a wait that would otherwise hang.
 * @param {() => any} fn
 * @param {number} [timeoutMs=20000]
 * @param {string} [what] described in the timeout error (default: the function's source)
 * @param {number} [intervalMs=25] pause between two polls (short where the condition is brief,
 *   e.g. one PLC scan)
 * @returns {Promise<any>}
 * @throws {Error} code E_TIMEOUT, naming `what` and the last value or error seen
 */
async function waitFor(fn, timeoutMs = 20000, what = fn.toString(), intervalMs = 25) {
  const end = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) {
      const seen = last instanceof Error ? last.message : JSON.stringify(last);
      throw Object.assign(new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${seen})`), { code: 'E_TIMEOUT' });
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

module.exports = { waitFor };
