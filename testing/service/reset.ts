/**
 * The reset use case with its other steps only saying they ran, on whatever admits the requests: a recording
 * stand-in in the core (core/service/reset.use-cases.test.ts), svc-hub's RequestGate in the adapters
 * (adapters/runtime/request-gate.test.ts). The cases of a failed reset run on both.
 */
import assert from "node:assert/strict";
import type { RequestAdmission, Stores } from "../../core/ports/index.ts";
import { type ConfigurationApplied, ResetService, type ResetServiceDeps } from "../../core/service/index.ts";
import { countingIds, hostEventLoop, silentLogger } from "../fakes.ts";

export const applied: ConfigurationApplied = { accounts: 1, profiles: 1, users: 0, apiKeys: 0, revisions: 0 };

/** The reset of `stores` on `requests`; `steps` lists the steps it ran, in order. */
export function resetServiceOn<R extends RequestAdmission>(
  requests: R,
  overrides: Partial<Omit<ResetServiceDeps, "requests">> & { stores: Stores },
) {
  const steps: string[] = [];
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
    // Counts up, so that every reset writes an epoch of its own.
    ids: countingIds(),
    logger: silentLogger,
    eventLoop: hostEventLoop,
    ...overrides,
  });
  return { service, steps, requests };
}

/** What admits the requests, what a request arriving now gets from it, and a fresh store to reset. */
export interface Admission {
  readonly stores: Stores;
  readonly requests: RequestAdmission;
  answer(): Promise<"answered" | "refused"> | "answered" | "refused";
}

/** The cases of a reset that fails, each on a fresh admission. */
export const failedResetCases: Record<string, (admission: Admission) => Promise<void>> = {
  "a failure once the store is erased leaves every request refused (503) until a reset succeeds; never a half-reset service":
    async ({ stores, requests, answer }) => {
      let failing = true;
      const { service } = resetServiceOn(requests, {
        stores,
        applyConfiguration: async () => {
          if (failing) throw new Error("the store went away");
          return applied;
        },
      });
      await assert.rejects(service.reset(), { message: /the store went away/ });
      assert.equal(await answer(), "refused");
      failing = false;
      await service.reset();
      assert.equal(await answer(), "answered");
    },

  "a failure of the erasure itself leaves the service as it was, answering": async ({ stores, requests, answer }) => {
    await stores.tenancy.ensureAccount("acme", 0);
    const { service, steps } = resetServiceOn(requests, {
      stores: { ...stores, eraseAll: () => Promise.reject(new Error("SQLITE_BUSY: database is locked")) },
    });
    await assert.rejects(service.reset(), { message: /locked/ });
    assert.deepEqual(steps, ["events settled", "workers held", "workers released"]);
    assert.equal(await answer(), "answered");
    assert.notEqual(await stores.tenancy.findAccount("acme"), null);
  },
};
