import { describe, expect, it } from "bun:test";
import type {
  ChangeSettlement,
  DataLayerChange,
  DataLayerKey,
  DataLayerStore,
} from "../../core/ports/datalayer.store.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import { MemoryDataLayerStore } from "../store-memory/memory.datalayers.ts";
import { dataLayerPublisher } from "./datalayer-publisher.worker.ts";

const key: DataLayerKey = { account: "acme", profile: "main", dlId: "prod_1" };

function change(seq: number, kind: DataLayerChange["kind"], dueAt: number): DataLayerChange {
  return {
    key,
    seq,
    kind,
    body: kind === "delete" ? null : `{"seq":${seq}}`,
    state: "pending",
    acceptedAt: dueAt - 1_000,
    dueAt,
    runAt: dueAt,
    attempts: 0,
    settledAt: null,
  };
}

/** The memory store, with `settle` failing `failures` times (a store that cannot be written). */
function failingStore(failures: number): DataLayerStore & { attempts: number } {
  const store = new MemoryDataLayerStore();
  let left = failures;
  return Object.assign(store, {
    attempts: 0,
    async settle(this: MemoryDataLayerStore & { attempts: number }, settlement: ChangeSettlement) {
      if (settlement.state === "completed") {
        this.attempts += 1;
        if (left > 0) {
          left -= 1;
          throw new Error("SQLITE_BUSY: database is locked");
        }
      }
      return MemoryDataLayerStore.prototype.settle.call(this, settlement);
    },
  });
}

describe("the data layer publisher (DLE-07, DEC-DLE-05, DEC-DLE-06)", () => {
  it("publishes nothing before a change is due, then completes it at its scheduled time and serves it", async () => {
    const store = new MemoryDataLayerStore();
    const worker = dataLayerPublisher({ store, logger: createMemoryLogger() });
    await store.append(change(1, "upload", 5_000), true);
    expect(await worker.nextDueAt()).toBe(5_000);
    expect(await worker.runDue(4_999)).toBe(0);
    expect(await store.served(key)).toBeNull();
    expect(await worker.runDue(9_000)).toBe(1);
    expect((await store.read(key))?.newest).toMatchObject({ state: "completed", settledAt: 5_000 });
    expect(await store.served(key)).toEqual({ body: '{"seq":1}', seq: 1, publishedAt: 5_000 });
    expect(await worker.nextDueAt()).toBeNull();
  });

  it("applies the changes of one data layer in order, one per look, ending with what was accepted last", async () => {
    const store = new MemoryDataLayerStore();
    const worker = dataLayerPublisher({ store, logger: createMemoryLogger() });
    await store.append(change(1, "upload", 5_000), true);
    await store.append(change(2, "update", 6_000), true);
    await store.append(change(3, "delete", 7_000), false);
    await store.append(change(4, "upload", 8_000), true);
    const served: Array<string | null> = [];
    while ((await worker.runDue(10_000)) > 0) served.push((await store.served(key))?.body ?? null);
    expect(served).toEqual(['{"seq":1}', '{"seq":2}', null, '{"seq":4}']);
  });

  it("retries a change whose publishing fails, and completes it once the store can be written", async () => {
    const store = failingStore(2);
    const logger = createMemoryLogger();
    const worker = dataLayerPublisher({ store, logger });
    await store.append(change(1, "upload", 5_000), true);
    expect(await worker.runDue(5_000)).toBe(0);
    expect((await store.read(key))?.newest).toMatchObject({ state: "pending", attempts: 1, runAt: 6_000 });
    expect(await worker.runDue(5_500)).toBe(0);
    expect(await worker.runDue(6_000)).toBe(0);
    expect((await store.read(key))?.newest).toMatchObject({ state: "pending", attempts: 2, runAt: 8_000 });
    expect(await worker.runDue(8_000)).toBe(1);
    expect((await store.read(key))?.newest.state).toBe("completed");
    expect(logger.lines.filter((line) => line.level === "warn")).toHaveLength(2);
  });

  it("fails a change after the last attempt and keeps serving what was served before", async () => {
    const store = failingStore(Number.POSITIVE_INFINITY);
    const worker = dataLayerPublisher({
      store,
      logger: createMemoryLogger(),
      policy: { maxAttempts: 3, firstDelayMs: 10, maxDelayMs: 10 },
    });
    await store.append(change(1, "upload", 1_000), true);
    await MemoryDataLayerStore.prototype.settle.call(store, {
      key,
      seq: 1,
      state: "completed",
      settledAt: 1_000,
      attempts: 0,
      serve: '{"seq":1}',
    });
    await store.append(change(2, "update", 2_000), true);
    for (let now = 2_000; now < 2_100; now += 10) await worker.runDue(now);
    expect((await store.read(key))?.newest).toMatchObject({ state: "failed", attempts: 3 });
    expect(await store.served(key)).toEqual({ body: '{"seq":1}', seq: 1, publishedAt: 1_000 });
    expect(store.attempts).toBe(3);
    expect(await worker.nextDueAt()).toBeNull();
  });
});
