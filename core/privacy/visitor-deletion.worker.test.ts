import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import { recordingLogger } from "../../testing/fakes.ts";
import {
  emailIdAttribute,
  visitorEvent as event,
  eventCountAttribute,
  importInProgress,
  profileWith,
  sampleTransaction,
  seedProfile,
} from "../../testing/fixtures.ts";
import { foldAll, foldingWorker } from "../../testing/profiles/profiles.ts";
import type { ImportedFileEraser, Stores } from "../ports/index.ts";
import { eraseVisitor, privacyAuditRecord } from "./privacy.use-cases.ts";
import { importWaitMs, visitorDeletionWorker } from "./visitor-deletion.worker.ts";

/**
 * No kept copies of imported files: these tests are about the worker and the store (the eraser of the kept
 * files has its own tests, adapters/fs/imported-files.eraser.test.ts; with no file definitions it erases nothing).
 */
const noKeptFiles: ImportedFileEraser = {
  eraseVisitor: async () => ({ importedFiles: 0, importedRows: 0, importsUnfinished: 0 }),
};

const config = profileWith({ visitorIdAttributes: [emailIdAttribute], attributes: [eventCountAttribute] });

async function storesWithProfile(): Promise<Stores> {
  const stores = createMemoryStores();
  await seedProfile(stores, config);
  return stores;
}

async function request(stores: Stores, transaction = sampleTransaction()): Promise<void> {
  await stores.privacy.requestDeletion(
    transaction,
    privacyAuditRecord(transaction, "deletion-requested", transaction.createdAt, {}),
  );
}

