/**
 * Erasing a visitor (the privacy use case, core/privacy/privacy.use-cases.ts) with the kept copies of imported
 * files on disk, through the eraser of adapters/fs: the group's rows leave the files, and a try that fails
 * half-way is finished by the next.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CollectedEvent, Stores } from "../../core/ports/index.ts";
import { eraseVisitor, type VisitorErasureDeps } from "../../core/privacy/index.ts";
import { deletionOf as deletion, knownEmailId, visitorEvent } from "../../testing/fixtures.ts";
import {
  annKnownId,
  annStitchedWithCustomer,
  customerKnownId,
  erasureProfile,
  purchasesByEmail,
  seedErasureScene,
} from "../../testing/privacy/privacy.ts";
import { createMemoryStores } from "../store-memory/memory.stores.ts";
import { importedFilesEraser } from "./imported-files.eraser.ts";
import { ReceivedFiles } from "./received-files.ts";

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** The kept copies of two imports: ann's rows among other visitors' (quoted, CRLF and LF line ends). */
const keptFiles = {
  "purchases_202501.csv":
    'email,amount\r\nbob@example.com,5\r\nann@example.com,7\r\n"ann@example.com",8\r\ncarol@example.com,9\r\n',
  "purchases_202502.csv": "email,amount\n ann@example.com ,3\nbob@example.com,4",
};
/** The same files without ann's rows: every other byte as it was. */
const withoutAnn = {
  "purchases_202501.csv": "email,amount\r\nbob@example.com,5\r\ncarol@example.com,9\r\n",
  "purchases_202502.csv": "email,amount\nbob@example.com,4",
};

/** An imported row's event, as the file import makes it: the known visitor of the row's visitor ID column. */
function importedRow(email: string, amount: number): CollectedEvent {
  const visitorId = knownEmailId(email);
  return {
    ...visitorEvent(visitorId, {
      svc_visitor_id: visitorId,
      email_address: email,
      amount,
      _source_file: "purchases_202501.csv",
    }),
    event: "purchase",
  };
}

/**
 * The review's scene: ann@example.com imported from purchases files (visitor ID column email, attribute
 * 5120), stitched with customer_id C-77 (attribute 5121) by collected events; bob and carol imported too.
 */
async function setUpScene(): Promise<{ stores: Stores; dataDir: string; folder: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-privacy-service-"));
  directories.push(dataDir);
  const folder = join(dataDir, "files", "acme", "main");
  mkdirSync(folder, { recursive: true });
  for (const [name, text] of Object.entries(keptFiles)) writeFileSync(join(folder, name), text);
  const stores = createMemoryStores();
  await seedErasureScene(stores, erasureProfile([purchasesByEmail]), [
    importedRow("bob@example.com", 5),
    importedRow("ann@example.com", 7),
    importedRow("ann@example.com", 8),
    importedRow("carol@example.com", 9),
    ...annStitchedWithCustomer(),
  ]);
  return { stores, dataDir, folder };
}

function readKept(folder: string): Record<string, string> {
  return Object.fromEntries(Object.keys(keptFiles).map((name) => [name, readFileSync(join(folder, name), "utf8")]));
}

/** What eraseVisitor works on: `stores`, and the kept files of `dataDir` erased through the same stores. */
function erasureOn(stores: Stores, dataDir: string): VisitorErasureDeps {
  return { stores, importedFiles: importedFilesEraser({ stores, files: new ReceivedFiles(dataDir) }) };
}

/** `stores` whose `area` fails its first call of `method`, as a storage error or a crash half-way through would. */
function failingOnce<K extends "events" | "files">(stores: Stores, area: K, method: keyof Stores[K] & string): Stores {
  let failed = false;
  const original = stores[area] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const wrapped = Object.assign(Object.create(stores[area]) as object, {
    [method]: (...args: unknown[]) => {
      if (failed) return original[method]!.apply(stores[area], args);
      failed = true;
      return Promise.reject(new Error(`${area}.${method}: storage error`));
    },
  });
  return { ...stores, [area]: wrapped };
}

describe("erasing a visitor's group with its imported rows (PRV-09, DEC-PRV-04)", () => {
  it("[PRV-09, DEC-PRV-04] deleting by customer_id C-77 removes ann's rows, imported by e-mail address, from every kept file; other visitors' rows stay byte for byte", async () => {
    const { stores, dataDir, folder } = await setUpScene();
    const counts = await eraseVisitor(erasureOn(stores, dataDir), deletion(5121, "C-77"));
    expect(readKept(folder)).toEqual(withoutAnn);
    expect(counts).toEqual({
      visitorIds: 3,
      events: 4,
      profiles: 1,
      eventsRewritten: 0,
      profilesRewritten: 0,
      importedFiles: 2,
      importedRows: 3,
      importsUnfinished: 0,
    });
    for (const id of [annKnownId, customerKnownId, "anon-1"])
      expect(await stores.profiles.canonicalOf("acme", "main", id)).toBeNull();
    expect(await stores.profiles.canonicalOf("acme", "main", "__acme_main__5120_bob@example.com__")).not.toBeNull();
    expect((await stores.events.query({ limit: 10 })).map((stored) => stored.visitorId).sort()).toEqual([
      "__acme_main__5120_bob@example.com__",
      "__acme_main__5120_carol@example.com__",
    ]);
  });

  it("[PRV-09, DEC-PRV-04] a try that fails while the kept files are rewritten leaves the group stored, so the next try finds ann's values again", async () => {
    const { stores, dataDir, folder } = await setUpScene();
    // The eraser asks for a file's import record only once it found rows to remove.
    await expect(
      eraseVisitor(erasureOn(failingOnce(stores, "files", "find"), dataDir), deletion(5121, "C-77")),
    ).rejects.toThrow("storage error");
    expect(readKept(folder)).toEqual(keptFiles);
    expect(await stores.profiles.canonicalOf("acme", "main", annKnownId)).not.toBeNull();
    expect((await stores.events.query({ visitorId: annKnownId, limit: 10 })).length).toBe(2);

    expect(await eraseVisitor(erasureOn(stores, dataDir), deletion(5121, "C-77"))).toMatchObject({
      visitorIds: 3,
      importedFiles: 2,
      importedRows: 3,
    });
    expect(readKept(folder)).toEqual(withoutAnn);
  });

  it("[PRV-09, DEC-PRV-04] a try that fails after the files were rewritten, before the group is deleted, is finished by the next try", async () => {
    const { stores, dataDir, folder } = await setUpScene();
    await expect(
      eraseVisitor(erasureOn(failingOnce(stores, "events", "deleteVisitors"), dataDir), deletion(5121, "C-77")),
    ).rejects.toThrow("storage error");
    expect(readKept(folder)).toEqual(withoutAnn);
    expect(await stores.profiles.canonicalOf("acme", "main", customerKnownId)).not.toBeNull();

    expect(await eraseVisitor(erasureOn(stores, dataDir), deletion(5121, "C-77"))).toEqual({
      visitorIds: 3,
      events: 4,
      profiles: 1,
      eventsRewritten: 0,
      profilesRewritten: 0,
      importedFiles: 0,
      importedRows: 0,
      importsUnfinished: 0,
    });
    expect(await stores.profiles.canonicalOf("acme", "main", annKnownId)).toBeNull();
    expect(readKept(folder)).toEqual(withoutAnn);
  });
});
