'use strict';
/**
 * When the edge's next read of the PLC is due. Plain logic over times passed in (no timers, no
 * nodes7): the session (lib/s7/session.js) asks it before every request.
 *
 * - Reads follow each other every `cycleMs` (the PLC's scan period), never overlapping.
 * - After a write, reads follow each other `readGapMs` apart (a "chase") until the values differ from
 *   the chase's first read, that is until the PLC has scanned since the write and its reaction is
 *   in, but for at most `chaseMs`. A write the PLC does not react to changes nothing; one it reacts
 *   to shows within one scan. Chasing on after the reaction kept the edge and the PLC re-reading
 *   unchanged values (docs/bridge.md).
 * - Reads start at least `readGapMs` apart (unless one is asked for: on connect, a snapshot). The
 *   PLC's answers change once a scan; reads of one PDU take a fraction of a millisecond, and
 *   chasing back to back, or reading after every write, made 6,000 reads a second at 1,000
 *   twins, where a read every couple of milliseconds sees each scan's answers as well
 *   (docs/bridge.md).
 * - After a write a read is due as soon as the gap allows (the PLC's answer can only be seen that
 *   way), and a due read goes before queued writes, so a stream of writes never starves the reads.
 * - A read that spans several PDUs is followed by a rest, so such reads take at most `readDuty` of
 *   the time, but the rest is never longer than `maxRestMs`: a read held up by a GC pause must not
 *   leave every probe waiting twice as long again.
 */

/** nodes7 values (arrays for ranges) equal? */
function sameValue(a, b) {
  if (!Array.isArray(a) || !Array.isArray(b)) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * @param {{cycleMs: number, chaseMs: number, readGapMs: number, readDuty: number, maxRestMs: number}} o
 * @param {{chaseReads: number, chaseEnds: number, rests: number}} counters incremented here
 * @returns {object} see the methods
 */
function createReadPacer(o, counters) {
  const gap = o.readGapMs || 0;
  let readNow = false; // a read is wanted as soon as the rest allows (on connect, asked for)
  let lastStarted = -Infinity; // when the last read started
  let chasing = false; // the next read is one after a write (or a chase's next): due, it goes before queued writes
  let nextReadAt = 0; // the next cyclic (or chase) read
  let restAt = 0; // no read starts before then (after a read of several PDUs)
  let chaseUntil = 0; // reads follow each other readGapMs apart until then (after a write)
  let chaseBase = null; // values of the first read of the current chase

  /**
   * True once a chase has seen the PLC scan: a value differs from the chase's first read (of the
   * items both reads asked for: the probe ranges change from read to read, the I/O ranges and
   * their scan counter stay). Every read of a chase started after the write completed, so the
   * scan that changed them ended after the write. It may have begun before the write landed and
   * not seen it (the virtual PLC's scan counter reaches its data block through its own S7 client,
   * a moment after its scan): then the reaction is in the next scan. So the read after an early
   * end comes one scan later: `cycleMs`, or `chaseMs` where the cycle is longer (chaseMs is a scan
   * plus a margin). Chasing until a second change would double the chase's reads on every write.
   */
  function chaseOver(values) {
    if (!chaseBase) { chaseBase = values; return false; }
    for (const k in values) {
      if (k in chaseBase && !sameValue(values[k], chaseBase[k])) {
        chaseUntil = 0;
        counters.chaseEnds += 1;
        return true;
      }
    }
    return false;
  }

  return {
    /** Read as soon as the rest allows, before any queued write. */
    requestRead() { readNow = true; },
    /** Whether a read must go out now, ahead of queued writes. */
    readFirst(now) { return now >= restAt && (readNow || (chasing && now >= nextReadAt)); },
    /** Milliseconds until the next read is due (<= 0: now). */
    waitMs(now) { return (readNow ? restAt : Math.max(nextReadAt, restAt)) - now; },
    /** A read request goes out now. */
    readStarted() { readNow = false; chasing = false; },
    /**
     * A read came back.
     * @param {{started: number, tookMs: number, pdus: number, values: object, now: number}} r
     *   started and now on the session's clock (performance.now() ms), tookMs its duration, pdus
     *   the requests it took
     */
    readDone(r) {
      lastStarted = r.started;
      if (o.readDuty < 1 && r.pdus > 1) {
        restAt = r.started + r.tookMs + Math.min(o.maxRestMs, r.tookMs * (1 / o.readDuty - 1));
        counters.rests += 1;
      }
      const inChase = r.now < chaseUntil;
      if (inChase && !chaseOver(r.values)) {
        counters.chaseReads += 1;
        nextReadAt = r.started + gap;
        chasing = true;
      } else {
        nextReadAt = r.started + (inChase ? Math.min(o.cycleMs, o.chaseMs) : o.cycleMs);
      }
    },
    /** A write came back (ok: the PLC took it, so a chase starts). */
    writeDone(ok, now) {
      nextReadAt = Math.min(nextReadAt, lastStarted + gap); // see the PLC's reaction as soon as the gap allows
      chasing = true;
      if (ok && o.chaseMs > 0) { chaseUntil = now + o.chaseMs; chaseBase = null; }
    },
  };
}

module.exports = { createReadPacer, sameValue };
