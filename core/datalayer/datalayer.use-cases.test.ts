import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import { defaultLimits } from "../config/config.model.ts";
import type { EventLoop, IdSource, Stores } from "../ports/index.ts";
import { timingPresets } from "../timing/timing.presets.ts";
import { DataLayerService } from "./datalayer.use-cases.ts";

/** The host's monotonic time: the retry limit is real time, which this test never comes near. */
const eventLoop: EventLoop = {
  monotonicMs: () => performance.now(),
  nextTurn: () => new Promise((resolve) => setTimeout(resolve, 0)),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** Delays drawn in turn across their range; nothing here reads ids. */
function steppingIds(): IdSource {
  let draws = 0;
  return {
    randomHex: (bytes) => "0".repeat(bytes * 2),
    randomToken: (bytes) => "A".repeat(Math.ceil((bytes * 4) / 3)),
    randomUnit: () => {
      draws += 1;
      return (draws % 100) / 100;
    },
  };
}

function serviceOn(stores: Stores): DataLayerService {
  return new DataLayerService({
    store: stores.dataLayers,
    clock: { now: () => 1_000_000 },
    ids: steppingIds(),
    timing: timingPresets.fast,
    limits: defaultLimits,
    eventLoop,
  });
}

describe("data layer changes on one busy data layer (DLE-02, DEC-DLE-05)", () => {
  // The same test on the libSQL store: adapters/store-libsql/datalayer.use-cases.test.ts.
  it("memory: 150 updates at once are all recorded, each with a sequence number of its own", async () => {
    const stores = createMemoryStores();
    const service = serviceOn(stores);
    const key = { account: "acme", profile: "main", dlId: "hot" };
    assert.equal((await service.upload(key, '{"n":0}')).ok, true);
    // Changes accepted together share a commit, and only one change of a data layer can win a commit: the
    // others decide again. Losing to another writer's progress is not a reason to give up.
    const results = await Promise.all(
      Array.from({ length: 150 }, (_, index) => service.update(key, `{"n":${index + 1}}`)),
    );
    assert.equal(results.filter((result) => result.ok).length, 150);
    assert.equal((await stores.dataLayers.read(key))?.layer.lastSeq, 151);
  });
});
