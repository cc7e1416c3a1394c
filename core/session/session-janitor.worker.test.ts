import { describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import { sessionJanitorCases } from "../../testing/session/session-janitor.ts";

// The same cases run on the libSQL store in adapters/store-libsql/session-janitor.worker.test.ts.
describe("the session janitor (memory store)", () => {
  for (const [name, run] of Object.entries(sessionJanitorCases)) it(name, () => run(createMemoryStores()));
});
