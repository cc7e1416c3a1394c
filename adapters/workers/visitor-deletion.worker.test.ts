import { describe, expect, it } from "bun:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProfileConfig } from "../../core/config/config.model.ts";
import type { CollectedEvent, Stores } from "../../core/ports/index.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import { eraseVisitor, privacyAuditRecord } from "../services/privacy.service.ts";
import { ProfilesService } from "../services/profiles.service.ts";
import { sampleTransaction } from "../store-contract/fixtures.ts";
import { createMemoryStores } from "../store-memory/memory.stores.ts";
import { profileWorker } from "./profile.worker.ts";
import { importWaitMs, visitorDeletionWorker } from "./visitor-deletion.worker.ts";

/** A data directory without kept import files: these tests are about the worker and the store. */
const noKeptFiles = join(tmpdir(), "svc-hub-no-kept-files");

const config: ProfileConfig = {
  name: "main",
  visitorIdAttributes: [{ id: 5120, name: "email_address", parameter: "email_address" }],
  attributes: [
    {
      id: 5201,
      name: "Lifetime event count",
      type: "number",
      pii: false,
      enrichments: [{ when: "any_event", conditions: [], action: { type: "increment", by: 1 } }],
    },
  ],
  audiences: [],
  engines: [],
  fileDefinitions: [],
};

async function storesWithProfile(): Promise<Stores> {
  const stores = createMemoryStores();
  await stores.tenancy.ensureAccount("acme", 0);
  await stores.tenancy.putProfile("acme", config, 0);
  return stores;
}

function event(visitorId: string, data: Record<string, unknown> = {}, receivedAt = 1_000): CollectedEvent {
  return {
    account: "acme",
    profile: "main",
    visitorId,
    visitorIdSource: "visitor_id",
    thirdPartyVisitorId: null,
    firstPartyVisitorId: null,
    event: "view",
    datasource: null,
    traceId: null,
    receivedAt,
    data,
  };
}

async function request(stores: Stores, transaction = sampleTransaction()): Promise<void> {
  await stores.privacy.requestDeletion(
    transaction,
    privacyAuditRecord(transaction, "deletion-requested", transaction.createdAt, {}),
  );
}

function workersOf(stores: Stores) {
  const profiles = profileWorker({
    stores,
    profiles: new ProfilesService({ stores, policy: { visitTimeoutMs: 30 * 60_000 } }),
    logger: createMemoryLogger(),
  });
  const deletions = visitorDeletionWorker({
    store: stores.privacy,
    erase: (transaction) => eraseVisitor({ stores, dataDir: noKeptFiles, logger: createMemoryLogger() }, transaction),
    beforeErasing: async (now) => {
      while ((await profiles.runDue(now)) > 0);
    },
    logger: createMemoryLogger(),
  });
  return { profiles, deletions };
}

