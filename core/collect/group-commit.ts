/**
 * DEC-COL-08, COL-16: group commit. Each request hands in its item and waits for the commit of the batch
 * that holds it, so a 200 is only ever sent for a committed event. Before each commit the writer lets the
 * event loop turn once (`gather`: the EventLoop port's `nextTurn`), so that every request already received
 * joins the batch: one commit (one WAL sync) then serves many requests. That turn matters because the local
 * libSQL driver commits synchronously, on this thread: requests that arrive during a commit are only read
 * after it, and without the turn each would find the writer idle and pay a sync of its own. One batch is in flight at a time, or up to
 * `inFlight` where the commit is made elsewhere (the background thread): the next batch then waits there, not
 * here, and that thread goes from one commit to the next without waiting for this one to answer. Batches are
 * handed to `commit` in the order their items arrived. A failed commit rejects every request of its batch and
 * nothing else; the writer carries on.
 */
export interface GroupCommitStats {
  readonly batches: number;
  readonly committed: number;
  readonly failedBatches: number;
  readonly largestBatch: number;
  readonly pending: number;
}

interface Waiting<T> {
  readonly item: T;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export class GroupCommitWriter<T> {
  private queue: Array<Waiting<T>> = [];
  /** The loops taking batches from the queue, at most `inFlight`; `active` counts those not yet ending. */
  private readonly loops = new Set<Promise<void>>();
  private active = 0;
  private batches = 0;
  private committed = 0;
  private failedBatches = 0;
  private largestBatch = 0;

  private readonly maxBatch: number;
  private readonly inFlight: number;
  private readonly gather: () => Promise<void>;

  constructor(
    private readonly commit: (items: readonly T[]) => Promise<void>,
    options: { readonly gather: () => Promise<void>; readonly maxBatch?: number; readonly inFlight?: number },
  ) {
    this.maxBatch = options.maxBatch ?? 1000;
    this.inFlight = Math.max(1, options.inFlight ?? 1);
    this.gather = options.gather;
  }

  /** Resolves once `item` is committed; rejects with the commit's error when its batch fails. */
  write(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.active < this.inFlight) {
        this.active += 1;
        const loop: Promise<void> = this.run().finally(() => this.loops.delete(loop));
        this.loops.add(loop);
      }
    });
  }

  /** Resolves once every item written so far has been committed or refused. */
  async settled(): Promise<void> {
    while (this.loops.size > 0) await Promise.all(this.loops);
  }

  stats(): GroupCommitStats {
    return {
      batches: this.batches,
      committed: this.committed,
      failedBatches: this.failedBatches,
      largestBatch: this.largestBatch,
      pending: this.queue.length,
    };
  }

  /**
   * Takes batches until the queue is empty. `active` drops in the same step as the queue is found empty (the
   * `finally` runs as the function returns), so a write right after starts a loop of its own.
   */
  private async run(): Promise<void> {
    try {
      for (;;) {
        await this.gather();
        if (this.queue.length === 0) return;
        const batch = this.queue.length <= this.maxBatch ? this.queue : this.queue.slice(0, this.maxBatch);
        this.queue = batch === this.queue ? [] : this.queue.slice(this.maxBatch);
        this.batches += 1;
        this.largestBatch = Math.max(this.largestBatch, batch.length);
        try {
          await this.commit(batch.map((waiting) => waiting.item));
        } catch (error) {
          this.failedBatches += 1;
          for (const waiting of batch) waiting.reject(error);
          continue;
        }
        this.committed += batch.length;
        for (const waiting of batch) waiting.resolve();
      }
    } finally {
      this.active -= 1;
    }
  }
}
