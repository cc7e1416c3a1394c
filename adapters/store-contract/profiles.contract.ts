/** The profile part of the store contract, run against every store implementation. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Stores } from "../../core/ports/index.ts";
import type { VisitorProfile } from "../../core/profiles/index.ts";

function profile(overrides: Partial<VisitorProfile> = {}): VisitorProfile {
  return {
    firstSeenAt: 1_000,
    lastSeenAt: 2_000,
    visitStartedAt: 1_000,
    eventCount: 2,
    visitCount: 1,
    values: { "5201": 2, "5202": "view", "5203": false },
    badges: [5205],
    visitorIds: { "5120": "ann@example.com" },
    lastSeq: 2,
    ...overrides,
  };
}

export function describeProfileStoreContract(name: string, open: () => Promise<Stores>): void {
  describe(`${name}: visitor profiles`, () => {
    let stores: Stores;
    beforeEach(async () => {
      stores = await open();
    });
    afterEach(async () => {
      await stores.close();
    });

    test("a saved profile is found through every member id, and only in its account and profile", async () => {
      await stores.profiles.save("acme", "main", "anon-1", profile(), ["anon-1", "tapid-1"]);
      expect(await stores.profiles.canonicalOf("acme", "main", "tapid-1")).toBe("anon-1");
      expect(await stores.profiles.canonicalOf("acme", "dev", "tapid-1")).toBeNull();
      expect(await stores.profiles.find("acme", "main", "anon-1")).toEqual(profile());
      expect(await stores.profiles.find("globex", "main", "anon-1")).toBeNull();
      expect(await stores.profiles.membersOf("acme", "main", "anon-1")).toEqual(["anon-1", "tapid-1"]);
    });

    test('a profile\'s attribute values keep U+0000 and lone surrogates, as the events gave them (decisions of our own, "Text that a store cannot keep")', async () => {
      const values = { "5202": "a\u0000b", "5206": "x\ud800y", "5207": "\udc00\u0000" };
      await stores.profiles.save("acme", "main", "anon-1", profile({ values }), ["anon-1"]);
      expect((await stores.profiles.find("acme", "main", "anon-1"))?.values).toEqual(values);
    });

    test("saveMany writes several groups at once, as save would", async () => {
      await stores.profiles.saveMany([
        { account: "acme", profile: "main", canonical: "a", data: profile({ eventCount: 1 }), members: ["a2"] },
        { account: "acme", profile: "dev", canonical: "b", data: profile({ eventCount: 2 }), members: [] },
      ]);
      expect(await stores.profiles.canonicalOf("acme", "main", "a2")).toBe("a");
      expect((await stores.profiles.find("acme", "dev", "b"))?.eventCount).toBe(2);
      await stores.profiles.saveMany([]);
    });

    test("saveMany of the same group twice keeps the later profile and every member", async () => {
      await stores.profiles.saveMany([
        { account: "acme", profile: "main", canonical: "a", data: profile({ eventCount: 1 }), members: ["a1"] },
        { account: "acme", profile: "main", canonical: "a", data: profile({ eventCount: 2 }), members: ["a2"] },
      ]);
      expect((await stores.profiles.find("acme", "main", "a"))?.eventCount).toBe(2);
      expect(await stores.profiles.membersOf("acme", "main", "a")).toEqual(["a", "a1", "a2"]);
    });

    test("saveMany with canonicalRecorded updates the profile and keeps the group's members", async () => {
      await stores.profiles.save("acme", "main", "a", profile({ eventCount: 1 }), ["a1"]);
      await stores.profiles.saveMany([
        {
          account: "acme",
          profile: "main",
          canonical: "a",
          data: profile({ eventCount: 2 }),
          members: ["a2"],
          canonicalRecorded: true,
        },
      ]);
      expect((await stores.profiles.findByMember("acme", "main", "a"))?.data.eventCount).toBe(2);
      expect(await stores.profiles.membersOf("acme", "main", "a")).toEqual(["a", "a1", "a2"]);
    });

    test("saveMany of more groups than one statement takes writes them all", async () => {
      const entries = Array.from({ length: 1234 }, (_, i) => ({
        account: "acme",
        profile: "main",
        canonical: `g${i}`,
        data: profile({ eventCount: i }),
        members: [`m${i}`],
      }));
      await stores.profiles.saveMany(entries);
      const ids = entries.map((entry) => entry.members[0] as string);
      const groups = await stores.profiles.canonicalsOf("acme", "main", ids);
      expect(groups.size).toBe(1234);
      expect(groups.get("m1000")).toBe("g1000");
      const found = await stores.profiles.findMany(
        "acme",
        "main",
        entries.map((entry) => entry.canonical),
      );
      expect(found.size).toBe(1234);
      expect(found.get("g777")?.eventCount).toBe(777);
    });

    test("canonicalsOf and findMany answer what canonicalOf and find answer, one id at a time", async () => {
      await stores.profiles.save("acme", "main", "a", profile({ eventCount: 1 }), ["a1"]);
      await stores.profiles.save("acme", "dev", "b", profile({ eventCount: 2 }), ["b1"]);
      const groups = await stores.profiles.canonicalsOf("acme", "main", ["a1", "a", "b1", "nobody", "a1"]);
      expect([...groups].sort()).toEqual([
        ["a", "a"],
        ["a1", "a"],
      ]);
      expect((await stores.profiles.canonicalsOf("acme", "main", [])).size).toBe(0);
      const found = await stores.profiles.findMany("acme", "main", ["a", "b", "nobody"]);
      expect([...found.keys()]).toEqual(["a"]);
      expect(found.get("a")).toEqual((await stores.profiles.find("acme", "main", "a")) as never);
      expect((await stores.profiles.findMany("acme", "dev", ["b"])).get("b")?.eventCount).toBe(2);
    });

    test("findByMember answers the group and profile of any member id, with one read", async () => {
      await stores.profiles.save("acme", "main", "a", profile({ eventCount: 4 }), ["a1"]);
      expect(await stores.profiles.findByMember("acme", "main", "a1")).toEqual({
        canonical: "a",
        data: profile({ eventCount: 4 }),
      });
      expect((await stores.profiles.findByMember("acme", "main", "a"))?.canonical).toBe("a");
      expect(await stores.profiles.findByMember("acme", "dev", "a1")).toBeNull();
      expect(await stores.profiles.findByMember("acme", "main", "nobody")).toBeNull();
    });

    test("findForEngine answers findByMember with the engine's enabled-since, or null for an id in no group (MOM-10, DEC-MOM-04)", async () => {
      await stores.profiles.save("acme", "main", "a", profile({ eventCount: 4 }), ["a1"]);
      await stores.profiles.save("acme", "dev", "a", profile({ eventCount: 1 }), []);
      expect(await stores.profiles.findForEngine("acme", "main", "a1", "web")).toEqual({
        canonical: "a",
        data: profile({ eventCount: 4 }),
        engineEnabledSince: null,
      });
      await stores.profiles.setEngineEnabledSince("acme", "main", "web", 123);
      await stores.profiles.setEngineEnabledSince("acme", "dev", "web", 456);
      await stores.profiles.setEngineEnabledSince("acme", "main", "app", 789);
      expect(await stores.profiles.findForEngine("acme", "main", "a1", "web")).toEqual({
        canonical: "a",
        data: profile({ eventCount: 4 }),
        engineEnabledSince: 123,
      });
      expect(await stores.profiles.findForEngine("acme", "main", "a", "app")).toEqual({
        canonical: "a",
        data: profile({ eventCount: 4 }),
        engineEnabledSince: 789,
      });
      expect(await stores.profiles.findForEngine("acme", "dev", "a", "web")).toEqual({
        canonical: "a",
        data: profile({ eventCount: 1 }),
        engineEnabledSince: 456,
      });
      expect(await stores.profiles.findForEngine("acme", "main", "a1", "nowhere")).toEqual({
        canonical: "a",
        data: profile({ eventCount: 4 }),
        engineEnabledSince: null,
      });
      expect(await stores.profiles.findForEngine("acme", "dev", "a1", "web")).toBeNull();
      expect(await stores.profiles.findForEngine("acme", "main", "nobody", "web")).toBeNull();
      await stores.profiles.setEngineEnabledSince("acme", "main", "web", null);
      expect((await stores.profiles.findForEngine("acme", "main", "a1", "web"))?.engineEnabledSince).toBeNull();
    });

    test("saving again replaces the profile and adds members", async () => {
      await stores.profiles.save("acme", "main", "anon-1", profile(), []);
      await stores.profiles.save("acme", "main", "anon-1", profile({ eventCount: 3, lastSeq: 9 }), ["anon-2"]);
      expect((await stores.profiles.find("acme", "main", "anon-1"))?.eventCount).toBe(3);
      expect(await stores.profiles.membersOf("acme", "main", "anon-1")).toEqual(["anon-1", "anon-2"]);
    });

    test("merge moves every member of the joined groups, removes their profiles and records each join", async () => {
      await stores.profiles.save("acme", "main", "anon-1", profile(), ["anon-1", "tapid-1"]);
      await stores.profiles.save("acme", "main", "anon-2", profile(), ["anon-2"]);
      await stores.profiles.save("acme", "main", "__acme_main__5120_x__", profile(), []);
      await stores.profiles.merge(
        "acme",
        "main",
        "__acme_main__5120_x__",
        ["anon-1", "anon-2"],
        profile({ eventCount: 6 }),
        5_000,
      );
      for (const id of ["anon-1", "tapid-1", "anon-2", "__acme_main__5120_x__"]) {
        expect(await stores.profiles.canonicalOf("acme", "main", id)).toBe("__acme_main__5120_x__");
      }
      expect(await stores.profiles.find("acme", "main", "anon-1")).toBeNull();
      expect((await stores.profiles.find("acme", "main", "__acme_main__5120_x__"))?.eventCount).toBe(6);
      expect(await stores.profiles.mergesInto("acme", "main", "__acme_main__5120_x__")).toEqual([
        { from: "anon-1", into: "__acme_main__5120_x__", at: 5_000 },
        { from: "anon-2", into: "__acme_main__5120_x__", at: 5_000 },
      ]);
    });

    test("joins recorded into a group follow it when the group is joined in turn", async () => {
      await stores.profiles.save("acme", "main", "a", profile(), []);
      await stores.profiles.save("acme", "main", "b", profile(), []);
      await stores.profiles.merge("acme", "main", "b", ["a"], profile(), 1);
      await stores.profiles.merge("acme", "main", "c", ["b"], profile(), 2);
      expect((await stores.profiles.mergesInto("acme", "main", "c")).map((record) => record.from).sort()).toEqual([
        "a",
        "b",
      ]);
      expect(await stores.profiles.canonicalOf("acme", "main", "a")).toBe("c");
    });

    test("deleteGroup removes the profile, every member and the joins of the group, and nothing else (PRV-09)", async () => {
      await stores.profiles.save("acme", "main", "anon-1", profile(), ["anon-1", "tapid-1"]);
      await stores.profiles.save("acme", "main", "__acme_main__5120_x__", profile(), []);
      await stores.profiles.merge(
        "acme",
        "main",
        "__acme_main__5120_x__",
        ["anon-1"],
        profile({ eventCount: 4 }),
        5_000,
      );
      await stores.profiles.save("acme", "main", "other", profile(), ["other-tapid"]);
      await stores.profiles.save("acme", "dev", "__acme_main__5120_x__", profile(), ["anon-1"]);

      expect(await stores.profiles.deleteGroup("acme", "main", "__acme_main__5120_x__")).toBe(3);
      for (const id of ["anon-1", "tapid-1", "__acme_main__5120_x__"])
        expect(await stores.profiles.canonicalOf("acme", "main", id)).toBeNull();
      expect(await stores.profiles.find("acme", "main", "__acme_main__5120_x__")).toBeNull();
      expect(await stores.profiles.mergesInto("acme", "main", "__acme_main__5120_x__")).toEqual([]);
      expect(await stores.profiles.canonicalOf("acme", "main", "other-tapid")).toBe("other");
      expect(await stores.profiles.canonicalOf("acme", "dev", "anon-1")).toBe("__acme_main__5120_x__");
      expect(await stores.profiles.find("acme", "dev", "__acme_main__5120_x__")).toEqual(profile());
      expect(await stores.profiles.deleteGroup("acme", "main", "__acme_main__5120_x__")).toBe(0);
    });

    test("engine states are kept per account, profile and engine", async () => {
      expect(await stores.profiles.engineEnabledSince("acme", "main", "demo-engine")).toBeNull();
      await stores.profiles.setEngineEnabledSince("acme", "main", "demo-engine", 123);
      expect(await stores.profiles.engineEnabledSince("acme", "main", "demo-engine")).toBe(123);
      expect(await stores.profiles.engineEnabledSince("acme", "dev", "demo-engine")).toBeNull();
      await stores.profiles.setEngineEnabledSince("acme", "main", "demo-engine", null);
      expect(await stores.profiles.engineEnabledSince("acme", "main", "demo-engine")).toBeNull();
    });
  });
}
