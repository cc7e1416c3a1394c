import { describe, expect, it } from "bun:test";
import fc from "fast-check";
import { ServiceBusyError } from "../../core/errors/index.ts";
import { FairQueue } from "./fair-queue.ts";

/** Work that runs until the test finishes it, recording when it started. */
function harness(limits: { concurrency: number; maxWaiting: number; maxWaitingPerSource: number }) {
  const queue = new FairQueue(limits);
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const outcomes = new Map<string, Promise<"done" | "busy">>();
  const submit = (source: string, name: string) => {
    const outcome = queue.run(source, () => {
      started.push(name);
      return new Promise<void>((resolve) => finishers.set(name, resolve));
    });
    outcomes.set(
      name,
      outcome.then(
        () => "done" as const,
        (error: unknown) => {
          if (error instanceof ServiceBusyError) return "busy" as const;
          throw error;
        },
      ),
    );
  };
  /** Lets the work `name` finish, then waits for what that set going (the next waiter's start). */
  const finish = async (name: string) => {
    finishers.get(name)?.();
    await outcomes.get(name);
  };
  const outcome = (name: string) => outcomes.get(name) as Promise<"done" | "busy">;
  return { queue, started, submit, finish, outcome };
}

describe("FairQueue: a fair share of a bounded queue per source", () => {
  it("runs at most `concurrency` at once and hands a freed slot to a waiter, never to a newcomer ahead of it", async () => {
    const { queue, started, submit, finish } = harness({ concurrency: 2, maxWaiting: 10, maxWaitingPerSource: 10 });
    for (const name of ["a1", "a2", "a3"]) submit("a", name);
    expect(started).toEqual(["a1", "a2"]);
    expect(queue.load).toEqual({ running: 2, waiting: 1 });
    await finish("a1");
    submit("b", "b1");
    expect(started).toEqual(["a1", "a2", "a3"]);
    expect(queue.load).toEqual({ running: 2, waiting: 1 });
  });

  it("serves the sources' lines in turn: a newcomer waits behind at most one piece of work per other source", async () => {
    const { started, submit, finish } = harness({ concurrency: 1, maxWaiting: 20, maxWaitingPerSource: 8 });
    submit("a", "a0");
    for (const name of ["a1", "a2", "a3", "a4"]) submit("a", name);
    submit("b", "b1");
    submit("b", "b2");
    submit("c", "c1");
    for (const name of ["a0", "a1", "b1", "c1", "a2", "b2", "a3"]) await finish(name);
    expect(started).toEqual(["a0", "a1", "b1", "c1", "a2", "b2", "a3", "a4"]);
  });

  it("refuses a source's work beyond its own line at once, and another source's work still waits", async () => {
    const { submit, finish, outcome, started } = harness({ concurrency: 1, maxWaiting: 64, maxWaitingPerSource: 2 });
    for (const name of ["a0", "a1", "a2", "a3", "a4"]) submit("a", name);
    submit("b", "b1");
    expect(await outcome("a3")).toBe("busy");
    expect(await outcome("a4")).toBe("busy");
    for (const name of ["a0", "a1", "b1", "a2"]) await finish(name);
    expect(started).toEqual(["a0", "a1", "b1", "a2"]);
  });

  it("when every line together is full, a newcomer takes the place of the newest waiter of the longest line", async () => {
    const { submit, outcome, queue } = harness({ concurrency: 1, maxWaiting: 4, maxWaitingPerSource: 4 });
    submit("a", "running");
    for (const name of ["a1", "a2", "a3", "a4"]) submit("a", name);
    submit("b", "b1");
    expect(await outcome("a4")).toBe("busy");
    submit("c", "c1");
    expect(await outcome("a3")).toBe("busy");
    submit("d", "d1");
    expect(await outcome("a2")).toBe("busy");
    // a1, b1, c1 and d1 wait: no line is longer than a newcomer's would be, so the newcomer is refused.
    submit("e", "e1");
    expect(await outcome("e1")).toBe("busy");
    submit("b", "b2");
    expect(await outcome("b2")).toBe("busy");
    expect(queue.load).toEqual({ running: 1, waiting: 4 });
  });

  it("never runs more than `concurrency` nor holds more than the waiting limits, and finishes every accepted piece, for any arrivals", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          concurrency: fc.integer({ min: 1, max: 3 }),
          maxWaiting: fc.integer({ min: 1, max: 6 }),
          maxWaitingPerSource: fc.integer({ min: 1, max: 4 }),
        }),
        fc.array(fc.oneof(fc.record({ submit: fc.constantFrom("a", "b", "c") }), fc.record({ finish: fc.nat(20) })), {
          maxLength: 40,
        }),
        async (limits, steps) => {
          const queue = new FairQueue(limits);
          const running: Array<() => void> = [];
          const accepted: Array<Promise<unknown>> = [];
          for (const step of steps) {
            if ("submit" in step) {
              const outcome = queue.run(step.submit, () => new Promise<void>((resolve) => running.push(resolve)));
              accepted.push(outcome.catch((error: unknown) => expect(error).toBeInstanceOf(ServiceBusyError)));
            } else if (running.length > 0) {
              running.splice(step.finish % running.length, 1)[0]?.();
            }
            await Promise.resolve();
            await Promise.resolve();
            const { running: now, waiting } = queue.load;
            expect(now).toBeLessThanOrEqual(limits.concurrency);
            expect(waiting).toBeLessThanOrEqual(limits.maxWaiting);
          }
          while (queue.load.running > 0) {
            running.shift()?.();
            await new Promise((resolve) => setTimeout(resolve, 0));
          }
          await Promise.all(accepted);
          expect(queue.load).toEqual({ running: 0, waiting: 0 });
        },
      ),
      { numRuns: 200 },
    );
  });
});
