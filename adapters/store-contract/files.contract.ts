/** The file status part of the store contract (FIL-*, DEC-FIL-03..06), run against every store implementation. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { FileStatusRecord, Stores } from "../../core/ports/index.ts";
import { sampleFileRecord } from "../../testing/fixtures.ts";

export function describeFileStatusStoreContract(name: string, open: () => Promise<Stores>): void {
  describe(`${name}: file status`, () => {
    let stores: Stores;
    beforeEach(async () => {
      stores = await open();
    });
    afterEach(async () => {
      await stores.close();
    });

    test("a created record is found by account, profile and name, as given", async () => {
      const created = sampleFileRecord({
        name: 'purchases_ünï "q".csv',
        file: { size: 12, checksum: "a".repeat(32), sourceType: "file", sourceHost: "h", lineCount: 3 },
      });
      expect(await stores.files.create(created)).toBe(true);
      expect(await stores.files.find("acme", "main", created.name)).toEqual(created);
      expect(await stores.files.find("acme", "dev", created.name)).toBeNull();
      expect(await stores.files.find("acme", "main", "purchases_other.csv")).toBeNull();
    });

    test("DEC-FIL-04: a second record of the same name in the same profile is refused and changes nothing", async () => {
      const first = sampleFileRecord({ name: "purchases_same.csv" });
      expect(await stores.files.create(first)).toBe(true);
      expect(await stores.files.create(sampleFileRecord({ name: "purchases_same.csv", nodeId: "node-b" }))).toBe(false);
      expect(await stores.files.find("acme", "main", "purchases_same.csv")).toEqual(first);
      expect(await stores.files.create(sampleFileRecord({ name: "purchases_same.csv", profile: "dev" }))).toBe(true);
    });

    test("update replaces the file, the status, finished and the progress", async () => {
      const created = sampleFileRecord();
      await stores.files.create(created);
      const updated: FileStatusRecord = {
        ...created,
        file: { ...created.file, size: 99, checksum: "b".repeat(32), lineCount: 4 },
        status: [
          { state: "DOWNLOADING", at: 1_000 },
          { state: "DOWNLOADED", at: 1_001 },
          { state: "PROCESSING", at: 1_002 },
          {
            state: "PROCESSED",
            at: 1_003,
            counts: { skipped: 1, failed: 1, succeeded: 1 },
            lastFailure: "Exception thrown while processing file",
          },
        ],
        finished: true,
        progress: {
          rowsRead: 3,
          counts: { skipped: 1, failed: 1, succeeded: 1 },
          lastRowFailure: "Exception thrown while processing file",
        },
      };
      await stores.files.update(updated);
      expect(await stores.files.find("acme", "main", created.name)).toEqual(updated);
    });

    test("list answers the profile's imports newest accepted first (then by id), up to the limit, whatever their prefix", async () => {
      const listedOnes = [
        sampleFileRecord({ createdAt: 2_000, id: "a".repeat(24) }),
        sampleFileRecord({ createdAt: 1_000, name: "orders_1.csv", prefix: "orders" }),
        sampleFileRecord({ createdAt: 3_000 }),
        sampleFileRecord({ createdAt: 2_000, id: "b".repeat(24), status: [{ state: "PROCESSING", at: 2_500 }] }),
      ];
      const others = [sampleFileRecord({ profile: "dev" }), sampleFileRecord({ account: "globex" })];
      for (const each of [...listedOnes, ...others]) expect(await stores.files.create(each)).toBe(true);
      const [first, second, third, fourth] = listedOnes as [
        FileStatusRecord,
        FileStatusRecord,
        FileStatusRecord,
        FileStatusRecord,
      ];
      expect(await stores.files.list("acme", "main", 10)).toEqual([third, fourth, first, second]);
      expect(await stores.files.list("acme", "main", 2)).toEqual([third, fourth]);
      expect(await stores.files.list("acme", "nobody", 10)).toEqual([]);
    });

    test("DEC-FIL-06: count and search match one prefix, created_at inclusive at both ends, oldest first", async () => {
      const inside = [
        sampleFileRecord({ createdAt: 2_000 }),
        sampleFileRecord({ createdAt: 1_000 }),
        sampleFileRecord({ createdAt: 3_000 }),
      ];
      const outside = [
        sampleFileRecord({ createdAt: 999 }),
        sampleFileRecord({ createdAt: 3_001 }),
        sampleFileRecord({ createdAt: 2_000, prefix: "purchases2" }),
        sampleFileRecord({ createdAt: 2_000, profile: "dev" }),
        sampleFileRecord({ createdAt: 2_000, account: "globex" }),
      ];
      for (const each of [...inside, ...outside]) expect(await stores.files.create(each)).toBe(true);
      expect(await stores.files.count("acme", "main", "purchases", 1_000, 3_000)).toBe(3);
      expect(
        (await stores.files.search("acme", "main", "purchases", 1_000, 3_000)).map((found) => found.createdAt),
      ).toEqual([1_000, 2_000, 3_000]);
      expect(await stores.files.count("acme", "main", "purchases", 2_000, 2_000)).toBe(1);
      expect(await stores.files.count("acme", "main", "purchase", 0, 10_000)).toBe(0);
      expect(await stores.files.search("acme", "main", "nothing", 0, 10_000)).toEqual([]);
    });

    test('DEC-FIL-06: a file of an unknown prefix holding "_" (recorded under the text before its first "_") is found by its whole prefix', async () => {
      const unknown = sampleFileRecord({ name: "web_orders_2024-03-01.csv", prefix: "web", createdAt: 2_000 });
      const others = [
        sampleFileRecord({ name: "web_returns_2024-03-01.csv", prefix: "web", createdAt: 2_000 }),
        sampleFileRecord({ name: "purchasesX_1.csv", prefix: "purchasesX", createdAt: 2_000 }),
        sampleFileRecord({ name: "purchases_1.csv", prefix: "purchases", createdAt: 2_000 }),
      ];
      for (const each of [unknown, ...others]) expect(await stores.files.create(each)).toBe(true);
      expect(await stores.files.count("acme", "main", "web_orders", 0, 10_000)).toBe(1);
      expect((await stores.files.search("acme", "main", "web_orders", 0, 10_000)).map((found) => found.name)).toEqual([
        unknown.name,
      ]);
      expect(await stores.files.count("acme", "main", "web", 0, 10_000)).toBe(2);
      expect(await stores.files.count("acme", "main", "web_orders_2024-03-01", 0, 10_000)).toBe(0);
      expect(await stores.files.count("acme", "main", "WEB_orders", 0, 10_000)).toBe(0);
      expect(await stores.files.count("acme", "main", "web_orders", 2_001, 10_000)).toBe(0);
      expect((await stores.files.search("acme", "main", "purchases", 0, 10_000)).map((found) => found.name)).toEqual([
        "purchases_1.csv",
      ]);
    });

    test("DEC-FIL-06: a file of a longer definition is not found by a shorter prefix, and a shorter definition's file is found by a longer prefix its name starts with", async () => {
      for (const each of [
        sampleFileRecord({ name: "sales_eu_1.csv", prefix: "sales_eu" }),
        sampleFileRecord({ name: "sales_us_1.csv", prefix: "sales" }),
      ]) {
        expect(await stores.files.create(each)).toBe(true);
      }
      expect((await stores.files.search("acme", "main", "sales", 0, 10_000)).map((found) => found.name)).toEqual([
        "sales_us_1.csv",
      ]);
      expect((await stores.files.search("acme", "main", "sales_eu", 0, 10_000)).map((found) => found.name)).toEqual([
        "sales_eu_1.csv",
      ]);
      expect((await stores.files.search("acme", "main", "sales_us", 0, 10_000)).map((found) => found.name)).toEqual([
        "sales_us_1.csv",
      ]);
    });

    test("replace puts a new import in the place of a finished one, once", async () => {
      const first = sampleFileRecord({ name: "purchases_again.csv" });
      await stores.files.create(first);
      const second = sampleFileRecord({ name: "purchases_again.csv", createdAt: 2_000 });
      expect(await stores.files.replace(first, second)).toBe(false);
      const finished = {
        ...first,
        finished: true,
        status: [{ state: "DOWNLOADING" as const, at: 1_000, lastFailure: "Failed to download (FTP, SFTP, S3) file" }],
      };
      await stores.files.update(finished);
      expect(await stores.files.replace(finished, second)).toBe(true);
      expect(await stores.files.find("acme", "main", "purchases_again.csv")).toEqual(second);
      expect(
        await stores.files.replace(finished, sampleFileRecord({ name: "purchases_again.csv", createdAt: 3_000 })),
      ).toBe(false);
      expect((await stores.files.find("acme", "main", "purchases_again.csv"))?.id).toBe(second.id);
    });

    test("unfinished lists the imports not yet finished, of every node, oldest first", async () => {
      const older = sampleFileRecord({ createdAt: 1 });
      const newer = sampleFileRecord({ createdAt: 2 });
      const done = sampleFileRecord({ createdAt: 0, finished: true });
      const elsewhere = sampleFileRecord({ createdAt: 3, nodeId: "node-b" });
      for (const each of [newer, done, elsewhere, older]) await stores.files.create(each);
      expect((await stores.files.unfinished()).map((found) => found.id)).toEqual([older.id, newer.id, elsewhere.id]);
      await stores.files.update({ ...older, finished: true });
      expect((await stores.files.unfinished()).map((found) => found.id)).toEqual([newer.id, elsewhere.id]);
      // A node that takes an import over records itself.
      await stores.files.update({ ...elsewhere, nodeId: "node-a" });
      expect((await stores.files.unfinished()).at(-1)?.nodeId).toBe("node-a");
    });
  });
}
