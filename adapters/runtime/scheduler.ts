import { describeError } from "../../core/errors/index.ts";
import type {
  BackgroundWorker,
  Clock,
  DrainOptions,
  DrainReport,
  Logger,
  WorkerBacklog,
  WorkScheduler,
} from "../../core/ports/index.ts";

export interface SchedulerOptions {
  readonly clock: Clock;
  readonly logger: Logger;
  /** Longest real time between two looks, so work written by another node is found (default 1 s). */
  readonly pollMs?: number;
  /**
   * Shortest real time between the end of a pass and a pass started by `notify` or by a pass that emptied
   * its workers (default 20 ms). Under steady collection every group commit notifies; without this each
   * would start a pass of its own, paying every worker's look at the store for a few events.
   */
  readonly coalesceMs?: number;
  /** Real time, for a failing worker's backoff and the wait's end (default Date.now; tests pass their own). */
  readonly realNow?: () => number;
}

/**
 * Runs background workers: at once when told new work arrived or the clock moved, at the time the next
 * item is due, and at least every poll interval. One pass runs at a time.
 */
export class Scheduler implements WorkScheduler {
  private readonly workers: BackgroundWorker[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running = false;
  private passChain: Promise<unknown> = Promise.resolve();
  private readonly pollMs: number;
  private readonly coalesceMs: number;
  /** Real time at which the armed timer fires. */
  private timerAt = 0;
  /** Real time at which the last pass of the timer ended. */
  private lastPassEndedAt = Number.NEGATIVE_INFINITY;
  /** Virtual time the last pass ran its workers at: an item due by then and still waiting is stuck, not new. */
  private lastPassNow = Number.NEGATIVE_INFINITY;
  /** Workers whose last passes failed: how many in a row, and the real time before which they are not run. */
  private readonly failing = new Map<string, { failures: number; until: number }>();
  /** Items each worker finished since this scheduler began, by any pass (the drain reports the difference). */
  private readonly finished = new Map<string, number>();
  private readonly realNow: () => number;

  constructor(private readonly options: SchedulerOptions) {
    this.pollMs = options.pollMs ?? 1000;
    this.coalesceMs = options.coalesceMs ?? 20;
    this.realNow = options.realNow ?? Date.now;
  }

  register(worker: BackgroundWorker): void {
    this.workers.push(worker);
  }

  workerNames(): string[] {
    return this.workers.map((worker) => worker.name);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.notify();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.passChain.catch(() => undefined);
  }

  eventsCommitted(): void {
    this.notify();
  }

  /**
   * svc-hub's own admin API (POST /admin/reset): waits for the pass in progress to end and keeps every other
   * pass (the timer's, a drain's) waiting until the answer's `release` is called, so the store can be erased
   * with no worker halfway through a batch. `release` also forgets the failures kept (their backoff) and the
   * virtual time of the last pass (the clock may have gone back), and looks for work at once.
   */
  async hold(): Promise<() => void> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const holding = new Promise<void>((resolve) => (entered = resolve));
    this.passChain = this.passChain.then(() => {
      entered();
      return released;
    });
    await holding;
    return () => {
      this.failing.clear();
      this.lastPassNow = Number.NEGATIVE_INFINITY;
      release();
      this.notify();
    };
  }

  /** New work was accepted, or the clock moved: look now, or once the coalescing delay since the last pass has passed. */
  notify(): void {
    if (!this.running) return;
    const delay = Math.max(0, this.lastPassEndedAt + this.coalesceMs - Date.now());
    if (this.timer && this.timerAt <= Date.now() + delay) return;
    this.arm(delay);
  }

  /**
   * Runs every due item of every worker until none is left; with includeScheduled, also waits for the items
   * scheduled later, as they fall due within the timeout. The wait/drain call of the admin API (DEC-OPS-04,
   * DEC-PRO-03). Under steady work it still ends at its timeout.
   */
  async drain(options: DrainOptions = {}): Promise<DrainReport> {
    const deadline = this.realNow() + (options.timeoutMs ?? 30_000);
    const finishedBefore = new Map(this.finished);
    const processed: Record<string, number> = Object.fromEntries(this.workers.map((worker) => [worker.name, 0]));
    for (;;) {
      const done = await this.pass();
      for (const worker of this.workers)
        processed[worker.name] = (this.finished.get(worker.name) ?? 0) - (finishedBefore.get(worker.name) ?? 0);
      const worked = Object.values(done).some((count) => count > 0);
      const nextDueAt = await this.nextDueAt();
      // A worker in its backoff has work it could not do: not complete, whatever the others say.
      const failing = this.failing.size > 0;
      if (!worked && nextDueAt === null && !failing) return { complete: true, timedOut: false, processed, nextDueAt };
      if (!worked && !options.includeScheduled) return { complete: false, timedOut: false, processed, nextDueAt };
      const remainingMs = deadline - this.realNow();
      if (remainingMs <= 0) return { complete: false, timedOut: true, processed, nextDueAt };
      if (worked) continue;
      // Nothing done: wait for the soonest item to fall due, or a failing worker's next try. An item still
      // waiting that was due at the pass belongs to no failing worker yet did not run: look again shortly.
      let waitMs = Number.POSITIVE_INFINITY;
      if (nextDueAt !== null)
        waitMs = nextDueAt <= this.lastPassNow ? 50 : Math.max(0, nextDueAt - this.options.clock.now());
      if (failing) waitMs = Math.min(waitMs, this.soonestRetryInMs());
      if (!failing && waitMs > remainingMs) return { complete: false, timedOut: false, processed, nextDueAt };
      await sleep(Math.max(1, Math.min(waitMs, 50)));
    }
  }

