import { nextEventLoopTurn } from "../runtime/event-loop.ts";

/**
 * DEC-COL-08, COL-16: group commit. Each request hands in its item and waits for the commit of the batch
 * that holds it, so a 200 is only ever sent for a committed event. One batch is in flight at a time, and
 * before each commit the writer lets the event loop turn once (`gather`), so that every request already
 * received joins the batch: one commit (one WAL sync) then serves many requests. That turn matters because
 * the local libSQL driver commits synchronously, on this thread: requests that arrive during a commit are
 * only read after it, and without the turn each would find the writer idle and pay a sync of its own.
 * A failed commit rejects every request of its batch and nothing else; the writer carries on.
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
  private committing: Promise<void> | null = null;
  private batches = 0;
  private committed = 0;
  private failedBatches = 0;
  private largestBatch = 0;

  private readonly maxBatch: number;
  private readonly gather: () => Promise<void>;

  constructor(
    private readonly commit: (items: readonly T[]) => Promise<void>,
    options: { readonly maxBatch?: number; readonly gather?: () => Promise<void> } = {},
  ) {
    this.maxBatch = options.maxBatch ?? 1000;
    this.gather = options.gather ?? nextEventLoopTurn;
  }

  /** Resolves once `item` is committed; rejects with the commit's error when its batch fails. */
  write(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.committing === null) this.committing = this.run();
    });
  }

  /** Resolves once every item written so far has been committed or refused. */
  async settled(): Promise<void> {
    while (this.committing !== null) await this.committing;
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

  private async run(): Promise<void> {
    try {
      for (;;) {
        await this.gather();
        if (this.queue.length === 0) break;
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
      this.committing = null;
    }
  }
}
