import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import { countingIds, storesRefusingNul, webDigests } from "../../testing/fakes.ts";
import { deletionOf as deletion, importInProgress, visitorEvent } from "../../testing/fixtures.ts";
import {
  annKnownId,
  annStitchedWithCustomer,
  customerKnownId,
  erasureProfile,
  seedErasureScene,
} from "../../testing/privacy/privacy.ts";
import { defaultLimits } from "../config/config.model.ts";
import type { ImportedFileEraser, Stores } from "../ports/index.ts";
import { profilePolicyFromLimits } from "../profiles/profile.rules.ts";
import { timingPresets } from "../timing/timing.presets.ts";
import type { VisitorLookup } from "./privacy.rules.ts";
import { eraseVisitor, ImportsStillRunning, PrivacyService } from "./privacy.use-cases.ts";

/*
 * What erasing a visitor asks of the eraser of the kept imported files. The eraser itself, on files on disk,
 * has its tests in adapters/fs (imported-files.eraser.test.ts, and privacy.use-cases.test.ts for the two
 * together).
 */

/** ann@example.com (attribute 5120), stitched with customer_id C-77 (attribute 5121) by anon-1's events; bob apart. */
async function setUpScene(): Promise<Stores> {
  const stores = createMemoryStores();
  await seedErasureScene(stores, erasureProfile(), [
    ...annStitchedWithCustomer(),
    visitorEvent("bob", { email_address: "bob@example.com" }),
  ]);
  return stores;
}

/** An eraser that answers `counts` and records what it was handed, and whether ann's group was still stored. */
function recordingEraser(stores: Stores) {
  const calls: Array<{ transaction: string; visitorIds: VisitorLookup[]; groupStored: boolean }> = [];
  const eraser: ImportedFileEraser = {
    async eraseVisitor(transaction, visitorIds) {
      const groupStored = (await stores.profiles.canonicalOf("acme", "main", annKnownId)) !== null;
      calls.push({ transaction: transaction.id, visitorIds: [...visitorIds], groupStored });
      return { importedFiles: 2, importedRows: 3, importsUnfinished: 0 };
    },
  };
  return { eraser, calls };
}

describe("erasing a visitor's group and its imported rows (PRV-09, DEC-PRV-04)", () => {
  it("[PRV-09, DEC-PRV-04] hands the eraser every visitor ID value of the group while it is still stored, and counts what it removed", async () => {
    const stores = await setUpScene();
    const { eraser, calls } = recordingEraser(stores);
    const counts = await eraseVisitor({ stores, importedFiles: eraser }, deletion(5121, "C-77"));
    assert.equal(calls.length, 1);
    assert.equal(calls[0]?.transaction, "t1");
    assert.equal(calls[0]?.groupStored, true);
    assert.deepEqual(
      calls[0]?.visitorIds.toSorted((a, b) => a.attributeId - b.attributeId),
      [
        { attributeId: 5120, value: "ann@example.com" },
        { attributeId: 5121, value: "C-77" },
      ],
    );
    assert.deepEqual(counts, {
      visitorIds: 3,
      events: 2,
      profiles: 1,
      eventsRewritten: 0,
      profilesRewritten: 0,
      importedFiles: 2,
      importedRows: 3,
      importsUnfinished: 0,
    });
    assert.equal(await stores.profiles.canonicalOf("acme", "main", annKnownId), null);
    assert.deepEqual(
      (await stores.events.query({ limit: 10 })).map((stored) => stored.visitorId),
      ["bob"],
    );
  });

  it("[PRV-09] erases nothing, the kept files included, while an import of the profile has not finished", async () => {
    const stores = await setUpScene();
    const { eraser, calls } = recordingEraser(stores);
    await stores.files.create(importInProgress());
    await assert.rejects(eraseVisitor({ stores, importedFiles: eraser }, deletion(5121, "C-77")), (error) => {
      assert.ok(error instanceof ImportsStillRunning);
      assert.deepEqual(error.files, ["purchases_2.csv"]);
      return true;
    });
    assert.deepEqual(calls, []);
    assert.equal(await stores.profiles.canonicalOf("acme", "main", customerKnownId), annKnownId);
    assert.equal((await stores.events.query({ limit: 10 })).length, 3);
  });
});

