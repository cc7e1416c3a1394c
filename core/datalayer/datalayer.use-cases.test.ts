import { describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import { manyUpdatesAtOnce } from "../../testing/datalayer/datalayer.ts";
import { hostEventLoop } from "../../testing/fakes.ts";
import type { IdSource } from "../ports/index.ts";

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

describe("data layer changes on one busy data layer (DLE-02, DEC-DLE-05)", () => {
  // The same test on the libSQL store: adapters/store-libsql/datalayer.use-cases.test.ts.
  it("memory: 150 updates at once are all recorded, each with a sequence number of its own", () =>
    // The host's monotonic time: the retry limit is real time, which this test never comes near.
    manyUpdatesAtOnce(createMemoryStores(), { ids: steppingIds(), eventLoop: hostEventLoop }));
});
