/**
 * A background processor. Its work is kept in the store (so nothing is lost on a crash and any node can
 * pick it up); the scheduler only decides when to look.
 */
export interface BackgroundWorker {
  readonly name: string;
  /** Does the work that is due at `now` (a bounded batch) and says how many items it finished. */
  runDue(now: number): Promise<number>;
  /** The virtual time at which the next item becomes due, or null when nothing waits. */
  nextDueAt(): Promise<number | null>;
  /**
   * The most items one `runDue` takes. A pass that took fewer has emptied the worker, so the next look can
   * wait for the coalescing delay; without it, any work done means look again at once.
   */
  readonly batchSize?: number;
}

export interface DrainOptions {
  /** Also wait for work that is scheduled in the future, in real time (bounded by the timeout). */
  readonly includeScheduled?: boolean;
  readonly timeoutMs?: number;
}

export interface DrainReport {
  /** Nothing is left: no item due, none scheduled, no worker failing. */
  readonly complete: boolean;
  /**
   * The wait ran out of time on work it could have finished: work kept coming, a worker kept failing, or an
   * item falls due inside the wait and was not done by its end. Work scheduled past the end of the wait is
   * left without this (with realistic timing a deletion is days away).
   */
  readonly timedOut: boolean;
  /** Items finished while the drain ran, per worker: by the drain's passes and by the timer's alike. */
  readonly processed: Readonly<Record<string, number>>;
  /** Virtual time of the next scheduled item left waiting, if any. */
  readonly nextDueAt: number | null;
}

/** How far one background worker is behind (GET /metrics, issue 33). */
export interface WorkerBacklog {
  readonly worker: string;
  /** Virtual time its oldest due item has waited past its due time; 0 when nothing is due. */
  readonly overdueMs: number;
  /** Its last pass failed (it waits out a backoff). */
  readonly failing: boolean;
}

/** What the HTTP side asks of the background work, wherever it runs (this thread or its own). */
export interface WorkScheduler {
  /** New work was accepted, or the clock moved. */
  notify(): void;
  /**
   * Collected events were committed (after every group commit): only the workers on events care. Where the
   * events are committed by the thread that runs those workers, it has looked already and this does nothing.
   */
  eventsCommitted(): void;
  /** The wait/drain call of the admin API (DEC-OPS-04, DEC-PRO-03). */
  drain(options?: DrainOptions): Promise<DrainReport>;
  /** How far each worker is behind, looked at without running a pass (the metrics' scrape). */
  backlog(): Promise<readonly WorkerBacklog[]>;
}
