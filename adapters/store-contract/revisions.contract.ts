/** The revisions part of the store contract (REV-*, DEC-REV-*), run against every store implementation. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { NewRevision, Stores } from "../../core/ports/index.ts";
import type { RevisionDetails } from "../../core/revisions/index.ts";
import { fullProfileConfig } from "../../testing/fixtures.ts";

function details(revisionId: string, targets: string[], profile = "main"): RevisionDetails {
  return {
    revision_id: revisionId,
    account: "acme",
    profile,
    name: `Release ${revisionId}`,
    time_created: "Wed 2017.12.13 19:54 GMT",
    checksums: Object.fromEntries(
      targets.map((target) => [
        target,
        { "manifest.json": "a".repeat(64), "bundle.zip": "b".repeat(64), "utag.js": "c".repeat(64) },
      ]),
    ),
    comment: 'ünïcödé and "quotes"',
    created_by: "user@example.com",
    targets_published: targets,
  };
}

function revision(revisionId: string, targets: string[], overrides: Partial<NewRevision> = {}): NewRevision {
  return {
    account: "acme",
    profile: "main",
    revisionId,
    createdAt: 1_000,
    seed: null,
    details: details(revisionId, targets, overrides.profile),
    // Every byte value, so that no store may treat the bundle as text.
    bundle: Uint8Array.from({ length: 512 }, (_, index) => index % 256),
    ...overrides,
  };
}

export function describeRevisionStoreContract(name: string, open: () => Promise<Stores>): void {
  describe(`${name}: revisions`, () => {
    let stores: Stores;
    beforeEach(async () => {
      stores = await open();
      await stores.tenancy.ensureAccount("acme", 0);
      await stores.tenancy.putProfile("acme", fullProfileConfig("main"), 0);
      await stores.tenancy.putProfile("acme", fullProfileConfig("dev"), 0);
    });
    afterEach(async () => {
      await stores.close();
    });

    test("a stored revision is found with its details as given, and its bundle byte for byte", async () => {
      const stored = revision("201712131954", ["prod", "qa"], { seed: "config:abc", createdAt: 1234 });
      expect(await stores.revisions.insert(stored)).toBe(true);
      const { bundle, ...rest } = stored;
      expect(await stores.revisions.find("acme", "main", "201712131954")).toEqual(rest);
      expect(Object.keys((await stores.revisions.find("acme", "main", "201712131954"))!.details)).toEqual(
        Object.keys(stored.details),
      );
      expect(await stores.revisions.readBundle("acme", "main", "201712131954")).toEqual(bundle);
      expect(await stores.revisions.findBySeed("acme", "main", "config:abc")).toEqual(rest);
    });

    test("unknown ids, seeds and profiles find nothing", async () => {
      await stores.revisions.insert(revision("201712131954", ["prod"]));
      expect(await stores.revisions.find("acme", "main", "201712131955")).toBeNull();
      expect(await stores.revisions.find("acme", "dev", "201712131954")).toBeNull();
      expect(await stores.revisions.readBundle("acme", "dev", "201712131954")).toBeNull();
      expect(await stores.revisions.findBySeed("acme", "main", "config:none")).toBeNull();
      expect(await stores.revisions.listIds("acme", "dev")).toEqual([]);
      expect(await stores.revisions.latestForTarget("acme", "main", "qa")).toBeNull();
    });

    test("ids are listed newest first, per profile", async () => {
      for (const id of ["201712131954", "202501021953", "201612131954"])
        await stores.revisions.insert(revision(id, ["prod"]));
      await stores.revisions.insert(revision("209901010000", ["prod"], { profile: "dev" }));
      expect(await stores.revisions.listIds("acme", "main")).toEqual(["202501021953", "201712131954", "201612131954"]);
      expect(await stores.revisions.listIds("acme", "dev")).toEqual(["209901010000"]);
    });

    test("an id taken in the profile is refused and changes nothing; the same id in another profile is fine", async () => {
      expect(await stores.revisions.insert(revision("201712131954", ["prod"]))).toBe(true);
      expect(await stores.revisions.insert(revision("201712131954", ["qa"], { bundle: new Uint8Array([1]) }))).toBe(
        false,
      );
      expect((await stores.revisions.find("acme", "main", "201712131954"))!.details.targets_published).toEqual([
        "prod",
      ]);
      expect(await stores.revisions.latestForTarget("acme", "main", "qa")).toBeNull();
      expect((await stores.revisions.readBundle("acme", "main", "201712131954"))!.byteLength).toBe(512);
      expect(await stores.revisions.insert(revision("201712131954", ["prod"], { profile: "dev" }))).toBe(true);
    });

    test("of two inserts of one id at the same time, exactly one is stored", async () => {
      const results = await Promise.all([
        stores.revisions.insert(revision("201712131954", ["prod"])),
        stores.revisions.insert(revision("201712131954", ["qa"], { seed: "config:other" })),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await stores.revisions.listIds("acme", "main")).toEqual(["201712131954"]);
      const kept = (await stores.revisions.find("acme", "main", "201712131954"))!.details.targets_published[0]!;
      expect(await stores.revisions.latestForTarget("acme", "main", kept === "prod" ? "qa" : "prod")).toBeNull();
    });

    test("a seed stored once in a profile is refused a second time, under any id", async () => {
      expect(await stores.revisions.insert(revision("201712131954", ["prod"], { seed: "config:demo" }))).toBe(true);
      expect(await stores.revisions.insert(revision("201712131955", ["prod"], { seed: "config:demo" }))).toBe(false);
      expect(await stores.revisions.listIds("acme", "main")).toEqual(["201712131954"]);
      expect(await stores.revisions.insert(revision("201712131956", ["prod"]))).toBe(true);
      expect(await stores.revisions.insert(revision("201712131957", ["prod"]))).toBe(true);
    });

    test("the latest of a target is the newest revision published to it (DEC-REV-03)", async () => {
      await stores.revisions.insert(revision("201701010000", ["prod", "qa"]));
      await stores.revisions.insert(revision("201801010000", ["qa"]));
      await stores.revisions.insert(revision("201601010000", ["prod", "dev"]));
      expect(await stores.revisions.latestForTarget("acme", "main", "prod")).toBe("201701010000");
      expect(await stores.revisions.latestForTarget("acme", "main", "qa")).toBe("201801010000");
      expect(await stores.revisions.latestForTarget("acme", "main", "dev")).toBe("201601010000");
      expect(await stores.revisions.latestForTarget("acme", "dev", "prod")).toBeNull();
    });

    test("a revision of a profile that does not exist is refused", async () => {
      await expect(stores.revisions.insert(revision("201712131954", ["prod"], { profile: "nope" }))).rejects.toThrow();
      expect(await stores.revisions.listIds("acme", "nope")).toEqual([]);
    });

    test("what a caller holds cannot change what is stored", async () => {
      const stored = revision("201712131954", ["prod"]);
      await stores.revisions.insert(stored);
      stored.bundle[0] = 99;
      (stored.details.targets_published as string[]).push("qa");
      const bundle = (await stores.revisions.readBundle("acme", "main", "201712131954"))!;
      expect(bundle[0]).toBe(0);
      bundle[1] = 99;
      expect((await stores.revisions.readBundle("acme", "main", "201712131954"))![1]).toBe(1);
      expect((await stores.revisions.find("acme", "main", "201712131954"))!.details.targets_published).toEqual([
        "prod",
      ]);
    });
  });
}
