import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { DrainOptions, DrainReport, MovableClock, WorkScheduler } from "../ports/index.ts";
import { err, ok } from "../result.ts";
import { drainAdvancingClock } from "./fast-forward.use-cases.ts";

const start = Date.UTC(2025, 0, 2, 12, 0, 0);
const minute = 60_000;
const hour = 60 * minute;

/** A virtual clock that moves only when set; `refusing` makes every set fail as an out-of-range time would. */
function fakeClock(options: { refusing?: boolean; onRefresh?: () => number } = {}) {
  let offset = 0;
  const sets: number[] = [];
  const clock: MovableClock = {
    now: () => start + offset,
    offsetMs: () => offset,
    async set(targetMs) {
      sets.push(targetMs);
      if (options.refusing) return err("out-of-range");
      offset = targetMs - start;
      return ok(targetMs);
    },
    async refresh() {
      // Another process's change, seen here only once the clock is refreshed.
      if (options.onRefresh) offset = options.onRefresh();
    },
  };
  return { clock, sets };
}

/** A scheduler with one worker, "w", whose items fall due at the given virtual times. */
function fakeScheduler(clock: MovableClock, dueAt: number[]) {
  const waiting = [...dueAt].sort((a, b) => a - b);
  const scheduler: WorkScheduler = {
    notify() {},
    eventsCommitted() {},
    backlog: async () => [],
    async drain() {
      const due = waiting.filter((at) => at <= clock.now());
      waiting.splice(0, due.length);
      const processed: Record<string, number> = due.length > 0 ? { w: due.length } : {};
      return {
        complete: waiting.length === 0,
        timedOut: false,
        processed,
        nextDueAt: waiting[0] ?? null,
      };
    },
  };
  return { scheduler };
}

/** Real time that stands still unless a test moves it. */
function fakeRealTime() {
  let now = 1_000_000;
  return { realNow: () => now, pass: (ms: number) => (now += ms) };
}

