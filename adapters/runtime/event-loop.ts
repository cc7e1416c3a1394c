import type { EventLoop } from "../../core/ports/index.ts";

/**
 * Resolves after the event loop has handled the I/O that is waiting: requests already received, messages
 * from another thread. Long work on the loop's thread awaits it between its steps, so that what arrived in
 * the meantime is not held up until the whole of the work is done.
 */
export function nextEventLoopTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The EventLoop port on Bun and Node: performance.now, setImmediate and setTimeout. */
export const hostEventLoop: EventLoop = {
  monotonicMs: () => performance.now(),
  nextTurn: nextEventLoopTurn,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
