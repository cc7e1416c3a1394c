import { Worker } from "node:worker_threads";
import type { ServiceConfig } from "../../core/config/index.ts";
import { describeErrorMessage } from "../../core/errors/index.ts";
import type {
  CollectedEvent,
  DrainOptions,
  DrainReport,
  Logger,
  WorkerBacklog,
  WorkScheduler,
} from "../../core/ports/index.ts";
import type { LogLevel } from "../runtime/logger.ts";
import { packagedFileUrl } from "../runtime/packaged-files.ts";
import { errorCodeOf, isStorageUnavailable, StorageUnavailableError } from "../runtime/storage-errors.ts";

/** What the background thread is started with (structured-cloned into it). */
export interface BackgroundThreadInit {
  readonly url: string;
  readonly config: ServiceConfig;
  readonly nodeId: string;
  readonly dataDir: string;
  readonly pollMs?: number;
}

/** Requests to the thread that it answers. */
export type ThreadCall =
  /** The events as JSON: one string crosses threads far cheaper than the structured clone of the objects. */
  | { readonly kind: "append"; readonly events: string }
  | { readonly kind: "drain"; readonly options: DrainOptions }
  /** Scheduler.backlog of the thread's workers (GET /metrics). */
  | { readonly kind: "backlog" }
  /** svc-hub's own admin API (POST /admin/reset): answered once no pass runs, and none starts until `resume`. */
  | { readonly kind: "pause" }
  /** The store was erased (or not): read the clock again, forget what the workers kept, and run them again. */
  | { readonly kind: "resume" }
  | { readonly kind: "stop" };

/**
 * Messages to the thread. `open` comes first, once: the thread loads its code as soon as it is spawned, and opens
 * the store only when told, once the HTTP side has brought the schema up to date and applied the configuration.
 */
export type ToThread = (ThreadCall & { readonly id: number }) | { readonly kind: "notify" } | { readonly kind: "open" };

/** An error as it crosses threads: its name, message and whether it says the store is unavailable (503). */
export interface ThreadError {
  readonly name: string;
  readonly message: string;
  readonly unavailable: boolean;
  /** The innermost code of the error's causes (SQLITE_NOTADB, ENOTDIR, ...), for the start's message. */
  readonly code?: string;
}

/** Messages from the thread. */
export type FromThread =
  | { readonly kind: "ready" }
  | { readonly kind: "failed"; readonly error: ThreadError }
  | { readonly kind: "reply"; readonly id: number; readonly ok: true; readonly value?: unknown }
  | { readonly kind: "reply"; readonly id: number; readonly ok: false; readonly error: ThreadError }
  | {
      readonly kind: "log";
      readonly level: LogLevel;
      readonly message: string;
      readonly fields?: Record<string, unknown>;
    };

export function threadErrorOf(error: unknown): ThreadError {
  const unavailable = isStorageUnavailable(error);
  const code = errorCodeOf(error);
  const described =
    error instanceof Error
      ? { name: error.name, message: describeErrorMessage(error), unavailable }
      : { name: "Error", message: String(error), unavailable };
  return code === undefined ? described : { ...described, code };
}

/** The thread's error on the HTTP side: storage trouble stays storage trouble, so it is still answered 503. */
export function errorFromThread(error: ThreadError): Error {
  const rebuilt = error.unavailable
    ? new StorageUnavailableError(error.message)
    : Object.assign(new Error(error.message), { name: error.name });
  return error.code === undefined ? rebuilt : Object.assign(rebuilt, { code: error.code });
}

/**
 * The background thread is gone (it failed, or the service is closing): events cannot be committed, so it is
 * storage unavailable (503), and `/readyz` says not ready.
 */
export class BackgroundThreadStoppedError extends StorageUnavailableError {
  override readonly name: string = "BackgroundThreadStoppedError";
}

export interface BackgroundThread extends WorkScheduler {
  /** Throws BackgroundThreadStoppedError once the thread is gone (the readiness check). */
  assertRunning(): void;
  /** Appends collected events through the thread's connection; resolves once they are committed. */
  append(events: readonly CollectedEvent[]): Promise<void>;
  /** Stops the thread's workers, closes its store and ends it. */
  close(): Promise<void>;
  /** svc-hub's own admin API (POST /admin/reset): resolves once the thread's workers are held (Background.hold). */
  pause(): Promise<void>;
  /** Releases what `pause` held, the thread's clock read again from the store first. */
  resume(): Promise<void>;
}

