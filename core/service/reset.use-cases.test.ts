import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import type { EventLoop, IdSource, Logger, RequestAdmission, Stores } from "../ports/index.ts";
import {
  type ConfigurationApplied,
  inFlightWaitMs,
  ResetService,
  type ResetServiceDeps,
  settingsKeptByReset,
} from "./reset.use-cases.ts";

const applied: ConfigurationApplied = { accounts: 1, profiles: 1, users: 0, apiKeys: 0, revisions: 0 };

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

const silentLogger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Counts up, so that every reset writes an epoch of its own. */
function countingIds(): IdSource {
  let count = 0;
  const next = () => {
    count += 1;
    return count;
  };
  return {
    randomHex: (bytes) =>
      next()
        .toString(16)
        .padStart(bytes * 2, "0"),
    randomToken: (bytes) => next().toString(36).padStart(bytes, "0"),
    randomUnit: () => 0.5,
  };
}

const eventLoop: EventLoop = {
  monotonicMs: () => performance.now(),
  nextTurn: () => new Promise((resolve) => setTimeout(resolve, 0)),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

function resetService(
  overrides: Partial<Omit<ResetServiceDeps, "requests">> & {
    stores: Stores;
    requests?: ReturnType<typeof recordingAdmission>;
  },
) {
  const steps: string[] = [];
  const requests = overrides.requests ?? recordingAdmission();
  const service = new ResetService({
    requests,
    holdWorkers: async () => {
      steps.push("workers held");
      return async () => void steps.push("workers released");
    },
    eventsSettled: async () => void steps.push("events settled"),
    forgetInMemory: async () => void steps.push("memory forgotten"),
    eraseFiles: async () => {
      steps.push("files erased");
      return { received: 0, dropped: 0 };
    },
    applyConfiguration: async () => {
      await overrides.stores.tenancy.ensureAccount("acme", 0);
      steps.push("configuration applied");
      return applied;
    },
    ids: countingIds(),
    logger: silentLogger,
    eventLoop,
    ...overrides,
  });
  return { service, steps, requests };
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

  it("a failure once the store is erased leaves every request refused (503) until a reset succeeds; never a half-reset service", async () => {
    const stores = createMemoryStores();
    let failing = true;
    const { service, requests } = resetService({
      stores,
      applyConfiguration: async () => {
        if (failing) throw new Error("the store went away");
        return applied;
      },
    });
    await assert.rejects(service.reset(), { message: /the store went away/ });
    assert.equal(requests.answer(), "refused");
    failing = false;
    await service.reset();
    assert.equal(requests.answer(), "answered");
  });

  it("a failure of the erasure itself leaves the service as it was, answering", async () => {
    const stores = createMemoryStores();
    await stores.tenancy.ensureAccount("acme", 0);
    const { service, requests, steps } = resetService({
      stores: { ...stores, eraseAll: () => Promise.reject(new Error("SQLITE_BUSY: database is locked")) },
    });
    await assert.rejects(service.reset(), { message: /locked/ });
    assert.deepEqual(steps, ["events settled", "workers held", "workers released"]);
    assert.equal(requests.answer(), "answered");
    assert.notEqual(await stores.tenancy.findAccount("acme"), null);
  });

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
