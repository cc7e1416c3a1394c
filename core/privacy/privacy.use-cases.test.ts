import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import { deletionOf as deletion, importInProgress, visitorEvent } from "../../testing/fixtures.ts";
import {
  annKnownId,
  annStitchedWithCustomer,
  customerKnownId,
  erasureProfile,
  seedErasureScene,
} from "../../testing/privacy/privacy.ts";
import type { ImportedFileEraser, Stores } from "../ports/index.ts";
import type { VisitorLookup } from "./privacy.rules.ts";
import { eraseVisitor, ImportsStillRunning } from "./privacy.use-cases.ts";

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
