/**
 * Issue: "import the core into other hosts". A host made of the core and the in-memory store, with nothing of
 * Bun or Elysia, does what svc-hub does with a data layer and an event (DLE-01, DLE-03, COL-01, MOM-03). This file
 * runs under Deno (npm test's core-deno suite) and under Bun; tools/node-host.test.ts runs the same scenario
 * under Node from the packed package.
 */

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStores } from "../adapters/store-memory/memory.stores.ts";
import { hostEventLoop } from "../testing/fakes.ts";
import { expectedHostReport, runHostScenario } from "../testing/host.ts";
import * as core from "./index.ts";

describe("a host of the core and the in-memory store", () => {
  it("uploads and publishes a data layer, collects an event and reads the visitor back", async () => {
    const report = await runHostScenario({
      core,
      createStores: () => createMemoryStores(),
      eventLoop: hostEventLoop,
    });
    assert.deepEqual(report, expectedHostReport);
  });
});
