/** Issue 41 ("ready in a blink", idle memory): the background thread of a fresh store starts at its first work. */
import { describe, expect, it } from "bun:test";
import type { BackgroundThread } from "./background-host.ts";
import { BackgroundThreadStoppedError } from "./background-host.ts";
import { backgroundThreadOnDemand } from "./background-on-demand.ts";

function fakeThread(calls: string[]): BackgroundThread {
  return {
    assertRunning() {},
    async append() {
      calls.push("append");
    },
    notify() {
      calls.push("notify");
    },
    eventsCommitted() {},
    async drain() {
      calls.push("drain");
      return { complete: true, timedOut: false, processed: {}, nextDueAt: null };
    },
    async backlog() {
      calls.push("backlog");
      return [];
    },
    async pause() {
      calls.push("pause");
    },
    async resume() {
      calls.push("resume");
    },
    async close() {
      calls.push("close");
    },
  };
}

describe("the background thread on demand", () => {
  it("starts nothing until its first work, then starts once", async () => {
    const calls: string[] = [];
    let starts = 0;
    const thread = backgroundThreadOnDemand(async () => {
      starts += 1;
      return fakeThread(calls);
    });
    thread.assertRunning();
    thread.eventsCommitted();
    expect(starts).toBe(0);
    expect(thread.started).toBe(false);
    await Promise.all([thread.append([]), thread.append([])]);
    expect(starts).toBe(1);
    expect(thread.started).toBe(true);
    await thread.drain();
    expect(calls).toEqual(["append", "append", "drain"]);
    await thread.close();
    expect(calls.at(-1)).toBe("close");
  });

  it("starts at a notification, a wait, a scrape's backlog and a reset's pause", async () => {
    for (const ask of [
      (thread: BackgroundThread) => thread.notify(),
      (thread: BackgroundThread) => thread.drain(),
      (thread: BackgroundThread) => thread.backlog(),
      (thread: BackgroundThread) => thread.pause(),
    ]) {
      const calls: string[] = [];
      const thread = backgroundThreadOnDemand(async () => fakeThread(calls));
      await ask(thread);
      await thread.close();
      expect(thread.started).toBe(true);
      expect(calls.length).toBe(2);
    }
  });

  it("a closed thread that never started starts nothing", async () => {
    let starts = 0;
    const thread = backgroundThreadOnDemand(async () => {
      starts += 1;
      return fakeThread([]);
    });
    await thread.close();
    expect(starts).toBe(0);
    await expect(thread.append([])).rejects.toBeInstanceOf(BackgroundThreadStoppedError);
  });

  it("a start that fails is reported once, and its work answered as storage unavailable", async () => {
    const failures: Error[] = [];
    const thread = backgroundThreadOnDemand(
      async () => {
        throw new Error("no store");
      },
      (error) => failures.push(error),
    );
    await expect(thread.append([])).rejects.toBeInstanceOf(BackgroundThreadStoppedError);
    await expect(thread.drain()).rejects.toBeInstanceOf(BackgroundThreadStoppedError);
    expect(() => thread.assertRunning()).toThrow(BackgroundThreadStoppedError);
    expect(failures.map((error) => error.message)).toEqual(["the background thread stopped: no store"]);
  });
});
