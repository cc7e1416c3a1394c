import { afterEach, describe, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Stores } from "../../core/ports/index.ts";
import { manyUpdatesAtOnce } from "../../testing/datalayer/datalayer.ts";
import { cryptoIds } from "../runtime/crypto.ts";
import { hostEventLoop } from "../runtime/event-loop.ts";
import { openLibsqlStores } from "./libsql.stores.ts";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function libsqlStores(): Promise<Stores> {
  const directory = mkdtempSync(join(tmpdir(), "svc-hub-datalayer-service-"));
  const stores = await openLibsqlStores({ url: `file:${join(directory, "test.db")}` });
  cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
  cleanups.push(() => stores.close());
  return stores;
}

describe("data layer changes on one busy data layer (DLE-02, DEC-DLE-05)", () => {
  // The same test on the in-memory store: core/datalayer/datalayer.use-cases.test.ts.
  it("libsql: 150 updates at once are all recorded, each with a sequence number of its own", async () =>
    manyUpdatesAtOnce(await libsqlStores(), { ids: cryptoIds, eventLoop: hostEventLoop }));
});