describe("values and names holding U+0000, which no store keeps (second probe, finding 4)", () => {
  async function privacyService() {
    const stores = storesRefusingNul(createMemoryStores());
    await seedErasureScene(stores, erasureProfile(), annStitchedWithCustomer());
    const privacy = new PrivacyService({
      stores,
      clock: { now: () => Date.UTC(2026, 0, 1) },
      ids: countingIds(),
      digests: webDigests,
      timing: timingPresets.fast,
      policy: profilePolicyFromLimits(defaultLimits),
    });
    return { stores, privacy };
  }
  const request = { account: "acme", profile: "main", attributeId: "5120", requestedBy: "ann@example.com" } as const;

  it("[DEC-PRV-01, DEC-PRV-03] a lookup by one finds no visitor: 404 1404 with its transaction, the value not looked up", async () => {
    const { stores, privacy } = await privacyService();
    const found = await privacy.getVisitor({
      ...request,
      attributeValue: "ann@example.com\u0000x",
      prettyName: undefined,
    });
    assert.equal(found.ok ? 200 : found.error.returnCode, 1404);
    assert.match(String(!found.ok && found.error.extra?.transaction_id), /^[0-9a-f]+$/);
    assert.deepEqual(stores.asked, []);
    // The value without what follows the NUL is ann, whom a store reading the text cut short would have found.
    assert.equal(
      (await privacy.getVisitor({ ...request, attributeValue: "ann@example.com", prettyName: undefined })).ok,
      true,
    );
  });

  it("[DEC-PRV-02] a deletion of one is 400 1400: a pending deletion keeps its value, which no store keeps", async () => {
    const { stores, privacy } = await privacyService();
    const refused = await privacy.requestDeletion({ ...request, attributeValue: "ann@example.com\u0000x" });
    assert.equal(refused.ok ? 202 : refused.error.returnCode, 1400);
    assert.deepEqual(await stores.privacy.list("acme", "main", 10), []);
    assert.deepEqual(stores.asked, []);
  });

  it("[DEC-PRV-03] a transaction id or a profile holding one is not found, and no store is asked", async () => {
    const { stores, privacy } = await privacyService();
    const transaction = await privacy.transactionState("acme", "main", "0123456789abcdef\u0000");
    assert.equal(transaction.ok ? 200 : transaction.error.returnCode, 1404);
    const profile = await privacy.getVisitor({
      ...request,
      profile: "main\u0000",
      attributeValue: "ann@example.com",
      prettyName: undefined,
    });
    assert.equal(profile.ok ? 200 : profile.error.returnCode, 1250);
    assert.deepEqual(stores.asked, []);
  });
});

describe("a visitor kept before the limit in bytes of visitor IDs (DEC-PRV-05)", () => {
  it("[DEC-PRV-01] a value of 1,024 CJK characters (3,072 bytes) is still looked up, and its visitor found", async () => {
    const stores = createMemoryStores();
    await seedErasureScene(stores, erasureProfile(), annStitchedWithCustomer());
    // Collection and import now refuse such a value (over 2,048 bytes); a libSQL file may hold one from before.
    const kept = "名".repeat(1024);
    const canonicalOf = stores.profiles.canonicalOf.bind(stores.profiles);
    const lookedUp: string[] = [];
    stores.profiles.canonicalOf = async (account, profile, knownId) => {
      lookedUp.push(knownId);
      return knownId.includes(kept) ? annKnownId : canonicalOf(account, profile, knownId);
    };
    const privacy = new PrivacyService({
      stores,
      clock: { now: () => Date.UTC(2026, 0, 1) },
      ids: countingIds(),
      digests: webDigests,
      timing: timingPresets.fast,
      policy: profilePolicyFromLimits(defaultLimits),
    });
    const found = await privacy.getVisitor({
      account: "acme",
      profile: "main",
      attributeId: "5120",
      attributeValue: kept,
      requestedBy: "ann@example.com",
      prettyName: undefined,
    });
    assert.equal(found.ok, true);
    assert.equal(lookedUp.length, 1);
  });
});
