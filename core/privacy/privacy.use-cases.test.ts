import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import type { ProfileConfig } from "../config/config.model.ts";
import type {
  CollectedEvent,
  EventLoop,
  ImportedFileEraser,
  Lease,
  Logger,
  PrivacyTransaction,
  Stores,
} from "../ports/index.ts";
import { profileWorker } from "../profiles/profile-folding.worker.ts";
import { ProfilesService } from "../profiles/profiles.use-cases.ts";
import type { VisitorLookup } from "./privacy.rules.ts";
import { eraseVisitor, ImportsStillRunning } from "./privacy.use-cases.ts";

/*
 * What erasing a visitor asks of the eraser of the kept imported files. The eraser itself, on files on disk,
 * has its tests in adapters/fs (imported-files.eraser.test.ts, and privacy.use-cases.test.ts for the two
 * together).
 */

const config: ProfileConfig = {
  name: "main",
  visitorIdAttributes: [
    { id: 5120, name: "email_address", parameter: "email_address" },
    { id: 5121, name: "customer_id", parameter: "customer_id" },
  ],
  attributes: [],
  audiences: [],
  engines: [],
  fileDefinitions: [],
};

const annKnownId = "__acme_main__5120_ann@example.com__";
const customerKnownId = "__acme_main__5121_C-77__";

/** The host's event loop, as the composition root hands it over (performance.now, setImmediate, setTimeout). */
const eventLoop: EventLoop = {
  monotonicMs: () => performance.now(),
  nextTurn: () => new Promise((resolve) => setImmediate(resolve)),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** The profiles lease of a node alone on its store: it always holds it. */
const soleHolder: Lease = {
  acquire: async () => true,
  release: async () => undefined,
  end: async () => undefined,
};

const silent: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

function event(visitorId: string, data: Record<string, unknown>): CollectedEvent {
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
    receivedAt: 1_000,
    data,
  };
}

function deletion(attributeId: number, value: string): PrivacyTransaction {
  return {
    id: "t1",
    account: "acme",
    profile: "main",
    kind: "delete",
    attributeId,
    valueHash: "h",
    value,
    state: "PENDING",
    requestedBy: "demo@example.com",
    createdAt: 0,
    runAt: 0,
    attempts: 0,
    settledAt: null,
  };
}

/** ann@example.com (attribute 5120), stitched with customer_id C-77 (attribute 5121) by anon-1's events; bob apart. */
async function setUpScene(): Promise<Stores> {
  const stores = createMemoryStores();
  await stores.tenancy.ensureAccount("acme", 0);
  await stores.tenancy.putProfile("acme", config, 0);
  await stores.events.append([
    event("anon-1", { email_address: "ann@example.com" }),
    event("anon-1", { customer_id: "C-77" }),
    event("bob", { email_address: "bob@example.com" }),
  ]);
  const profiles = profileWorker({
    stores,
    profiles: new ProfilesService({ stores, policy: { visitTimeoutMs: 30 * 60_000 }, eventLoop }),
    logger: silent,
    lease: soleHolder,
  });
  while ((await profiles.runDue(1_000)) > 0);
  assert.equal(await stores.profiles.canonicalOf("acme", "main", customerKnownId), annKnownId);
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
    await stores.files.create({
      id: "0".repeat(24),
      account: "acme",
      profile: "main",
      name: "purchases_2.csv",
      prefix: "purchases",
      createdAt: 0,
      nodeId: "other-node",
      file: { size: 0, checksum: "", sourceType: "upload", sourceHost: "host", lineCount: 0 },
      status: [{ state: "PROCESSING", at: 0 }],
      finished: false,
      progress: null,
    });
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
