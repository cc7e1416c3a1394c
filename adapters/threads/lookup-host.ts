import { Worker } from "node:worker_threads";
import { packagedFileUrl } from "../runtime/packaged-files.ts";
import { StorageUnavailableError } from "../runtime/storage-errors.ts";
import type { ReaderQuery } from "../store-libsql/statement-reader.ts";
import { errorFromThread, type ThreadError } from "./background-host.ts";

/** What the lookup thread is started with. */
export interface LookupThreadInit {
  readonly path: string;
  readonly busyTimeoutMs: number;
}

/**
 * The reads asked for in one turn of the event loop, sent together, in as little as a message can carry (its
 * copy between threads is paid on the HTTP thread): each query's text once, in the first message that needs
 * it, under a number that later messages use; then each read as its query's number followed by its values in
 * the order of the query's placeholders.
 */
export interface LookupBatch {
  readonly id: number;
  /** Queries new to the thread: [number, text, how many values it takes, ...]. */
  readonly queries: readonly unknown[];
  /** [query number, ...values, query number, ...values, ...]. */
  readonly reads: readonly unknown[];
}

/** The thread's messages: ready, failed at start, or the answers to a batch. */
export type LookupReply =
  | {
      readonly kind: "reply";
      readonly id: number;
      /** Each read's first row, in the order of the reads; null for none or for an error. */
      readonly rows: ReadonlyArray<unknown[] | null>;
      /** The reads that failed: [read index, error, ...]; empty when none did. */
      readonly errors: readonly unknown[];
    }
  | { readonly kind: "ready" }
  | { readonly kind: "failed"; readonly error: ThreadError };

/**
 * The most reads a message carries: the thread starts on the first reads of a turn while this thread is still
 * taking the turn's other requests. Measured with 64 connections (bench/FINDINGS.md): 8 a message, about 25,000
 * lookups a second; 4, about 23,800; 16, about 24,300; one message a turn, about 19,500.
 */
const readsPerMessage = 8;

/** Single-row reads, answered on this thread (a StatementReader) or another (the LookupThread). */
export interface RowSource {
  row(
    query: ReaderQuery,
    values: Readonly<Record<string, unknown>>,
  ): unknown[] | undefined | Promise<unknown[] | undefined>;
}

/** The lookup thread ended while reads were waiting for it (503; later reads are answered on this thread). */
export class LookupThreadStoppedError extends StorageUnavailableError {
  override readonly name: string = "LookupThreadStoppedError";
}

interface Waiting {
  readonly query: ReaderQuery;
  readonly values: Readonly<Record<string, unknown>>;
  readonly resolve: (row: unknown[] | undefined) => void;
  readonly reject: (error: Error) => void;
}

/**
 * The single-row reads of the HTTP side (the moments lookup's) on a thread of their own, with its own read-only
 * connection. On the HTTP thread such a read took about a quarter of a lookup's time, and that thread is the
 * limit under load while the other core waits (bench/FINDINGS.md). Reads go to the thread a few at a time
 * (`readsPerMessage`, or what a turn of the event loop asked for) and come back in one message, so a message
 * costs little next to its reads.
 *
 * Each read sees every transaction committed before it was asked (WAL, as on any connection): a read waits
 * at most for the end of its turn, and it is asked after the request that needs it arrived. If the thread
 * ends, the reads waiting for it fail as storage unavailable and later ones are answered by `fallback` on
 * this thread.
 */
export class LookupThread implements RowSource {
  private waiting: Waiting[] = [];
  private readonly inFlight = new Map<number, Waiting[]>();
  private nextId = 1;
  private flushScheduled = false;
  private stopped: Error | null = null;
  private batchesSent = 0;
  /** The number each query's text was sent under (LookupBatch). */
  private readonly queryNumbers = new Map<string, number>();

  private constructor(
    private readonly worker: Worker,
    private readonly fallback: RowSource,
    private readonly onStopped: (error: Error) => void,
  ) {
    worker.on("message", (message: LookupReply) => {
      if (message.kind !== "reply") return;
      const batch = this.inFlight.get(message.id);
      if (!batch) return;
      this.inFlight.delete(message.id);
      const failed = new Map<number, ThreadError>();
      for (let index = 0; index < message.errors.length; index += 2)
        failed.set(message.errors[index] as number, message.errors[index + 1] as ThreadError);
      batch.forEach((waiting, index) => {
        const error = failed.get(index);
        if (error) waiting.reject(errorFromThread(error));
        else if (index < message.rows.length) waiting.resolve(message.rows[index] ?? undefined);
        else waiting.reject(new Error("the lookup thread answered no row for this read"));
      });
    });
    worker.on("error", (error: Error) => this.stop(error));
    worker.on("exit", (code) => this.stop(new Error(`exit code ${code}`)));
  }

