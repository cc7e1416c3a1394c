/**
 * The profile use cases on the libSQL store: what SQLite keeps otherwise than JavaScript, and two processes
 * sharing one database file. The rest of their tests run on the in-memory store, in the core
 * (core/profiles/profiles.use-cases.test.ts).
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProfileConfig } from "../../core/config/config.model.ts";
import type { Stores } from "../../core/ports/index.ts";
import { profilePolicyFromLimits } from "../../core/profiles/profile.rules.ts";
import { profileWorker } from "../../core/profiles/profile-folding.worker.ts";
import { ProfilesService } from "../../core/profiles/profiles.use-cases.ts";
import { hostEventLoop } from "../runtime/event-loop.ts";
import { createLease } from "../runtime/lease.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import { openLibsqlStores } from "./libsql.stores.ts";

const config: ProfileConfig = {
  name: "main",
  visitorIdAttributes: [
    { id: 5120, name: "email_address", parameter: "email_address" },
    { id: 5121, name: "customer_id", parameter: "customer_id" },
  ],
  attributes: [
    {
      id: 5201,
      name: "Events",
      type: "number",
      pii: false,
      enrichments: [{ when: "any_event", conditions: [], action: { type: "increment", by: 1 } }],
    },
  ],
  audiences: [],
  engines: [],
  fileDefinitions: [],
};
const policy = profilePolicyFromLimits({ visitTimeoutMinutes: 30 });
const email = (value: string) => `__acme_main__5120_${value}__`;

describe("visitor ID values the store keeps otherwise than JavaScript (VID-08)", () => {
  it("an e-mail with a lone surrogate joins the same group every time in the libSQL store", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-hub-profiles-surrogate-"));
    const stores = await openLibsqlStores({ url: `file:${join(dir, "profiles.db")}` });
    try {
      await stores.tenancy.ensureAccount("acme", 0);
      await stores.tenancy.putProfile("acme", config, 0);
      const worker = profileWorker({
        stores,
        profiles: new ProfilesService({ stores, policy, eventLoop: hostEventLoop }),
        logger: createMemoryLogger(),
        lease: createLease(stores.settings, "profiles", "this-node", 15_000),
      });
      const send = async (visitorId: string, data: Record<string, unknown>) => {
        await stores.events.append([
          {
            account: "acme",
            profile: "main",
            visitorId,
            visitorIdSource: "visitor_id",
            thirdPartyVisitorId: null,
            firstPartyVisitorId: null,
            event: "view",
            datasource: null,
            traceId: null,
            receivedAt: 1_000,
            data,
          },
        ]);
        while ((await worker.runDue(0)) > 0);
      };
      await send("ls-a", { email_address: "lone\ud800@x.com" });
      await send("ls-a", {});
      await send("ls-z", { email_address: "lone\ud800@x.com" });
      for (const member of ["ls-a", "ls-z", email("lone\ufffd@x.com")]) {
        expect((await stores.profiles.findByMember("acme", "main", member))?.data.eventCount).toBe(3);
      }
    } finally {
      await stores.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("profiles with two processes on one database", () => {
  it("two nodes working at once apply every event exactly once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-hub-profiles-two-"));
    const url = `file:${join(dir, "shared.db")}`;
    const first = await openLibsqlStores({ url });
    const second = await openLibsqlStores({ url });
    try {
      await first.tenancy.ensureAccount("acme", 0);
      await first.tenancy.putProfile("acme", config, 0);
      const workerOf = (stores: Stores, nodeId: string) =>
        profileWorker({
          stores,
          profiles: new ProfilesService({ stores, policy, eventLoop: hostEventLoop }),
          logger: createMemoryLogger(),
          lease: createLease(stores.settings, "profiles", nodeId, 15_000),
          batchSize: 1,
        });
      const workers = [workerOf(first, "node-a"), workerOf(second, "node-b")];
      for (let i = 0; i < 6; i += 1) {
        await (i % 2 === 0 ? first : second).events.append([
          {
            account: "acme",
            profile: "main",
            visitorId: "shared-visitor",
            visitorIdSource: "visitor_id",
            thirdPartyVisitorId: null,
            firstPartyVisitorId: null,
            event: "view",
            datasource: null,
            traceId: null,
            receivedAt: 1_000 + i,
            data: {},
          },
        ]);
      }
      // Both nodes try to work at the same time, batch after batch.
      for (let round = 0; round < 10; round += 1) await Promise.all(workers.map((worker) => worker.runDue(0)));
      const canonical = await second.profiles.canonicalOf("acme", "main", "shared-visitor");
      expect((await second.profiles.find("acme", "main", canonical as string))?.eventCount).toBe(6);
    } finally {
      await first.close();
      await second.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