describe("the visitor deletion worker (PRV-09, PRV-10, DEC-PRV-04)", () => {
  it("runs nothing before the deletion is due, then erases the group and settles it SUCCESS", async () => {
    const stores = await storesWithProfile();
    const { profiles, deletions } = workersOf(stores);
    await stores.events.append([
      event("anon-1"),
      event("anon-1", { email_address: "ann@example.com" }),
      event("bob", { email_address: "bob@example.com" }),
    ]);
    while ((await profiles.runDue(2_000)) > 0);
    await request(stores);
    expect(await deletions.nextDueAt()).toBe(3_000);
    expect(await deletions.runDue(2_999)).toBe(0);
    expect(await stores.profiles.canonicalOf("acme", "main", "anon-1")).not.toBeNull();
    expect(await deletions.runDue(3_000)).toBe(1);
    expect(await stores.profiles.canonicalOf("acme", "main", "anon-1")).toBeNull();
    expect((await stores.events.query({ limit: 10 })).map((stored) => stored.visitorId)).toEqual(["bob"]);
    expect(await stores.privacy.find("acme", "main", "t1")).toMatchObject({
      state: "SUCCESS",
      settledAt: 3_000,
      value: null,
    });
    expect(await deletions.nextDueAt()).toBeNull();
  });

  it("applies events the profile worker has not reached before erasing, so a visitor they stitch is erased too", async () => {
    const stores = await storesWithProfile();
    const { profiles, deletions } = workersOf(stores);
    await stores.events.append([event("anon-1", { email_address: "ann@example.com" })]);
    while ((await profiles.runDue(2_000)) > 0);
    // Stored, not yet applied: they stitch anon-2 into ann's group.
    await stores.events.append([event("anon-2"), event("anon-2", { email_address: "ann@example.com" })]);
    await request(stores);
    expect(await deletions.runDue(3_000)).toBe(1);
    expect(await stores.events.query({ limit: 10 })).toEqual([]);
    expect(await stores.profiles.canonicalOf("acme", "main", "anon-2")).toBeNull();
  });

  it("deleting a visitor nobody knows ends SUCCESS, having removed nothing", async () => {
    const stores = await storesWithProfile();
    const { deletions } = workersOf(stores);
    await stores.events.append([event("bob", { email_address: "bob@example.com" })]);
    await request(stores);
    expect(await deletions.runDue(3_000)).toBe(1);
    expect((await stores.privacy.auditOf("t1")).at(-1)).toMatchObject({
      action: "deletion-succeeded",
      detail: { visitorIds: 0, events: 0, profiles: 0 },
    });
    expect((await stores.events.query({ limit: 10 })).length).toBe(1);
  });

  it("two workers running the same deletion (a restart, a second node) settle it once, with one audit record", async () => {
    const stores = await storesWithProfile();
    const first = workersOf(stores).deletions;
    const second = workersOf(stores).deletions;
    await stores.events.append([event("anon-1", { email_address: "ann@example.com" })]);
    await request(stores);
    const settled = await Promise.all([first.runDue(3_000), second.runDue(3_000)]);
    expect(settled.reduce((sum, count) => sum + count, 0)).toBe(1);
    expect((await stores.privacy.auditOf("t1")).map((record) => record.action)).toEqual([
      "deletion-requested",
      "deletion-succeeded",
    ]);
  });

  it("erases nothing while another node may be applying events (mayRun false), and runs once it may", async () => {
    const stores = await storesWithProfile();
    let may = false;
    const worker = visitorDeletionWorker({
      store: stores.privacy,
      erase: (transaction) => eraseVisitor({ stores, dataDir: noKeptFiles, logger: createMemoryLogger() }, transaction),
      mayRun: async () => may,
      logger: createMemoryLogger(),
    });
    await request(stores);
    expect(await worker.runDue(3_000)).toBe(0);
    expect((await stores.privacy.find("acme", "main", "t1"))?.state).toBe("PENDING");
    may = true;
    expect(await worker.runDue(3_000)).toBe(1);
    expect((await stores.privacy.find("acme", "main", "t1"))?.state).toBe("SUCCESS");
  });

  it("waits, erasing nothing and counting no failure, while an import of the profile has not finished (another node's, or a dead holder's lease)", async () => {
    const stores = await storesWithProfile();
    const { deletions } = workersOf(stores);
    await stores.events.append([event("anon-1", { email_address: "ann@example.com" })]);
    const importing = {
      id: "0".repeat(24),
      account: "acme",
      profile: "main",
      name: "purchases_2.csv",
      prefix: "purchases",
      createdAt: 0,
      nodeId: "other-node",
      file: { size: 0, checksum: "", sourceType: "upload" as const, sourceHost: "host", lineCount: 0 },
      status: [{ state: "PROCESSING" as const, at: 0 }],
      finished: false,
      progress: null,
    };
    await stores.files.create(importing);
    await request(stores);
    expect(await deletions.runDue(3_000)).toBe(0);
    expect(await stores.privacy.find("acme", "main", "t1")).toMatchObject({
      state: "PENDING",
      attempts: 0,
      runAt: 3_000 + importWaitMs,
    });
    expect((await stores.events.query({ limit: 10 })).length).toBe(1);
    expect(await deletions.nextDueAt()).toBe(3_000 + importWaitMs);
    // The import ends (its rows would be events by then); the deletion runs at its next look.
    await stores.files.update({
      ...importing,
      status: [...importing.status, { state: "PROCESSED" as const, at: 4_000 }],
      finished: true,
    });
    expect(await deletions.runDue(3_000 + importWaitMs)).toBe(1);
    expect(await stores.privacy.find("acme", "main", "t1")).toMatchObject({ state: "SUCCESS" });
    expect(await stores.events.query({ limit: 10 })).toEqual([]);
  });

  it("a WAL checkpoint that could not finish is tried again at the next look", async () => {
    const stores = await storesWithProfile();
    const logger = createMemoryLogger();
    const answers = [false, true];
    const flushes: boolean[] = [];
    const store = Object.assign(Object.create(stores.privacy) as typeof stores.privacy, {
      async flushErasures() {
        const answer = answers.shift() ?? true;
        flushes.push(answer);
        return answer;
      },
    });
    const worker = visitorDeletionWorker({
      store,
      erase: (transaction) => eraseVisitor({ stores, dataDir: noKeptFiles, logger: createMemoryLogger() }, transaction),
      logger,
    });
    await request(stores);
    expect(await worker.runDue(3_000)).toBe(1);
    expect(await worker.runDue(3_001)).toBe(0);
    expect(await worker.runDue(3_002)).toBe(0);
    expect(flushes).toEqual([false, true]);
    expect(logger.lines.some((line) => String(line.msg ?? line.message).includes("checkpoint"))).toBe(true);
  });
});
