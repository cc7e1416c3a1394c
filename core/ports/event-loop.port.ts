/**
 * What a use case needs of its host's event loop and timers, none of which ECMAScript itself provides: how
 * long work has taken, a turn of the loop between the steps of long work, and a real-time wait.
 */
export interface EventLoop {
  /** Milliseconds from an arbitrary origin that never go back (performance.now): how long work has taken. */
  monotonicMs(): number;
  /**
   * Resolves after the host has handled the I/O that is waiting (setImmediate): long work awaits it between its
   * steps, so that requests that arrived meanwhile are not held up until the whole of it is done.
   */
  nextTurn(): Promise<void>;
  /** Resolves after `ms` milliseconds of real time (setTimeout). */
  sleep(ms: number): Promise<void>;
}