function workersOf(stores: Stores) {
  const profiles = foldingWorker(stores);
  const deletions = visitorDeletionWorker({
    store: stores.privacy,
    erase: (transaction) => eraseVisitor({ stores, importedFiles: noKeptFiles }, transaction),
    beforeErasing: (now) => foldAll(profiles, now),
    logger: recordingLogger(),
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
    await foldAll(profiles, 2_000);
    await request(stores);
    assert.equal(await deletions.nextDueAt(), 3_000);
    assert.equal(await deletions.runDue(2_999), 0);
    assert.notEqual(await stores.profiles.canonicalOf("acme", "main", "anon-1"), null);
    assert.equal(await deletions.runDue(3_000), 1);
    assert.equal(await stores.profiles.canonicalOf("acme", "main", "anon-1"), null);
    assert.deepEqual(
      (await stores.events.query({ limit: 10 })).map((stored) => stored.visitorId),
      ["bob"],
    );
    const settled = await stores.privacy.find("acme", "main", "t1");
    assert.deepEqual(
      { state: settled?.state, settledAt: settled?.settledAt, value: settled?.value },
      { state: "SUCCESS", settledAt: 3_000, value: null },
    );
    assert.equal(await deletions.nextDueAt(), null);
  });

  it("applies events the profile worker has not reached before erasing, so a visitor they stitch is erased too", async () => {
    const stores = await storesWithProfile();
    const { profiles, deletions } = workersOf(stores);
    await stores.events.append([event("anon-1", { email_address: "ann@example.com" })]);
    await foldAll(profiles, 2_000);
    // Stored, not yet applied: they stitch anon-2 into ann's group.
    await stores.events.append([event("anon-2"), event("anon-2", { email_address: "ann@example.com" })]);
    await request(stores);
    assert.equal(await deletions.runDue(3_000), 1);
    assert.deepEqual(await stores.events.query({ limit: 10 }), []);
    assert.equal(await stores.profiles.canonicalOf("acme", "main", "anon-2"), null);
  });

  it("deleting a visitor nobody knows ends SUCCESS, having removed nothing", async () => {
    const stores = await storesWithProfile();
    const { deletions } = workersOf(stores);
    await stores.events.append([event("bob", { email_address: "bob@example.com" })]);
    await request(stores);
    assert.equal(await deletions.runDue(3_000), 1);
    const last = (await stores.privacy.auditOf("t1")).at(-1);
    assert.deepEqual(
      {
        action: last?.action,
        detail: { visitorIds: last?.detail.visitorIds, events: last?.detail.events, profiles: last?.detail.profiles },
      },
      { action: "deletion-succeeded", detail: { visitorIds: 0, events: 0, profiles: 0 } },
    );
    assert.equal((await stores.events.query({ limit: 10 })).length, 1);
  });

  it("two workers running the same deletion (a restart, a second node) settle it once, with one audit record", async () => {
    const stores = await storesWithProfile();
    const first = workersOf(stores).deletions;
    const second = workersOf(stores).deletions;
    await stores.events.append([event("anon-1", { email_address: "ann@example.com" })]);
    await request(stores);
    const settled = await Promise.all([first.runDue(3_000), second.runDue(3_000)]);
    assert.equal(
      settled.reduce((sum, count) => sum + count, 0),
      1,
    );
    assert.deepEqual(
      (await stores.privacy.auditOf("t1")).map((record) => record.action),
      ["deletion-requested", "deletion-succeeded"],
    );
  });

  it("erases nothing while another node may be applying events (mayRun false), and runs once it may", async () => {
    const stores = await storesWithProfile();
    let may = false;
    const worker = visitorDeletionWorker({
      store: stores.privacy,
      erase: (transaction) => eraseVisitor({ stores, importedFiles: noKeptFiles }, transaction),
      mayRun: async () => may,
      logger: recordingLogger(),
    });
    await request(stores);
    assert.equal(await worker.runDue(3_000), 0);
    assert.equal((await stores.privacy.find("acme", "main", "t1"))?.state, "PENDING");
    may = true;
    assert.equal(await worker.runDue(3_000), 1);
    assert.equal((await stores.privacy.find("acme", "main", "t1"))?.state, "SUCCESS");
  });

  it("waits, erasing nothing and counting no failure, while an import of the profile has not finished (another node's, or a dead holder's lease)", async () => {
    const stores = await storesWithProfile();
    const { deletions } = workersOf(stores);
    await stores.events.append([event("anon-1", { email_address: "ann@example.com" })]);
    const importing = importInProgress();
    await stores.files.create(importing);
    await request(stores);
    assert.equal(await deletions.runDue(3_000), 0);
    const waiting = await stores.privacy.find("acme", "main", "t1");
    assert.deepEqual(
      { state: waiting?.state, attempts: waiting?.attempts, runAt: waiting?.runAt },
      { state: "PENDING", attempts: 0, runAt: 3_000 + importWaitMs },
    );
    assert.equal((await stores.events.query({ limit: 10 })).length, 1);
    assert.equal(await deletions.nextDueAt(), 3_000 + importWaitMs);
    // The import ends (its rows would be events by then); the deletion runs at its next look.
    await stores.files.update({
      ...importing,
      status: [...importing.status, { state: "PROCESSED", at: 4_000 }],
      finished: true,
    });
    assert.equal(await deletions.runDue(3_000 + importWaitMs), 1);
    assert.equal((await stores.privacy.find("acme", "main", "t1"))?.state, "SUCCESS");
    assert.deepEqual(await stores.events.query({ limit: 10 }), []);
  });

  it("a WAL checkpoint that could not finish is tried again at the next look", async () => {
    const stores = await storesWithProfile();
    const logger = recordingLogger();
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
      erase: (transaction) => eraseVisitor({ stores, importedFiles: noKeptFiles }, transaction),
      logger,
    });
    await request(stores);
    assert.equal(await worker.runDue(3_000), 1);
    assert.equal(await worker.runDue(3_001), 0);
    assert.equal(await worker.runDue(3_002), 0);
    assert.deepEqual(flushes, [false, true]);
    assert.equal(
      logger.lines.some((line) => line.message.includes("checkpoint")),
      true,
    );
  });
});
