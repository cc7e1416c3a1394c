import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import { recordingLogger } from "../../testing/fakes.ts";
import type { ChangeSettlement, DataLayerChange, DataLayerKey, DataLayerStore } from "../ports/index.ts";
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

/** A data layer store of its own: the in-memory one. */
function memoryStore(): DataLayerStore {
  return createMemoryStores().dataLayers;
}

/**
 * The memory store, with `settle` failing `failures` times (a store that cannot be written); `settleAnyway`
 * writes past the failures.
 */
function failingStore(
  failures: number,
): DataLayerStore & { attempts: number; settleAnyway(settlement: ChangeSettlement): Promise<boolean> } {
  const store = memoryStore();
  const settleAnyway = store.settle.bind(store);
  let left = failures;
  const failing = Object.assign(store, {
    attempts: 0,
    settleAnyway,
    async settle(settlement: ChangeSettlement) {
      if (settlement.state === "completed") {
        failing.attempts += 1;
        if (left > 0) {
          left -= 1;
          throw new Error("SQLITE_BUSY: database is locked");
        }
      }
      return settleAnyway(settlement);
    },
  });
  return failing;
}

describe("the data layer publisher (DLE-07, DEC-DLE-05, DEC-DLE-06)", () => {
  it("publishes nothing before a change is due, then completes it at its scheduled time and serves it", async () => {
    const store = memoryStore();
    const worker = dataLayerPublisher({ store, logger: recordingLogger() });
    await store.append(change(1, "upload", 5_000), true);
    assert.equal(await worker.nextDueAt(), 5_000);
    assert.equal(await worker.runDue(4_999), 0);
    assert.equal(await store.served(key), null);
    assert.equal(await worker.runDue(9_000), 1);
    const newest = (await store.read(key))?.newest;
    assert.deepEqual({ state: newest?.state, settledAt: newest?.settledAt }, { state: "completed", settledAt: 5_000 });
    assert.deepEqual(await store.served(key), { body: '{"seq":1}', seq: 1, publishedAt: 5_000 });
    assert.equal(await worker.nextDueAt(), null);
  });

  it("applies the changes of one data layer in order, one per look, ending with what was accepted last", async () => {
    const store = memoryStore();
    const worker = dataLayerPublisher({ store, logger: recordingLogger() });
    await store.append(change(1, "upload", 5_000), true);
    await store.append(change(2, "update", 6_000), true);
    await store.append(change(3, "delete", 7_000), false);
    await store.append(change(4, "upload", 8_000), true);
    const served: Array<string | null> = [];
    while ((await worker.runDue(10_000)) > 0) served.push((await store.served(key))?.body ?? null);
    assert.deepEqual(served, ['{"seq":1}', '{"seq":2}', null, '{"seq":4}']);
  });

  it("retries a change whose publishing fails, and completes it once the store can be written", async () => {
    const store = failingStore(2);
    const logger = recordingLogger();
    const worker = dataLayerPublisher({ store, logger });
    await store.append(change(1, "upload", 5_000), true);
    const newest = async () => {
      const found = (await store.read(key))?.newest;
      return { state: found?.state, attempts: found?.attempts, runAt: found?.runAt };
    };
    assert.equal(await worker.runDue(5_000), 0);
    assert.deepEqual(await newest(), { state: "pending", attempts: 1, runAt: 6_000 });
    assert.equal(await worker.runDue(5_500), 0);
    assert.equal(await worker.runDue(6_000), 0);
    assert.deepEqual(await newest(), { state: "pending", attempts: 2, runAt: 8_000 });
    assert.equal(await worker.runDue(8_000), 1);
    assert.equal((await store.read(key))?.newest.state, "completed");
    assert.equal(logger.lines.filter((line) => line.level === "warn").length, 2);
  });

  it("fails a change after the last attempt and keeps serving what was served before", async () => {
    const store = failingStore(Number.POSITIVE_INFINITY);
    const worker = dataLayerPublisher({
      store,
      logger: recordingLogger(),
      policy: { maxAttempts: 3, firstDelayMs: 10, maxDelayMs: 10 },
    });
    await store.append(change(1, "upload", 1_000), true);
    await store.settleAnyway({
      key,
      seq: 1,
      state: "completed",
      settledAt: 1_000,
      attempts: 0,
      serve: '{"seq":1}',
    });
    await store.append(change(2, "update", 2_000), true);
    for (let now = 2_000; now < 2_100; now += 10) await worker.runDue(now);
    const newest = (await store.read(key))?.newest;
    assert.deepEqual({ state: newest?.state, attempts: newest?.attempts }, { state: "failed", attempts: 3 });
    assert.deepEqual(await store.served(key), { body: '{"seq":1}', seq: 1, publishedAt: 1_000 });
    assert.equal(store.attempts, 3);
    assert.equal(await worker.nextDueAt(), null);
  });
});