/**
 * The event work of a libSQL-backed service in a thread of its own, with its own connection: the appends of
 * collected events, whose commits (a WAL sync each) would otherwise hold up the HTTP thread, and the workers
 * on events (file import, profiles, visitor deletions). The HTTP side talks to it with messages: `append`
 * answers once the events are committed, `notify` and `drain` are the scheduler's.
 *
 * Spawned before the store is opened, so that the thread loads its code while this one brings the schema up to
 * date and applies the configuration (issue 41: ready in a blink); `open` then lets it open the store.
 */
export function spawnBackgroundThread(
  init: BackgroundThreadInit,
  logger: Logger,
  /** Called once if the thread stops without being asked to (main.ts then stops the process, to be restarted). */
  onFailure: (error: Error) => void = () => undefined,
): SpawnedBackgroundThread {
  const worker = new Worker(packagedFileUrl("adapters/threads/background-entry.ts"), { workerData: init });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let ended: BackgroundThreadStoppedError | null = null;
  let closing = false;
  let started = false;

  const failAll = (cause: Error) => {
    if (ended) return;
    ended = new BackgroundThreadStoppedError(`the background thread stopped: ${cause.message}`, { cause });
    for (const waiter of pending.values()) waiter.reject(ended);
    pending.clear();
    if (!closing && started) {
      logger.error("background thread stopped", { error: `${cause.name}: ${cause.message}` });
      onFailure(ended);
    }
  };

  const ready = new Promise<void>((resolve, reject) => {
    worker.on("message", (message: FromThread) => {
      switch (message.kind) {
        case "ready":
          resolve();
          return;
        case "failed":
          reject(errorFromThread(message.error));
          return;
        case "log":
          logger[message.level](message.message, message.fields);
          return;
        case "reply": {
          const waiter = pending.get(message.id);
          if (!waiter) return;
          pending.delete(message.id);
          if (message.ok) waiter.resolve(message.value);
          else waiter.reject(errorFromThread(message.error));
          return;
        }
      }
    });
    worker.on("error", (error: Error) => {
      failAll(error);
      reject(error);
    });
    worker.on("exit", (code) => {
      const error = new Error(`exit code ${code}`);
      failAll(error);
      reject(error);
    });
  });
  // A thread that fails before `open` is asked for reports it there.
  ready.catch(() => undefined);

  const open = async (): Promise<BackgroundThread> => {
    worker.postMessage({ kind: "open" } satisfies ToThread);
    await ready;
    started = true;
    return running;
  };

  const call = (message: ThreadCall): Promise<unknown> => {
    if (ended) return Promise.reject(ended);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...message, id } satisfies ToThread);
    });
  };

  const running: BackgroundThread = {
    assertRunning() {
      if (ended) throw ended;
    },
    async append(events) {
      await call({ kind: "append", events: JSON.stringify(events) });
    },
    notify() {
      if (!ended) worker.postMessage({ kind: "notify" } satisfies ToThread);
    },
    // The thread looks for work itself after each append it commits.
    eventsCommitted() {},
    async drain(options = {}) {
      return (await call({ kind: "drain", options })) as DrainReport;
    },
    async backlog() {
      return (await call({ kind: "backlog" })) as WorkerBacklog[];
    },
    async pause() {
      await call({ kind: "pause" });
    },
    async resume() {
      await call({ kind: "resume" });
    },
    async close() {
      closing = true;
      // A pass that does not finish must not keep the process from stopping: 10 s, then the thread ends anyway.
      if (!ended)
        await Promise.race([
          call({ kind: "stop" }).catch(() => undefined),
          new Promise((resolve) => setTimeout(resolve, 10_000).unref?.()),
        ]);
      await worker.terminate();
    },
  };
  return {
    open,
    async cancel() {
      closing = true;
      await worker.terminate();
    },
  };
}

/** A background thread spawned and loading its code, its store not opened yet. */
export interface SpawnedBackgroundThread {
  /** Lets the thread open the store; resolves once it is ready (rejects with the reason it could not start). */
  open(): Promise<BackgroundThread>;
  /** Ends the thread without opening it (the start failed on this side). */
  cancel(): Promise<void>;
}

/** Spawns the background thread and opens it at once (spawnBackgroundThread, for a store already up to date). */
export function startBackgroundThread(
  init: BackgroundThreadInit,
  logger: Logger,
  onFailure?: (error: Error) => void,
): Promise<BackgroundThread> {
  return spawnBackgroundThread(init, logger, onFailure).open();
}
