import type { RepeatingTimer } from "../../core/ports/index.ts";

/** The RepeatingTimer port on Bun and Node: setInterval, cleared by the function it answers. */
export const hostRepeatingTimer: RepeatingTimer = {
  every(ms, action) {
    const timer = setInterval(action, ms);
    return () => clearInterval(timer);
  },
};
