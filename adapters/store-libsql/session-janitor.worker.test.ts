import { describe, it } from "bun:test";
import { sessionJanitorCases } from "../../testing/session/session-janitor.ts";
import { openLibsqlStores } from "./libsql.stores.ts";

// The session janitor on the libSQL store: the same cases as its memory store test in the core
// (core/session/session-janitor.worker.test.ts), here on the SQL of deleteExpired.
describe("the session janitor (libsql store)", () => {
  for (const [name, run] of Object.entries(sessionJanitorCases))
    it(name, async () => run(await openLibsqlStores({ url: ":memory:" })));
});
