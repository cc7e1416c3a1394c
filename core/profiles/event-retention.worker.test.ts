import { describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import { eventRetentionCases } from "../../testing/profiles/event-retention.ts";

// The same cases run on the libSQL store in adapters/store-libsql/event-retention.worker.test.ts.
describe("event retention (memory store)", () => {
  for (const [name, run] of Object.entries(eventRetentionCases)) it(name, () => run(createMemoryStores()));
});