  /** Starts the thread on the database file at `path`; `fallback` answers once it has stopped. */
  static async start(
    init: LookupThreadInit,
    fallback: RowSource,
    onStopped: (error: Error) => void = () => undefined,
  ): Promise<LookupThread> {
    const worker = new Worker(packagedFileUrl("adapters/threads/lookup-entry.ts"), { workerData: init });
    await new Promise<void>((resolve, reject) => {
      const onMessage = (message: LookupReply) => {
        if (message.kind === "ready") resolve();
        if (message.kind === "failed") reject(errorFromThread(message.error));
      };
      worker.on("message", onMessage);
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`the lookup thread ended at start (exit code ${code})`)));
    });
    worker.removeAllListeners();
    return new LookupThread(worker, fallback, onStopped);
  }

  row(query: ReaderQuery, values: Readonly<Record<string, unknown>>): Promise<unknown[] | undefined> {
    if (this.stopped) return Promise.resolve(this.fallback.row(query, values));
    return new Promise((resolve, reject) => {
      this.waiting.push({ query, values, resolve, reject });
      if (this.waiting.length >= readsPerMessage) {
        this.flush();
        return;
      }
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // After the I/O of this turn: every request received in it has asked for its reads by then.
        setImmediate(() => {
          this.flushScheduled = false;
          this.flush();
        });
      }
    });
  }

  /** How many messages have carried reads (a test's view of the batching). */
  get batches(): number {
    return this.batchesSent;
  }

  /** Ends the thread; reads asked for afterwards are answered by the fallback. */
  async close(): Promise<void> {
    if (this.stopped) return;
    this.stopped = new LookupThreadStoppedError("the lookup thread was closed");
    this.failWaiting(this.stopped);
    await this.worker.terminate();
  }

  private flush(): void {
    if (this.waiting.length === 0 || this.stopped) return;
    const reads = this.waiting;
    this.waiting = [];
    const id = this.nextId++;
    this.inFlight.set(id, reads);
    this.batchesSent += 1;
    const queries: unknown[] = [];
    const added = new Map<string, number>();
    const flat: unknown[] = [];
    for (const { query, values } of reads) {
      let number = this.queryNumbers.get(query.sql) ?? added.get(query.sql);
      if (number === undefined) {
        number = this.queryNumbers.size + added.size;
        added.set(query.sql, number);
        queries.push(number, query.sql, query.names.length);
      }
      flat.push(number);
      for (const name of query.names) flat.push(values[name]);
    }
    try {
      this.worker.postMessage({ id, queries, reads: flat } satisfies LookupBatch);
    } catch (error) {
      // A value that cannot be copied to the thread: this message's reads fail, and its queries stay unsent.
      this.inFlight.delete(id);
      for (const waiting of reads) waiting.reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    for (const [sql, number] of added) this.queryNumbers.set(sql, number);
  }

  private stop(cause: Error): void {
    if (this.stopped) return;
    this.stopped = new LookupThreadStoppedError(`the lookup thread stopped: ${cause.message}`, { cause });
    this.failWaiting(this.stopped);
    this.onStopped(this.stopped);
  }

  private failWaiting(error: Error): void {
    for (const batch of this.inFlight.values()) for (const waiting of batch) waiting.reject(error);
    this.inFlight.clear();
    for (const waiting of this.waiting) waiting.reject(error);
    this.waiting = [];
  }
}

/**
 * A LookupThread started by the first read instead of with the store: a server that answers no moments lookup
 * never starts it, so a start is shorter and an idle server smaller by a thread's heap. Reads asked while it
 * starts wait for it. If it cannot start, `onStopped` is told and every read is answered by `fallback`.
 */
export class LookupThreadOnFirstRead implements RowSource {
  private starting: Promise<RowSource> | null = null;
  private thread: RowSource | null = null;
  private closed = false;

  constructor(
    private readonly init: LookupThreadInit,
    private readonly fallback: RowSource,
    private readonly onStopped: (error: Error) => void = () => undefined,
  ) {}

  /** Whether a read has started the thread (for tests). */
  get started(): boolean {
    return this.starting !== null;
  }

  row(
    query: ReaderQuery,
    values: Readonly<Record<string, unknown>>,
  ): unknown[] | undefined | Promise<unknown[] | undefined> {
    if (this.thread) return this.thread.row(query, values);
    if (this.closed) return this.fallback.row(query, values);
    this.starting ??= this.start();
    return this.starting.then((thread) => thread.row(query, values));
  }

  /** Ends the thread, once it has started if it is starting; reads asked for afterwards are answered by the fallback. */
  async close(): Promise<void> {
    this.closed = true;
    const thread = await this.starting;
    if (thread instanceof LookupThread) await thread.close();
  }

  private async start(): Promise<RowSource> {
    try {
      const thread = await LookupThread.start(this.init, this.fallback, this.onStopped);
      this.thread = thread;
      if (this.closed) await thread.close();
      return thread;
    } catch (error) {
      this.onStopped(error instanceof Error ? error : new Error(String(error)));
      this.thread = this.fallback;
      return this.fallback;
    }
  }
}
