/**
 * Event retention on the libSQL store: its deletes of old events, bounded and only of those the profile worker
 * applied. The same cases run on the in-memory store in the core (core/profiles/event-retention.worker.test.ts).
 */
import { describe, it } from "bun:test";
import { eventRetentionCases } from "../../testing/profiles/event-retention.ts";
import { openLibsqlStores } from "./libsql.stores.ts";

describe("event retention (libsql store)", () => {
  for (const [name, run] of Object.entries(eventRetentionCases))
    it(name, async () => run(await openLibsqlStores({ url: ":memory:" })));
});
