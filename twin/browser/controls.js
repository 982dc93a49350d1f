'use strict';
/**
 * The browser twin's controls: Start and Stop (momentary buttons), feeding a box, and feeding
 * boxes by themselves. The driving page presses its model's buttons (the model's inputs go to the
 * PLC with the next tick); a watching page sends the press and its release as commands, since a
 * button is not physics (a viewer's press goes out too and the cloud refuses it). Only the
 * driving page feeds boxes: a watcher's boxes follow the driver's. Browser-safe.
 */

const MAX_PER_MINUTE = 120; // automatic feed: at most two boxes a second

/**
 * @param {object} o
 * @param {object} o.plant the page's plant model (twin/plant.js)
 * @param {{send(values: object): void}} o.transport
 * @param {{setInterval: Function, clearInterval: Function, setTimeout: Function, clearTimeout: Function}} o.timers
 * @param {object} o.counters refused and fed are counted there
 * @param {(text: string, kind?: string) => void} o.log the panel's log
 * @param {{driving: boolean, readOnly: boolean}} o.role who this page is (read when a control is used)
 * @param {string} [o.protocol] the transport's protocol (a viewer publishes nothing over MQTT)
 * @param {number} o.maxWaiting boxes fed but not yet at the entry; more are refused
 * @param {() => number} [o.random] for the damaged share of automatic feeding
 */
function createControls(o) {
  const T = o.timers;
  const random = o.random || Math.random;
  const held = new Map(); // watching: momentary buttons pressed, not yet released -> timer
  let auto = null; // {timer, perMinute, damagedShare}

  function refuse(text) {
    o.counters.refused += 1;
    o.log(text, 'error');
    return false;
  }

  /** Press a momentary button ('st' or 'sp'). @returns {boolean} false when refused */
  function momentary(button) {
    if (o.role.driving) { o.plant.press(button); return true; }
    // A refused publish would cost an MQTT connection: a viewer's press is refused here.
    if (o.role.readOnly && o.protocol === 'mqttws') return refuse('a viewer does not publish commands (read-only)');
    o.transport.send({ [button]: 1 });
    const timer = T.setTimeout(() => { held.delete(button); o.transport.send({ [button]: 0 }); }, o.plant.config.buttonHoldMs);
    held.set(button, timer);
    return true;
  }

  /** Feed one box (damaged or not). @returns {boolean} false when refused */
  function feed(damaged) {
    if (!o.role.driving) return refuse('only the driving page feeds boxes: take over to drive');
    const s = o.plant.summary();
    if (s.boxes - s.arrived >= o.maxWaiting) return refuse(`${o.maxWaiting} boxes are already waiting for the entry (is the plant running?)`);
    o.plant.feed(Boolean(damaged));
    o.counters.fed += 1;
    return true;
  }

  /**
   * Feed boxes by themselves: perMinute boxes a minute (0 = off), a damagedShare of them damaged.
   * @returns {boolean} false when refused (not driving, or a rate outside 0..120)
   */
  function setAutoFeed(perMinute, damagedShare = 0.3) {
    if (auto) { T.clearInterval(auto.timer); auto = null; }
    const rate = Number(perMinute);
    if (!rate) return true;
    if (!(rate > 0 && rate <= MAX_PER_MINUTE) || !(damagedShare >= 0 && damagedShare <= 1)) {
      o.log(`automatic feed needs 1..${MAX_PER_MINUTE} boxes a minute and a damaged share 0..1 (got ${perMinute}, ${damagedShare})`, 'error');
      return false;
    }
    if (!o.role.driving) return refuse('only the driving page feeds boxes: take over to drive');
    const timer = T.setInterval(() => { if (o.role.driving) feed(random() < damagedShare); }, 60000 / rate);
    auto = { timer, perMinute: rate, damagedShare };
    return true;
  }

  return {
    momentary,
    feed,
    setAutoFeed,
    /** The automatic feed as the panel shows it, or null. */
    get auto() { return auto ? { perMinute: auto.perMinute, damagedShare: auto.damagedShare } : null; },
    /**
     * The page goes: the buttons it holds, to be released in the PLC before it goes (a page closed
     * within a press would leave StopButton held, and no Start would ever latch again).
     * @returns {Object<string, 0>} the releases to send (pending release timers are cancelled)
     */
    releases() {
      const release = {};
      for (const [b, timer] of held) { T.clearTimeout(timer); release[b] = 0; }
      held.clear();
      if (o.role.driving) for (const [b, v] of Object.entries(o.plant.scene().buttons)) if (v) release[b] = 0;
      return release;
    },
  };
}

module.exports = { createControls, MAX_PER_MINUTE };
