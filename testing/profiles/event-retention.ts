/**
 * The cases of event retention, run on every store: on the in-memory store in the core
 * (core/profiles/event-retention.worker.test.ts), on libSQL's deletes of old events in the adapters
 * (adapters/store-libsql/event-retention.worker.test.ts). Each takes a fresh, empty store and closes it.
 */
import assert from "node:assert/strict";
import type { Stores } from "../../core/ports/index.ts";
import { eventRetentionWorker, profilesCursorKey } from "../../core/profiles/index.ts";
import { sampleEvent } from "../fixtures.ts";

const day = 86_400_000;
const start = Date.UTC(2026, 10, 21);

async function traceIds(stores: Stores): Promise<Array<string | null>> {
  return (await stores.events.query({ limit: 100 })).map((event) => event.traceId);
}

export const eventRetentionCases: Record<string, (stores: Stores) => Promise<void>> = {
  "removes the events older than the retention once the profile worker has applied them, looking at most once a minute":
    async (stores) => {
      await stores.events.append([
        sampleEvent({ traceId: "old", receivedAt: start }),
        sampleEvent({ traceId: "older-than-30-days", receivedAt: start + day }),
        sampleEvent({ traceId: "new", receivedAt: start + 40 * day }),
      ]);
      const worker = eventRetentionWorker({ events: stores.events, settings: stores.settings, retentionMs: 30 * day });
      // Nothing applied to profiles yet: nothing is removed, however old.
      assert.equal(await worker.runDue(start + 35 * day), 0);
      await stores.settings.set(profilesCursorKey, "3");
      // Looked less than a minute ago.
      assert.equal(await worker.runDue(start + 35 * day + 59_999), 0);
      assert.equal(await worker.runDue(start + 35 * day + 60_000), 2);
      assert.deepEqual(await traceIds(stores), ["new"]);
      assert.equal(await worker.nextDueAt(), null);
      await stores.close();
    },

  "goes on at once while a pass removed some, in batches": async (stores) => {
    await stores.events.append(
      Array.from({ length: 25 }, (_, index) => sampleEvent({ traceId: String(index), receivedAt: start + index })),
    );
    await stores.settings.set(profilesCursorKey, "100");
    const worker = eventRetentionWorker({
      events: stores.events,
      settings: stores.settings,
      retentionMs: day,
      batchSize: 10,
    });
    const now = start + 2 * day;
    assert.deepEqual(
      [await worker.runDue(now), await worker.runDue(now), await worker.runDue(now), await worker.runDue(now)],
      [10, 10, 5, 0],
    );
    // Then it waits a minute again.
    await stores.events.append([sampleEvent({ traceId: "late", receivedAt: start })]);
    assert.equal(await worker.runDue(now + 1), 0);
    assert.equal(await worker.runDue(now + 60_000), 1);
    await stores.close();
  },
};
