/**
 * What the admin reset (POST /admin/reset) needs of the requests the service is answering: to run alone, and
 * to refuse every request while a reset that failed halfway leaves the service unusable. RequestGate
 * (adapters/runtime), which the HTTP app passes every request through, implements it.
 */
export interface RequestAdmission {
  /**
   * Holds the requests that arrive from now on, waits up to `waitMs` for those in flight to be answered, runs
   * `work` while no other request runs, then lets the held requests go on. Requests still in flight after
   * `waitMs` make it fail as busy (503), with nothing done. One at a time: a second waits for the first.
   */
  alone<T>(waitMs: number, work: () => Promise<T>): Promise<T>;
  /**
   * Whether every request is refused (503 with Retry-After) rather than answered: turned on by a reset that
   * failed after it erased the store, off by one that succeeded.
   */
  refuseAll(refusing: boolean): void;
}