  /**
   * How far each worker is behind: the virtual time its soonest due item has waited, and whether it is failing.
   * Read-only looks at the store outside the passes, so a scrape never waits for a pass (or a reset's hold);
   * a look that fails counts as nothing due.
   */
  async backlog(): Promise<WorkerBacklog[]> {
    const now = this.options.clock.now();
    return Promise.all(
      this.workers.map(async (worker) => {
        const due = await worker.nextDueAt().catch(() => null);
        return {
          worker: worker.name,
          overdueMs: due === null ? 0 : Math.max(0, now - due),
          failing: this.failing.has(worker.name),
        };
      }),
    );
  }

  /** The virtual time the soonest item falls due, of the workers not waiting out a backoff. */
  private async nextDueAt(): Promise<number | null> {
    let next: number | null = null;
    for (const worker of this.workers) {
      if (this.inBackoff(worker.name)) continue;
      const due = await worker.nextDueAt();
      if (due !== null && (next === null || due < next)) next = due;
    }
    return next;
  }

  /**
   * One pass: one bounded batch of each worker in turn, serialised with any other pass of this process.
   * Workers take turns, so a worker that always has work (profiles under steady collection) cannot keep the
   * others (the data layer publisher, deletions) waiting.
   */
  private pass(): Promise<Record<string, number>> {
    const run = this.passChain.then(async () => {
      const done: Record<string, number> = {};
      this.lastPassNow = this.options.clock.now();
      for (const worker of this.workers) {
        const failing = this.failing.get(worker.name);
        // A worker that keeps failing (its store full or unreachable) waits out its backoff: its due items
        // would otherwise be run again at once, pass after pass, and log each time.
        if (this.inBackoff(worker.name)) {
          done[worker.name] = 0;
          continue;
        }
        try {
          const started = performance.now();
          const items = await worker.runDue(this.options.clock.now());
          done[worker.name] = items;
          this.finished.set(worker.name, (this.finished.get(worker.name) ?? 0) + items);
          if (items > 0)
            this.options.logger.debug("background work done", {
              worker: worker.name,
              items,
              ms: Math.round((performance.now() - started) * 100) / 100,
            });
          if (failing) {
            this.failing.delete(worker.name);
            this.options.logger.info("background worker works again", {
              worker: worker.name,
              failures: failing.failures,
            });
          }
        } catch (error) {
          done[worker.name] = 0;
          const failures = (failing?.failures ?? 0) + 1;
          const retryInMs = failureBackoffMs(failures);
          this.failing.set(worker.name, { failures, until: this.realNow() + retryInMs });
          this.options.logger.error("background worker failed", {
            worker: worker.name,
            failures,
            retryInMs,
            error: describeError(error),
          });
        }
      }
      return done;
    });
    this.passChain = run.catch(() => undefined);
    return run;
  }

  private inBackoff(name: string): boolean {
    const failing = this.failing.get(name);
    return failing !== undefined && failing.until > this.realNow();
  }

  /** Real time until the soonest failing worker may run again (the poll interval when none is failing). */
  private soonestRetryInMs(): number {
    let soonest = Number.POSITIVE_INFINITY;
    for (const { until } of this.failing.values()) soonest = Math.min(soonest, until);
    return Number.isFinite(soonest) ? Math.max(1, soonest - this.realNow()) : this.pollMs;
  }

  private arm(delayMs: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = Date.now() + delayMs;
    this.timer = setTimeout(() => void this.tick(), delayMs);
  }

  private async tick(): Promise<void> {
    this.timer = null;
    if (!this.running) return;
    let delay = this.pollMs;
    try {
      const done = await this.pass();
      this.lastPassEndedAt = Date.now();
      const full = this.workers.some(
        (worker) =>
          (done[worker.name] ?? 0) > 0 &&
          (worker.batchSize === undefined || (done[worker.name] ?? 0) >= worker.batchSize),
      );
      const some = Object.values(done).some((count) => count > 0);
      if (full) delay = 0;
      else if (some) delay = this.coalesceMs;
      else {
        const next = await this.nextDueAt();
        // An item due at the pass and not done (its worker answered without doing it): the next poll.
        if (next !== null)
          delay = Math.min(
            delay,
            next <= this.lastPassNow ? this.pollMs : Math.max(0, next - this.options.clock.now()),
          );
        // A failing worker: when its backoff ends.
        if (this.failing.size > 0) delay = Math.min(delay, this.soonestRetryInMs());
      }
    } catch (error) {
      this.options.logger.error("scheduler pass failed", { error: describeError(error) });
    }
    // A notification during the pass may have armed a later look (or one after the coalescing delay) than
    // this pass asks for (at once, after a full batch): the sooner wins.
    if (this.running && (this.timer === null || Date.now() + delay < this.timerAt)) this.arm(delay);
  }
}

/** Real time a worker waits after failing passes in a row: 100 ms, doubling, at most 5 s (a store that works again is used within 5 s). */
export function failureBackoffMs(failures: number): number {
  return Math.min(5_000, 100 * 2 ** Math.min(Math.max(failures - 1, 0), 20));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
