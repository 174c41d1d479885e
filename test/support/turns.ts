// Turns of the event loop counted by a setImmediate chain: how a test sees that work was done in slices without
// asserting any time.

/** Counts turns until `stop()`; `when`: only the turns it holds for. */
export function countTurns(when: () => boolean = () => true) {
  let count = 0;
  let running = true;
  const tick = () => {
    if (when()) count++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get count() {
      return count;
    },
    /** Stops counting; answers the turns counted. */
    stop() {
      running = false;
      return count;
    },
  };
}
