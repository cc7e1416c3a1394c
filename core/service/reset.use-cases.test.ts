import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import { applied, failedResetCases, resetServiceOn } from "../../testing/service/reset.ts";
import type { RequestAdmission, Stores } from "../ports/index.ts";
import { inFlightWaitMs, type ResetServiceDeps, settingsKeptByReset } from "./reset.use-cases.ts";

/**
 * The requests as the reset sees them (RequestGate in the adapters, whose own test runs these resets through
 * it): `answer()` says what a request arriving now gets, `alone` keeps how long each reset would wait for the
 * requests in flight.
 */
function recordingAdmission(): RequestAdmission & { answer(): "answered" | "refused"; readonly waits: number[] } {
  let refusing = false;
  const waits: number[] = [];
  return {
    waits,
    answer: () => (refusing ? "refused" : "answered"),
    async alone(waitMs, work) {
      waits.push(waitMs);
      return work();
    },
    refuseAll(refuse) {
      refusing = refuse;
    },
  };
}

function resetService(
  overrides: Partial<Omit<ResetServiceDeps, "requests">> & {
    stores: Stores;
    requests?: ReturnType<typeof recordingAdmission>;
  },
) {
  const { requests = recordingAdmission(), ...deps } = overrides;
  return resetServiceOn(requests, deps);
}

describe("ResetService (svc-hub's own admin API, POST /admin/reset)", () => {
  it("settles the events, holds the workers, erases, forgets and applies the configuration, then lets the workers go", async () => {
    const stores = createMemoryStores();
    await stores.settings.set("admin.token", "kept");
    await stores.settings.set("clock.offsetMs", "86400000");
    const { service, steps, requests } = resetService({ stores });
    const report = await service.reset();
    assert.deepEqual(steps, [
      "events settled",
      "workers held",
      "files erased",
      "memory forgotten",
      "configuration applied",
      "workers released",
    ]);
    assert.deepEqual(requests.waits, [inFlightWaitMs]);
    assert.deepEqual(report.configuration, applied);
    assert.equal(await stores.settings.get("admin.token"), "kept");
    assert.equal(await stores.settings.get("clock.offsetMs"), null);
    assert.ok(settingsKeptByReset.includes("admin.token"));
  });

  for (const [name, run] of Object.entries(failedResetCases)) {
    it(name, () => {
      const requests = recordingAdmission();
      return run({ stores: createMemoryStores(), requests, answer: () => requests.answer() });
    });
  }

  it("follow() forgets what this process keeps in memory when another process reset the store, once per reset", async () => {
    const stores = createMemoryStores();
    const { service: here, steps } = resetService({ stores });
    const { service: elsewhere } = resetService({ stores });
    await here.follow();
    await here.follow();
    assert.deepEqual(steps, []);
    await elsewhere.reset();
    await here.follow();
    await here.follow();
    assert.deepEqual(steps, ["memory forgotten"]);
  });
});
