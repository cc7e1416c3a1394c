import { Worker } from "node:worker_threads";
import { packagedFileUrl } from "../runtime/packaged-files.ts";
import { errorFromThread, type ThreadError } from "./background-host.ts";

/** argon2id's cost, as Bun.password takes it. */
export interface Argon2Cost {
  readonly memoryCost?: number;
  readonly timeCost?: number;
}

/** A piece of hashing work for a thread. */
export type HashingWork =
  | { readonly id: number; readonly kind: "hash"; readonly secret: string; readonly cost: Argon2Cost }
  | { readonly id: number; readonly kind: "verify"; readonly secret: string; readonly hash: string };

/** A thread's answer: the hash made, whether the secret matched, or the error of the work. */
export type HashingReply =
  | { readonly id: number; readonly ok: true; readonly value: string | boolean }
  | { readonly id: number; readonly ok: false; readonly error: ThreadError };

interface Running {
  readonly worker: Worker;
  readonly resolve: (value: string | boolean) => void;
  readonly reject: (error: Error) => void;
}

/**
 * argon2id on threads of its own, one piece of work a thread at a time (Bun.password's synchronous functions,
 * there). Bun.password's asynchronous ones run on the runtime's shared worker threads (as many as cores), where
 * WebCrypto (the JWTs' HMAC) and asynchronous file reads run too: a burst of wrong logins kept those threads
 * busy, and a token request from any client waited for the checks ahead of it. Threads are started when work
 * finds none idle (the caller bounds how much runs at once: FairQueue), and hold the process open only while
 * they work. A thread that ends fails the work it held; the next piece of work starts another.
 */
export class HashingThreads {
  private readonly idle: Worker[] = [];
  private readonly running = new Map<number, Running>();
  private readonly workers = new Set<Worker>();
  private nextId = 1;
  private closed = false;

  hash(secret: string, cost: Argon2Cost): Promise<string> {
    return this.run({ id: this.nextId++, kind: "hash", secret, cost }) as Promise<string>;
  }

  verify(secret: string, hash: string): Promise<boolean> {
    return this.run({ id: this.nextId++, kind: "verify", secret, hash }) as Promise<boolean>;
  }

  /** How many threads there are (for tests). */
  get threads(): number {
    return this.workers.size;
  }

  /** Ends the threads; work still running fails. */
  async close(): Promise<void> {
    this.closed = true;
    const workers = [...this.workers];
    this.workers.clear();
    this.idle.length = 0;
    this.failRunning(() => true, new Error("the hashing threads were closed"));
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  private run(work: HashingWork): Promise<string | boolean> {
    if (this.closed) return Promise.reject(new Error("the hashing threads were closed"));
    const worker = this.idle.pop() ?? this.start();
    worker.ref();
    return new Promise((resolve, reject) => {
      this.running.set(work.id, { worker, resolve, reject });
      worker.postMessage(work);
    });
  }

  private start(): Worker {
    const worker = new Worker(packagedFileUrl("adapters/threads/hashing-entry.ts"));
    this.workers.add(worker);
    worker.on("message", (reply: HashingReply) => {
      const running = this.running.get(reply.id);
      if (!running) return;
      this.running.delete(reply.id);
      worker.unref();
      this.idle.push(worker);
      if (reply.ok) running.resolve(reply.value);
      else running.reject(errorFromThread(reply.error));
    });
    const ended = (cause: string) => {
      if (!this.workers.delete(worker)) return;
      const index = this.idle.indexOf(worker);
      if (index >= 0) this.idle.splice(index, 1);
      this.failRunning((running) => running.worker === worker, new Error(`a hashing thread ended: ${cause}`));
    };
    worker.on("error", (error: Error) => ended(error.message));
    worker.on("exit", (code) => ended(`exit code ${code}`));
    return worker;
  }

  private failRunning(which: (running: Running) => boolean, error: Error): void {
    for (const [id, running] of this.running) {
      if (!which(running)) continue;
      this.running.delete(id);
      running.reject(error);
    }
  }
}
