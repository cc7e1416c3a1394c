import { describe, expect, it } from "bun:test";
import type { Stores } from "../../core/ports/index.ts";
import { cryptoIds } from "../runtime/crypto.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import { RequestGate } from "../runtime/request-gate.ts";
import { createMemoryStores } from "../store-memory/memory.stores.ts";
import {
  type ConfigurationApplied,
  ResetService,
  type ResetServiceDeps,
  settingsKeptByReset,
} from "./reset.service.ts";

const applied: ConfigurationApplied = { accounts: 1, profiles: 1, users: 0, apiKeys: 0, revisions: 0 };
const request = () => Promise.resolve(new Response("answered"));
const refused = () => new Response(null, { status: 503, headers: { "retry-after": "1" } });

function resetService(overrides: Partial<ResetServiceDeps> & { stores: Stores }) {
  const steps: string[] = [];
  const requests = overrides.requests ?? new RequestGate();
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
    ids: cryptoIds,
    logger: createMemoryLogger(),
    ...overrides,
  });
  return { service, steps, requests };
}

describe("ResetService (svc-hub's own admin API, POST /admin/reset)", () => {
  it("settles the events, holds the workers, erases, forgets and applies the configuration, then lets the workers go", async () => {
    const stores = createMemoryStores();
    await stores.settings.set("admin.token", "kept");
    await stores.settings.set("clock.offsetMs", "86400000");
    const { service, steps } = resetService({ stores });
    const report = await service.reset();
    expect(steps).toEqual([
      "events settled",
      "workers held",
      "files erased",
      "memory forgotten",
      "configuration applied",
      "workers released",
    ]);
    expect(report.configuration).toEqual(applied);
    expect(await stores.settings.get("admin.token")).toBe("kept");
    expect(await stores.settings.get("clock.offsetMs")).toBeNull();
    expect(settingsKeptByReset).toContain("admin.token");
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
    await expect(service.reset()).rejects.toThrow("the store went away");
    const answer = await requests.pass(request, refused);
    expect([answer.status, answer.headers.get("retry-after")]).toEqual([503, "1"]);
    failing = false;
    await service.reset();
    expect((await requests.pass(request, refused)).status).toBe(200);
  });

  it("a failure of the erasure itself leaves the service as it was, answering", async () => {
    const stores = createMemoryStores();
    await stores.tenancy.ensureAccount("acme", 0);
    const { service, requests, steps } = resetService({
      stores: { ...stores, eraseAll: () => Promise.reject(new Error("SQLITE_BUSY: database is locked")) },
    });
    await expect(service.reset()).rejects.toThrow("locked");
    expect(steps).toEqual(["events settled", "workers held", "workers released"]);
    expect((await requests.pass(request, refused)).status).toBe(200);
    expect(await stores.tenancy.findAccount("acme")).not.toBeNull();
  });

  it("follow() forgets what this process keeps in memory when another process reset the store, once per reset", async () => {
    const stores = createMemoryStores();
    const { service: here, steps } = resetService({ stores });
    const { service: elsewhere } = resetService({ stores });
    await here.follow();
    await here.follow();
    expect(steps).toEqual([]);
    await elsewhere.reset();
    await here.follow();
    await here.follow();
    expect(steps).toEqual(["memory forgotten"]);
  });
});
