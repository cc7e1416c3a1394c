import { describe, expect, it } from "bun:test";
import { DrizzleQueryError } from "drizzle-orm";
import { describeError, stackFramesOf } from "../../core/errors/index.ts";
import type { BackgroundWorker } from "../../core/ports/index.ts";
import { createMemoryLogger } from "./logger.ts";
import { failureBackoffMs, Scheduler } from "./scheduler.ts";

/** A worker over a list of items due at given virtual times, like the store-backed workers. */
function listWorker(name: string, dueTimes: number[], done: number[] = []): BackgroundWorker & { done: number[] } {
  const pending = [...dueTimes];
  return {
    name,
    done,
    async runDue(now) {
      const due = pending.filter((at) => at <= now);
      for (const at of due) {
        pending.splice(pending.indexOf(at), 1);
        done.push(at);
      }
      return due.length;
    },
    async nextDueAt() {
      return pending.length ? Math.min(...pending) : null;
    },
  };
}

function manualClock(start = 1_000_000) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe("Scheduler", () => {
  it("backlog says how far each worker is behind and which one is failing, without running a pass (issue 33, /metrics)", async () => {
    const clock = manualClock();
    const scheduler = new Scheduler({ clock, logger: createMemoryLogger() });
    const behind = listWorker("profiles", [clock.now() - 5_000, clock.now() - 1_000]);
    scheduler.register(behind);
    scheduler.register(listWorker("publisher", [clock.now() + 60_000]));
    scheduler.register({
      name: "deleter",
      runDue: async () => {
        throw new Error("disk full");
      },
      nextDueAt: async () => clock.now(),
    });
    expect(await scheduler.backlog()).toEqual([
      { worker: "profiles", overdueMs: 5_000, failing: false },
      { worker: "publisher", overdueMs: 0, failing: false },
      { worker: "deleter", overdueMs: 0, failing: false },
    ]);
    expect(behind.done).toEqual([]);
    await scheduler.drain({ timeoutMs: 50 });
    expect(await scheduler.backlog()).toEqual([
      { worker: "profiles", overdueMs: 0, failing: false },
      { worker: "publisher", overdueMs: 0, failing: false },
      { worker: "deleter", overdueMs: 0, failing: true },
    ]);
  });

  it("drain runs every item that is due and reports the counts per worker", async () => {
    const clock = manualClock();
    const scheduler = new Scheduler({ clock, logger: createMemoryLogger() });
    const worker = listWorker("publisher", [clock.now() - 10, clock.now(), clock.now() + 60_000]);
    scheduler.register(worker);
    const report = await scheduler.drain();
    // Not complete: an item is left, scheduled a minute later (includeScheduled would wait for it).
    expect(report).toEqual({
      complete: false,
      timedOut: false,
      processed: { publisher: 2 },
      nextDueAt: clock.now() + 60_000,
    });
    expect(worker.done).toHaveLength(2);
  });

  it("the counts of a drain include the items its timer finished meanwhile, not only the drain's own passes", async () => {
    const clock = manualClock();
    const scheduler = new Scheduler({ clock, logger: createMemoryLogger() });
    const inner = listWorker("deleter", [clock.now()]);
    // A slow batch: the timer's pass is still running it when the drain is called.
    scheduler.register({
      ...inner,
      runDue: async (now) => {
        await Bun.sleep(100);
        return inner.runDue(now);
      },
    });
    scheduler.start();
    await Bun.sleep(20);
    const report = await scheduler.drain();
    await scheduler.stop();
    expect(inner.done).toHaveLength(1);
    expect(report).toEqual({ complete: true, timedOut: false, processed: { deleter: 1 }, nextDueAt: null });
  });

  it("work scheduled later runs once the virtual clock reaches it", async () => {
    const clock = manualClock();
    const scheduler = new Scheduler({ clock, logger: createMemoryLogger() });
    const worker = listWorker("deleter", [clock.now() + 30 * 86_400_000]);
    scheduler.register(worker);
    expect((await scheduler.drain()).processed).toEqual({ deleter: 0 });
    clock.advance(30 * 86_400_000);
    expect((await scheduler.drain()).processed).toEqual({ deleter: 1 });
  });

  it("with includeScheduled, drain waits in real time for work due soon", async () => {
    const realClock = { now: () => Date.now() };
    const scheduler = new Scheduler({ clock: realClock, logger: createMemoryLogger() });
    const worker = listWorker("soon", [Date.now() + 120]);
    scheduler.register(worker);
    const report = await scheduler.drain({ includeScheduled: true, timeoutMs: 5_000 });
    expect(report.complete).toBe(true);
    expect(worker.done).toHaveLength(1);
  });

  it("with includeScheduled, work due after the timeout is left at once: incomplete, not timed out", async () => {
    const clock = manualClock();
    const scheduler = new Scheduler({ clock, logger: createMemoryLogger() });
    scheduler.register(listWorker("far", [clock.now() + 3_600_000]));
    const started = Date.now();
    const report = await scheduler.drain({ includeScheduled: true, timeoutMs: 10_000 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(report).toEqual({
      complete: false,
      timedOut: false,
      processed: { far: 0 },
      nextDueAt: clock.now() + 3_600_000,
    });
  });

  it("a wait under work that keeps coming ends at its timeout, timed out", async () => {
    const scheduler = new Scheduler({ clock: manualClock(), logger: createMemoryLogger() });
    scheduler.register({ name: "endless", runDue: async () => 1, nextDueAt: async () => null });
    const report = await scheduler.drain({ includeScheduled: true, timeoutMs: 100 });
    expect([report.complete, report.timedOut]).toEqual([false, true]);
  });

  it("a failing worker is logged and does not stop the others", async () => {
    const clock = manualClock();
    const logger = createMemoryLogger();
    const scheduler = new Scheduler({ clock, logger });
    scheduler.register({
      name: "broken",
      runDue: async () => Promise.reject(new Error("disk on fire")),
      nextDueAt: async () => null,
    });
    const healthy = listWorker("healthy", [clock.now()]);
    scheduler.register(healthy);
    const report = await scheduler.drain();
    expect(report.processed).toEqual({ broken: 0, healthy: 1 });
    expect(
      logger.lines.some(
        (line) => line.msg === "background worker failed" && String(line.error).includes("disk on fire"),
      ),
    ).toBe(true);
  });

  it("at the debug level (SVC_LOG_LEVEL=debug) each pass that did work says which worker, how many items and how long", async () => {
    const clock = manualClock();
    const logger = createMemoryLogger("debug");
    const scheduler = new Scheduler({ clock, logger });
    scheduler.register(listWorker("profiles", [clock.now(), clock.now()]));
    scheduler.register(listWorker("idle", []));
    await scheduler.drain();
    const lines = logger.lines.filter((line) => line.msg === "background work done");
    expect(lines).toEqual([
      expect.objectContaining({ level: "debug", worker: "profiles", items: 2, ms: expect.any(Number) }),
    ]);
    // At the default level nothing of it is written.
    const quiet = createMemoryLogger();
    const again = new Scheduler({ clock, logger: quiet });
    again.register(listWorker("profiles", [clock.now()]));
    await again.drain();
    expect(quiet.lines.filter((line) => line.level === "debug")).toEqual([]);
  });

  it("once started, it runs due work by itself when notified", async () => {
    const clock = manualClock();
    const scheduler = new Scheduler({ clock, logger: createMemoryLogger(), pollMs: 10_000 });
    const worker = listWorker("auto", []);
    scheduler.register(worker);
    scheduler.start();
    try {
      (worker as unknown as { runDue: BackgroundWorker["runDue"] }).runDue = (() => {
        let given = false;
        return async () => {
          if (given) return 0;
          given = true;
          worker.done.push(clock.now());
          return 1;
        };
      })();
      scheduler.notify();
      for (let i = 0; i < 100 && worker.done.length === 0; i += 1) await Bun.sleep(5);
      expect(worker.done).toHaveLength(1);
    } finally {
      await scheduler.stop();
    }
  });
});

describe("Scheduler coalescing", () => {
  /** A queue worker taking at most `batchSize` items a pass, counting its passes. */
  function queueWorker(batchSize: number) {
    const state = { queued: 0, passes: 0, taken: [] as number[] };
    const worker: BackgroundWorker = {
      name: "queue",
      batchSize,
      async runDue() {
        state.passes += 1;
        const taken = Math.min(batchSize, state.queued);
        state.queued -= taken;
        if (taken > 0) state.taken.push(taken);
        return taken;
      },
      async nextDueAt() {
        return null;
      },
    };
    return { worker, state };
  }

  it("notifications arriving close together share one pass instead of one pass each", async () => {
    const scheduler = new Scheduler({
      clock: manualClock(),
      logger: createMemoryLogger(),
      pollMs: 60_000,
      coalesceMs: 50,
    });
    const { worker, state } = queueWorker(1000);
    scheduler.register(worker);
    scheduler.start();
    try {
      await Bun.sleep(20);
      const passesBefore = state.passes;
      for (let i = 0; i < 20; i += 1) {
        state.queued += 1;
        scheduler.notify();
        await Bun.sleep(1);
      }
      for (let i = 0; i < 100 && state.queued > 0; i += 1) await Bun.sleep(10);
      expect(state.queued).toBe(0);
      expect(state.passes - passesBefore).toBeLessThanOrEqual(3);
    } finally {
      await scheduler.stop();
    }
  });

  it("a pass that took a full batch is followed at once by the next, so a backlog drains without waiting", async () => {
    const scheduler = new Scheduler({
      clock: manualClock(),
      logger: createMemoryLogger(),
      pollMs: 60_000,
      coalesceMs: 5_000,
    });
    const { worker, state } = queueWorker(10);
    scheduler.register(worker);
    state.queued = 95;
    scheduler.start();
    try {
      for (let i = 0; i < 200 && state.queued > 0; i += 1) await Bun.sleep(5);
      expect(state.queued).toBe(0);
      expect(state.taken).toEqual([10, 10, 10, 10, 10, 10, 10, 10, 10, 5]);
    } finally {
      await scheduler.stop();
    }
  });

  it("a notification during a full batch does not put the next pass off until the coalescing delay", async () => {
    // Under collection every group commit notifies, also while a pass runs: the notification arms a look
    // after the coalescing delay, and the pass, having taken a full batch, asks for one at once. The sooner wins.
    const scheduler = new Scheduler({
      clock: manualClock(),
      logger: createMemoryLogger(),
      pollMs: 60_000,
      coalesceMs: 5_000,
    });
    const { worker, state } = queueWorker(10);
    const runDue = worker.runDue.bind(worker);
    worker.runDue = async (now) => {
      scheduler.notify();
      return runDue(now);
    };
    scheduler.register(worker);
    state.queued = 30;
    scheduler.start();
    try {
      for (let i = 0; i < 200 && state.queued > 0; i += 1) await Bun.sleep(5);
      expect(state.queued).toBe(0);
      expect(state.taken).toEqual([10, 10, 10]);
    } finally {
      await scheduler.stop();
    }
  });
});

describe("Scheduler and a worker that keeps failing", () => {
  /** A worker whose one item is due and whose store fails (full, unreachable) until told otherwise. */
  function failingWorker(clock: { now(): number }) {
    const state = { tries: 0, failing: true, done: 0 };
    const worker: BackgroundWorker = {
      name: "publisher",
      async runDue() {
        state.tries += 1;
        if (state.failing) throw new Error("SQLITE_FULL: database or disk is full");
        if (state.done > 0) return 0;
        state.done += 1;
        return 1;
      },
      async nextDueAt() {
        return state.done > 0 ? null : clock.now() - 1_000;
      },
    };
    return { worker, state };
  }

  it("backs off (100 ms, doubling, at most 5 s) instead of running it again at once, runs it once it works, and says so", async () => {
    expect([1, 2, 3, 6, 7, 50].map(failureBackoffMs)).toEqual([100, 200, 400, 3_200, 5_000, 5_000]);
    const clock = manualClock();
    let real = 0;
    const logger = createMemoryLogger();
    const scheduler = new Scheduler({ clock, logger, realNow: () => real });
    const { worker, state } = failingWorker(clock);
    scheduler.register(worker);
    // Each wait runs what is due now; a worker in its backoff is skipped, and the wait is not complete.
    const triesAt = async (at: number) => {
      real = at;
      const report = await scheduler.drain({ includeScheduled: false });
      return [state.tries, report.complete];
    };
    expect(await triesAt(0)).toEqual([1, false]);
    expect(await triesAt(99)).toEqual([1, false]);
    expect(await triesAt(100)).toEqual([2, false]);
    expect(await triesAt(299)).toEqual([2, false]);
    expect(await triesAt(300)).toEqual([3, false]);
    expect(
      logger.lines.filter((line) => line.msg === "background worker failed").map((line) => line.retryInMs),
    ).toEqual([100, 200, 400]);
    state.failing = false;
    expect(await triesAt(500)).toEqual([3, false]);
    // Its backoff over, it publishes, and the wait's next look finds nothing left.
    expect(await triesAt(700)).toEqual([5, true]);
    expect(state.done).toBe(1);
    // Working again is said once, with how many passes failed in a row.
    expect(logger.lines.filter((line) => line.msg === "background worker works again")).toEqual([
      expect.objectContaining({ level: "info", worker: expect.any(String), failures: 3 }),
    ]);
  });

  it("a wait is not complete while a worker waits out its backoff, even with nothing scheduled", async () => {
    const clock = manualClock();
    let real = 0;
    const scheduler = new Scheduler({ clock, logger: createMemoryLogger(), realNow: () => real });
    const state = { tries: 0 };
    // Like the profile worker: never anything scheduled, its work is found at each look.
    scheduler.register({
      name: "profiles",
      runDue: async () => {
        state.tries += 1;
        throw new Error("SQLITE_BUSY");
      },
      nextDueAt: async () => null,
    });
    expect((await scheduler.drain()).complete).toBe(false);
    real = 50;
    expect((await scheduler.drain()).complete).toBe(false);
    expect(state.tries).toBe(1);
  });

  it("a wait for the scheduled work looks again every 50 ms at most, and gives up at its timeout", async () => {
    const clock = manualClock();
    const scheduler = new Scheduler({ clock, logger: createMemoryLogger() });
    const { worker, state } = failingWorker(clock);
    scheduler.register(worker);
    const report = await scheduler.drain({ includeScheduled: true, timeoutMs: 400 });
    expect(report.complete).toBe(false);
    // The worker itself runs at its backoff's pace (0, 100, 300 ms), whatever the wait's looks.
    expect(state.tries).toBeLessThanOrEqual(4);
  });
});

describe("Scheduler fairness", () => {
  it("a worker that always has work does not keep the others waiting", async () => {
    const clock = manualClock();
    const scheduler = new Scheduler({ clock, logger: createMemoryLogger() });
    let busyBatches = 0;
    scheduler.register({
      name: "busy",
      runDue: async () => {
        busyBatches += 1;
        return busyBatches < 50 ? 1 : 0;
      },
      nextDueAt: async () => null,
    });
    const order: string[] = [];
    const other = listWorker("other", [clock.now()]);
    const runOther = other.runDue.bind(other);
    other.runDue = async (now) => {
      const count = await runOther(now);
      if (count > 0) order.push(`other after ${busyBatches} busy batches`);
      return count;
    };
    scheduler.register(other);
    await scheduler.drain();
    expect(order).toEqual(["other after 1 busy batches"]);
  });
});

describe("describeError", () => {
  it("names what caused an error, and leaves out a failed query's SQL and bound values (personal data)", () => {
    const locked = Object.assign(new Error("SQLITE_BUSY: database is locked"), { name: "LibsqlError" });
    const failed = new DrizzleQueryError(
      'insert into "lockouts" ("kind", "name") values (?, ?)',
      ["password", "ann@example.com"],
      locked,
    );
    const described = describeError(failed);
    expect(described).toBe("Error: LibsqlError: SQLITE_BUSY: database is locked");
    expect(described).not.toContain("ann@example.com");
    expect(described).not.toContain("insert into");
    expect(describeError(new Error("file import 1: stopped", { cause: new TypeError("x is not a function") }))).toBe(
      "Error: file import 1: stopped; caused by TypeError: x is not a function",
    );
    expect(describeError(new DrizzleQueryError("select 1", ["bob@example.com"], undefined as unknown as Error))).toBe(
      "Error: Failed query: select 1",
    );
    expect(describeError("plain")).toBe("plain");
  });

  it("never throws and never loops: a cause that cannot be printed, a cause that is the error itself", () => {
    expect(describeError(new Error("outer", { cause: Object.create(null) }))).toBe(
      "Error: outer; caused by (unprintable)",
    );
    const looped = new Error("again");
    looped.cause = looped;
    expect(describeError(looped)).toBe("Error: again");
  });

  it("the stack's frames, without its first lines, which repeat a failed query's bound values", () => {
    const failed = new DrizzleQueryError(
      "insert into x values (?)",
      ["ann@example.com"],
      new Error("constraint failed"),
    );
    expect(failed.stack).toContain("ann@example.com");
    const frames = stackFramesOf(failed) as string;
    expect(frames).toContain(" at ");
    expect(frames).not.toContain("ann@example.com");
    expect(stackFramesOf("not an error")).toBeUndefined();
  });
});

describe("Scheduler hold (svc-hub's own admin API, POST /admin/reset)", () => {
  it("waits for the pass in progress, keeps drains from running any worker until released, then runs them", async () => {
    const clock = manualClock();
    const scheduler = new Scheduler({ clock, logger: createMemoryLogger() });
    let finishPass!: () => void;
    const passes: string[] = [];
    scheduler.register({
      name: "slow",
      async runDue() {
        passes.push("started");
        await new Promise<void>((resolve) => (finishPass = resolve));
        passes.push("ended");
        return 0;
      },
      async nextDueAt() {
        return null;
      },
    });
    const first = scheduler.drain();
    await Bun.sleep(5);
    let held = false;
    const holding = scheduler.hold().then((release) => {
      held = true;
      return release;
    });
    await Bun.sleep(5);
    expect(held).toBe(false);
    finishPass();
    const release = await holding;
    expect(passes).toEqual(["started", "ended"]);
    await first;
    const second = scheduler.drain();
    await Bun.sleep(5);
    expect(passes).toEqual(["started", "ended"]);
    release();
    await Bun.sleep(5);
    expect(passes).toEqual(["started", "ended", "started"]);
    finishPass();
    expect((await second).complete).toBe(true);
  });
});
