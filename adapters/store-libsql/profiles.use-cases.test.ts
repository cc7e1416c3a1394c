/**
 * The profile use cases on the libSQL store: what SQLite keeps otherwise than JavaScript, and two processes
 * sharing one database file. The rest of their tests run on the in-memory store, in the core
 * (core/profiles/profiles.use-cases.test.ts).
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Stores } from "../../core/ports/index.ts";
import { knownEmailId as email, seedProfile, visitorEvent } from "../../testing/fixtures.ts";
import { stitchingProfile as config, foldAll, foldingWorker } from "../../testing/profiles/profiles.ts";
import { createLease } from "../runtime/lease.ts";
import { openLibsqlStores } from "./libsql.stores.ts";

describe("visitor ID values the store keeps otherwise than JavaScript (VID-08)", () => {
  it("an e-mail with a lone surrogate joins the same group every time in the libSQL store", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-hub-profiles-surrogate-"));
    const stores = await openLibsqlStores({ url: `file:${join(dir, "profiles.db")}` });
    try {
      await seedProfile(stores, config);
      const worker = foldingWorker(stores, { lease: createLease(stores.settings, "profiles", "this-node", 15_000) });
      const send = async (visitorId: string, data: Record<string, unknown>) => {
        await stores.events.append([visitorEvent(visitorId, data)]);
        await foldAll(worker);
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
      await seedProfile(first, config);
      const workerOf = (stores: Stores, nodeId: string) =>
        foldingWorker(stores, { lease: createLease(stores.settings, "profiles", nodeId, 15_000), batchSize: 1 });
      const workers = [workerOf(first, "node-a"), workerOf(second, "node-b")];
      for (let i = 0; i < 6; i += 1) {
        await (i % 2 === 0 ? first : second).events.append([visitorEvent("shared-visitor", {}, 1_000 + i)]);
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
