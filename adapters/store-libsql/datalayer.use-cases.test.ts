import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultLimits } from "../../core/config/config.model.ts";
import { DataLayerService } from "../../core/datalayer/datalayer.use-cases.ts";
import type { Stores } from "../../core/ports/index.ts";
import { timingPresets } from "../../core/timing/timing.presets.ts";
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

function serviceOn(stores: Stores): DataLayerService {
  return new DataLayerService({
    store: stores.dataLayers,
    clock: { now: () => 1_000_000 },
    ids: cryptoIds,
    timing: timingPresets.fast,
    limits: defaultLimits,
    eventLoop: hostEventLoop,
  });
}

describe("data layer changes on one busy data layer (DLE-02, DEC-DLE-05)", () => {
  // The same test on the in-memory store: core/datalayer/datalayer.use-cases.test.ts.
  it("libsql: 150 updates at once are all recorded, each with a sequence number of its own", async () => {
    const stores = await libsqlStores();
    const service = serviceOn(stores);
    const key = { account: "acme", profile: "main", dlId: "hot" };
    expect((await service.upload(key, '{"n":0}')).ok).toBe(true);
    // Changes accepted together share a commit, and only one change of a data layer can win a commit: the
    // others decide again. Losing to another writer's progress is not a reason to give up.
    const results = await Promise.all(
      Array.from({ length: 150 }, (_, index) => service.update(key, `{"n":${index + 1}}`)),
    );
    expect(results.filter((result) => result.ok)).toHaveLength(150);
    expect((await stores.dataLayers.read(key))?.layer.lastSeq).toBe(151);
  });
});
