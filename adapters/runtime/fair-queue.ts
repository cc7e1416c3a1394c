import { ServiceBusyError } from "../../core/errors/index.ts";

export interface FairQueueLimits {
  /** Work running at once. */
  readonly concurrency: number;
  /** Work waiting at once, of every source together (what bounds the memory held). */
  readonly maxWaiting: number;
  /** Work waiting at once from one source. */
  readonly maxWaitingPerSource: number;
}

interface Waiter {
  readonly start: () => void;
  readonly refuse: (error: ServiceBusyError) => void;
}

/**
 * At most `concurrency` pieces of work run at once; the rest wait, each source (a client's address) in a line
 * of its own, and a slot that frees goes to the lines in turn (round-robin), so that one source flooding the
 * queue delays another's work by at most one piece per source waiting. A source's line holds at most
 * `maxWaitingPerSource`; every line together at most `maxWaiting`. When they are full, a newcomer takes the
 * place of the newest waiter of the longest line if that line is longer than the newcomer's would be (that
 * waiter is refused busy); otherwise the newcomer is refused busy (ServiceBusyError, answered 503).
 */
export class FairQueue {
  private running = 0;
  private waiting = 0;
  /** The lines of the sources with work waiting, in the order they are served next (a Map keeps it). */
  private readonly lines = new Map<string, Waiter[]>();

  constructor(private readonly limits: FairQueueLimits) {}

  async run<T>(source: string, work: () => Promise<T>): Promise<T> {
    if (this.running < this.limits.concurrency) this.running += 1;
    else await this.waitForSlot(source);
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  /** How much work runs and waits (for tests and metrics). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting };
  }

  private waitForSlot(source: string): Promise<void> {
    const line = this.lines.get(source) ?? [];
    if (line.length >= this.limits.maxWaitingPerSource) {
      throw new ServiceBusyError(`${line.length} pieces of work of one source are waiting already`);
    }
    if (this.waiting >= this.limits.maxWaiting) this.makeRoomFor(line.length);
    return new Promise<void>((start, refuse) => {
      line.push({ start, refuse });
      if (!this.lines.has(source)) this.lines.set(source, line);
      this.waiting += 1;
    });
  }

  /** Refuses the newest waiter of the longest line, if that line is longer than the newcomer's would be. */
  private makeRoomFor(newcomerWaiting: number): void {
    let longest: Waiter[] | undefined;
    for (const line of this.lines.values()) if (!longest || line.length > longest.length) longest = line;
    if (!longest || longest.length <= newcomerWaiting + 1)
      throw new ServiceBusyError(`${this.waiting} pieces of work are waiting already`);
    this.waiting -= 1;
    longest.pop()?.refuse(new ServiceBusyError("its place in the queue went to another source's work"));
  }

  /** Hands the slot to the next line's first waiter (that line then goes last), or frees it. */
  private release(): void {
    const next = this.lines.entries().next();
    if (next.done) {
      this.running -= 1;
      return;
    }
    const [source, line] = next.value;
    const waiter = line.shift() as Waiter;
    this.lines.delete(source);
    if (line.length > 0) this.lines.set(source, line);
    this.waiting -= 1;
    waiter.start();
  }
}
