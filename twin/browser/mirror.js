'use strict';
/**
 * A watching page's shadow of the demo plant: it runs the same plant model as the driving page
 * but sends nothing, and keeps its boxes with the driver's from what the PLC's state says. A box
 * appears at its entry when the PLC's state shows the driver's box there (EntrySensor, or
 * Piston1Forward where the path streams outputs only), and is marked damaged when the PLC's state
 * does (DamageSensor, or Piston2Forward). Where the PLC's state carries the sensors (WebSocket–S7,
 * HTTP, the replay's history), the shadow's boxes and pistons keep with what PackSensor,
 * DetectSensor, Piston1Front, Piston1Back, Piston2Front and Piston3Front saw of the driver's (plant.align:
 * behind or ahead); where it carries outputs only, its piston 1 keeps with what the PLC does with
 * that piston's valve when Piston1Front and Piston1Back come on. The signals are the demo plant's
 * (box sorting). Browser-safe.
 */

/**
 * @param {object} plant the shadow model (twin/plant.js)
 * @param {{followed: number, markedDamaged: number}} counters counted there: boxes followed, boxes marked damaged
 * @returns {{follow(prev: object, values: object): void, mark(scene: object): object}}
 */
function createMirror(plant, counters) {
  const marked = new Set(); // ids of shadow boxes the PLC's state showed as damaged
  const seenAt = { entry: 0, pushes: 0 }; // rising EntrySensor / Piston1Forward seen

  /** The box at the detection unit, if the PLC's state says it is damaged: marked so. */
  function markAtDetector() {
    const s = plant.scene();
    const at = plant.config.detectorAtMm;
    const near = s.c1.slice().sort((a, b) => Math.abs(a.x - at) - Math.abs(b.x - at))[0];
    if (near && Math.abs(near.x - at) <= plant.config.detectorMm + plant.config.boxMm && !marked.has(near.id)) {
      marked.add(near.id);
      counters.markedDamaged += 1;
    }
  }

  return {
    /**
     * The PLC's state changed from `prev` with `values`: keep the shadow's boxes with the driver's.
     * @param {object} prev every value the PLC's state showed before
     * @param {object} values what it shows now
     */
    follow(prev, values) {
      const rose = (k) => values[k] === 1 && prev[k] !== 1;
      // Every box the driver's entry sensor showed, or piston 1 pushed (a path that streams outputs
      // only), is a box of the shadow. A shadow running a little behind queues it: the model lets it
      // in when its own entry is free, so no box is lost or doubled.
      if (rose('se')) seenAt.entry += 1;
      if (rose('p1fw')) seenAt.pushes += 1;
      while (counters.followed < Math.max(seenAt.entry, seenAt.pushes)) {
        plant.feed(false);
        counters.followed += 1;
      }
      plant.tick(0); // a box whose entry is free arrives now, before the piston starts to move
      const seen = Object.fromEntries(['p1f', 'p1b', 'p2f', 'p3f', 'sd', 'sk'].map((k) => [k, rose(k) ? 1 : 0]));
      // Whether the PLC's state carries piston 1's sensors (WebSocket–S7, HTTP, the replay): its
      // snapshot has every value the path streams.
      if (!['p1f', 'p1b'].some((k) => k in prev || k in values)) {
        // Outputs only: the PLC takes piston 1's valve back (Piston1Forward off, Piston1Backward on)
        // when the driver's Piston1Front comes on, and lets go of Piston1Backward when its
        // Piston1Back does (plc/program.js). A shadow behind the driver, its piston still on the
        // way, would turn back short of the front with its box at the entry: no later box could
        // come in.
        if (rose('p1bw')) seen.p1f = 1;
        if (values.p1bw === 0 && prev.p1bw === 1) seen.p1b = 1;
      }
      const sd = 'sd' in values ? values.sd : prev.sd; // the real DetectSensor now, where the state carries it
      counters.aligned = (counters.aligned || 0) + plant.align(seen, { sd: sd === 1 || sd === 0 ? sd : undefined });
      if (values.dmg === 1 || rose('p2fw')) markAtDetector();
    },
    /** The scene with the damage the PLC showed (the shadow's own plan knows nothing of it). */
    mark(scene) {
      for (const b of [scene.entry, ...scene.c1, ...scene.c2]) if (b && marked.has(b.id)) b.damaged = true;
      return scene;
    },
  };
}

module.exports = { createMirror };
