/**
 * Event retention on the libSQL store: its deletes of old events, bounded and only of those the profile worker
 * applied. The same tests run on the in-memory store in the core (core/profiles/event-retention.worker.test.ts).
 */
import { describe, expect, it } from "bun:test";
import type { Stores } from "../../core/ports/index.ts";
import { eventRetentionWorker } from "../../core/profiles/event-retention.worker.ts";
import { profilesCursorKey } from "../../core/profiles/profile-folding.worker.ts";
import { sampleEvent } from "../store-contract/fixtures.ts";
import { openLibsqlStores } from "./libsql.stores.ts";

const day = 86_400_000;
const start = Date.UTC(2026, 10, 21);

async function traceIds(stores: Stores): Promise<Array<string | null>> {
  return (await stores.events.query({ limit: 100 })).map((event) => event.traceId);
}

describe("event retention (libsql store)", () => {
  it("removes the events older than the retention once the profile worker has applied them, looking at most once a minute", async () => {
    const stores: Stores = await openLibsqlStores({ url: ":memory:" });
    await stores.events.append([
      sampleEvent({ traceId: "old", receivedAt: start }),
      sampleEvent({ traceId: "older-than-30-days", receivedAt: start + day }),
      sampleEvent({ traceId: "new", receivedAt: start + 40 * day }),
    ]);
    const worker = eventRetentionWorker({ events: stores.events, settings: stores.settings, retentionMs: 30 * day });
    // Nothing applied to profiles yet: nothing is removed, however old.
    expect(await worker.runDue(start + 35 * day)).toBe(0);
    await stores.settings.set(profilesCursorKey, "3");
    // Looked less than a minute ago.
    expect(await worker.runDue(start + 35 * day + 59_999)).toBe(0);
    expect(await worker.runDue(start + 35 * day + 60_000)).toBe(2);
    expect(await traceIds(stores)).toEqual(["new"]);
    expect(await worker.nextDueAt()).toBeNull();
    await stores.close();
  });

  it("goes on at once while a pass removed some, in batches", async () => {
    const stores: Stores = await openLibsqlStores({ url: ":memory:" });
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
    expect([
      await worker.runDue(now),
      await worker.runDue(now),
      await worker.runDue(now),
      await worker.runDue(now),
    ]).toEqual([10, 10, 5, 0]);
    // Then it waits a minute again.
    await stores.events.append([sampleEvent({ traceId: "late", receivedAt: start })]);
    expect(await worker.runDue(now + 1)).toBe(0);
    expect(await worker.runDue(now + 60_000)).toBe(1);
    await stores.close();
  });
});
