/**
 * The host's repeating timer (setInterval): work whose length the use case cannot bound, such as receiving
 * an upload, renews what it holds on a timer while it waits, whatever it waits for.
 */
export interface RepeatingTimer {
  /** Calls `action` every `ms` milliseconds of real time until the function it answers is called. */
  every(ms: number, action: () => void): () => void;
}
