/**
 * The case of one busy data layer, run on every store: on the in-memory store in the core
 * (core/datalayer/datalayer.use-cases.test.ts), on the libSQL store in the adapters
 * (adapters/store-libsql/datalayer.use-cases.test.ts), each with the ids and event loop its host hands over.
 */
import assert from "node:assert/strict";
import { defaultLimits } from "../../core/config/index.ts";
import { DataLayerService } from "../../core/datalayer/index.ts";
import type { EventLoop, IdSource, Stores } from "../../core/ports/index.ts";
import { timingPresets } from "../../core/timing/index.ts";

/** 150 updates at once of one data layer of `stores` are all recorded, each with a sequence number of its own. */
export async function manyUpdatesAtOnce(stores: Stores, host: { ids: IdSource; eventLoop: EventLoop }): Promise<void> {
  const service = new DataLayerService({
    store: stores.dataLayers,
    clock: { now: () => 1_000_000 },
    ids: host.ids,
    timing: timingPresets.fast,
    limits: defaultLimits,
    eventLoop: host.eventLoop,
  });
  const key = { account: "acme", profile: "main", dlId: "hot" };
  assert.equal((await service.upload(key, '{"n":0}')).ok, true);
  // Changes accepted together share a commit, and only one change of a data layer can win a commit: the
  // others decide again. Losing to another writer's progress is not a reason to give up.
  const results = await Promise.all(
    Array.from({ length: 150 }, (_, index) => service.update(key, `{"n":${index + 1}}`)),
  );
  assert.equal(results.filter((result) => result.ok).length, 150);
  assert.equal((await stores.dataLayers.read(key))?.layer.lastSeq, 151);
}