describe("the admin wait that moves the virtual clock", () => {
  it("moves the clock to each item's due time in turn and runs it, until nothing is left", async () => {
    const { clock, sets } = fakeClock();
    const { scheduler } = fakeScheduler(clock, [start, start + minute, start + 5 * minute]);
    const report = await drainAdvancingClock(scheduler, clock, {
      upToMs: hour,
      timeoutMs: 10_000,
      realNow: fakeRealTime().realNow,
    });
    assert.deepEqual(report, {
      complete: true,
      timedOut: false,
      processed: { w: 3 },
      nextDueAt: null,
      advancedMs: 5 * minute,
    });
    assert.deepEqual(sets, [start + minute, start + 5 * minute]);
  });

  it("leaves the clock where the last item ran when the next is further than upToMs from where it stood", async () => {
    const { clock, sets } = fakeClock();
    const { scheduler } = fakeScheduler(clock, [start + 30 * minute, start + 2 * hour]);
    const report = await drainAdvancingClock(scheduler, clock, {
      upToMs: hour,
      timeoutMs: 10_000,
      realNow: fakeRealTime().realNow,
    });
    assert.deepEqual(report, {
      complete: false,
      timedOut: false,
      processed: { w: 1 },
      nextDueAt: start + 2 * hour,
      advancedMs: 30 * minute,
    });
    assert.deepEqual(sets, [start + 30 * minute]);
  });

  it("reads the clock after refreshing it, so that a change another process made is not counted as its own", async () => {
    const { clock, sets } = fakeClock({ onRefresh: () => 2 * hour });
    const { scheduler } = fakeScheduler(clock, [start + 90 * minute, start + 2 * hour + 30 * minute]);
    const report = await drainAdvancingClock(scheduler, clock, {
      upToMs: hour,
      timeoutMs: 10_000,
      realNow: fakeRealTime().realNow,
    });
    assert.deepEqual(report, {
      complete: true,
      timedOut: false,
      processed: { w: 2 },
      nextDueAt: null,
      advancedMs: 30 * minute,
    });
    assert.deepEqual(sets, [start + 2 * hour + 30 * minute]);
  });

  it("ends with what was done when the clock refuses to move", async () => {
    const { clock, sets } = fakeClock({ refusing: true });
    const { scheduler } = fakeScheduler(clock, [start + minute]);
    const report = await drainAdvancingClock(scheduler, clock, {
      upToMs: hour,
      timeoutMs: 10_000,
      realNow: fakeRealTime().realNow,
    });
    assert.deepEqual(report, {
      complete: false,
      timedOut: false,
      processed: {},
      nextDueAt: start + minute,
      advancedMs: 0,
    });
    assert.deepEqual(sets, [start + minute]);
  });

  it("ends at once, timed out, when a drain of the scheduler timed out", async () => {
    const { clock, sets } = fakeClock();
    const timedOut: DrainReport = { complete: false, timedOut: true, processed: { w: 4 }, nextDueAt: start + minute };
    const scheduler: WorkScheduler = {
      notify() {},
      eventsCommitted() {},
      drain: async () => timedOut,
      backlog: async () => [],
    };
    const report = await drainAdvancingClock(scheduler, clock, {
      upToMs: hour,
      timeoutMs: 10_000,
      realNow: fakeRealTime().realNow,
    });
    assert.deepEqual(report, { ...timedOut, advancedMs: 0 });
    assert.deepEqual(sets, []);
  });

  it("waits in real time, a second at a time, for work due now that runs elsewhere, and times out when it never ends", async () => {
    const { clock, sets } = fakeClock();
    const time = fakeRealTime();
    const drains: DrainOptions[] = [];
    // Due now and never run here: another process holds it.
    const scheduler: WorkScheduler = {
      notify() {},
      eventsCommitted() {},
      backlog: async () => [],
      async drain(options = {}) {
        drains.push(options);
        if (options.includeScheduled) time.pass(options.timeoutMs ?? 0);
        return { complete: false, timedOut: false, processed: {}, nextDueAt: clock.now() };
      },
    };
    const report = await drainAdvancingClock(scheduler, clock, {
      upToMs: hour,
      timeoutMs: 2_500,
      realNow: time.realNow,
    });
    assert.deepEqual(report, {
      complete: false,
      timedOut: true,
      processed: {},
      nextDueAt: start,
      advancedMs: 0,
    });
    assert.deepEqual(drains, [
      { includeScheduled: false, timeoutMs: 2_500 },
      { includeScheduled: true, timeoutMs: 1_000 },
      { includeScheduled: false, timeoutMs: 1_500 },
      { includeScheduled: true, timeoutMs: 1_000 },
      { includeScheduled: false, timeoutMs: 500 },
      { includeScheduled: true, timeoutMs: 500 },
      { includeScheduled: false, timeoutMs: 0 },
    ]);
    assert.deepEqual(sets, []);
  });

  it("ends complete when the work it waited for in real time finishes, counting it", async () => {
    const { clock } = fakeClock();
    let finished = false;
    const scheduler: WorkScheduler = {
      notify() {},
      eventsCommitted() {},
      backlog: async () => [],
      async drain(options = {}): Promise<DrainReport> {
        if (options.includeScheduled) {
          finished = true;
          return { complete: true, timedOut: false, processed: { w: 1 }, nextDueAt: null };
        }
        return { complete: finished, timedOut: false, processed: {}, nextDueAt: finished ? null : clock.now() };
      },
    };
    const report = await drainAdvancingClock(scheduler, clock, {
      upToMs: hour,
      timeoutMs: 10_000,
      realNow: fakeRealTime().realNow,
    });
    assert.deepEqual(report, { complete: true, timedOut: false, processed: { w: 1 }, nextDueAt: null, advancedMs: 0 });
  });
});
