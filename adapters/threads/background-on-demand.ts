/**
 * The background thread of a service whose store holds nothing yet, started by its first work instead of at start
 * (issue 41, "ready in a blink": the thread's code and connection are about 14 MB and a few hundred milliseconds of
 * CPU, which a fresh store's start need not wait for). Its work is the events': the first collected event, upload,
 * dropped file, privacy request, move of the virtual clock, `/admin/wait`, metrics scrape or reset starts it, and
 * that call waits for it; everything after goes to it as to a thread started with the service.
 */
import { describeErrorMessage } from "../../core/errors/index.ts";
import { type BackgroundThread, BackgroundThreadStoppedError } from "./background-host.ts";

export interface BackgroundThreadOnDemand extends BackgroundThread {
  /** True once its first work asked for it (the thread may still be starting). */
  readonly started: boolean;
  /** Starts it now if it is not started yet (a file found in a drop folder). */
  start(): void;
}

export function backgroundThreadOnDemand(
  startThread: () => Promise<BackgroundThread>,
  /** Called once if the thread cannot start (main.ts then stops the process, as for a thread that stops). */
  onFailure: (error: Error) => void = () => undefined,
): BackgroundThreadOnDemand {
  let starting: Promise<BackgroundThread> | null = null;
  let failed: BackgroundThreadStoppedError | null = null;
  let closed = false;

  const thread = (): Promise<BackgroundThread> => {
    if (failed) return Promise.reject(failed);
    if (closed) return Promise.reject(new BackgroundThreadStoppedError("the background thread is closed"));
    starting ??= startThread().catch((error: unknown) => {
      failed ??= new BackgroundThreadStoppedError(`the background thread stopped: ${describeErrorMessage(error)}`, {
        cause: error,
      });
      onFailure(failed);
      throw failed;
    });
    return starting;
  };

  return {
    get started() {
      return starting !== null;
    },
    start() {
      thread().catch(() => undefined);
    },
    assertRunning() {
      if (failed) throw failed;
    },
    async append(events) {
      await (await thread()).append(events);
    },
    notify() {
      thread().then(
        (running) => running.notify(),
        () => undefined,
      );
    },
    // The thread looks for work itself after each append it commits.
    eventsCommitted() {},
    async drain(options) {
      return (await thread()).drain(options);
    },
    async backlog() {
      return (await thread()).backlog();
    },
    async pause() {
      await (await thread()).pause();
    },
    async resume() {
      await (await thread()).resume();
    },
    async close() {
      closed = true;
      const running = await starting?.catch(() => null);
      await running?.close();
    },
  };
}
