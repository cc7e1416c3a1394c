/**
 * Erasure, run against every store implementation: Stores.eraseAll (the store side of svc-hub's own POST
 * /admin/reset), and the erasure of one deleted value from events and profiles (DEC-PRV-05, a deletion's
 * last step: EventStore.eraseValue, ProfileStore.eraseValue).
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Stores } from "../../core/ports/index.ts";
import type { VisitorProfile } from "../../core/profiles/index.ts";
import { fillEveryStore, sampleEvent } from "../../testing/fixtures.ts";

export function describeEraseContract(name: string, open: () => Promise<Stores>): void {
  describe(`${name}: erasing everything (svc-hub's own admin API, POST /admin/reset)`, () => {
    let stores: Stores;
    beforeEach(async () => {
      stores = await open();
      await fillEveryStore(stores);
    });
    afterEach(async () => {
      await stores.close();
    });

    test("eraseAll removes every record, says how many of each, and keeps only the settings named", async () => {
      // A store that keeps the files received for import erases them with the rest, and counts them.
      const receivedFiles = stores.receivedFiles;
      await receivedFiles?.write("acme", "main", "purchases_1.csv", null);
      const erased = await stores.eraseAll({ keepSettings: ["admin.token", "lease.profiles"] });
      expect(erased).toEqual({
        accounts: 1,
        profiles: 2,
        users: 1,
        apiKeys: 1,
        sessions: 1,
        lockouts: 1,
        events: 2,
        visitorProfiles: 1,
        dataLayers: 1,
        revisions: 1,
        privacyTransactions: 1,
        fileImports: 1,
        ...(receivedFiles ? { receivedFiles: 1 } : {}),
        settings: 3,
      });
      if (receivedFiles) expect(await receivedFiles.holds("acme", "main", "purchases_1.csv")).toBe(false);
      expect(await stores.tenancy.listAccounts()).toEqual([]);
      expect(await stores.tenancy.findProfile("acme", "main")).toBeNull();
      expect(await stores.tenancy.listUsers()).toEqual([]);
      expect(await stores.tenancy.findApiKey("key-1")).toBeNull();
      expect(await stores.sessions.findByCookieHash("c".repeat(64))).toBeNull();
      expect(await stores.lockouts.read("password", "ops@example.com")).toBeNull();
      expect(await stores.events.query({ limit: 10 })).toEqual([]);
      expect(await stores.profiles.canonicalOf("acme", "main", "v2")).toBeNull();
      expect(await stores.profiles.engineEnabledSince("acme", "main", "engine-1")).toBeNull();
      expect(await stores.dataLayers.read({ account: "acme", profile: "main", dlId: "homepage" })).toBeNull();
      expect(await stores.dataLayers.nextRunAt()).toBeNull();
      expect(await stores.revisions.listIds("acme", "main")).toEqual([]);
      expect(await stores.privacy.find("acme", "main", "t1")).toBeNull();
      expect(await stores.privacy.auditOf("t1")).toEqual([]);
      expect(await stores.files.unfinished()).toEqual([]);
      expect(await stores.settings.keysStartingWith("")).toEqual(["admin.token", "lease.profiles"]);
      expect(await stores.settings.get("admin.token")).toBe("kept-token");
    });

    test("after eraseAll the stores take the same records again, and events' sequence numbers go on", async () => {
      const [before] = await stores.events.query({ limit: 1, order: "desc" });
      await stores.eraseAll({ keepSettings: [] });
      expect(await stores.settings.keysStartingWith("")).toEqual([]);
      await fillEveryStore(stores);
      expect((await stores.tenancy.listAccounts()).map((account) => account.name)).toEqual(["acme"]);
      const after = await stores.events.query({ limit: 10 });
      expect(after.map((event) => event.visitorId)).toEqual(["v1", "v2"]);
      expect(after[0]?.seq).toBeGreaterThan(before?.seq ?? Number.POSITIVE_INFINITY);
    });
  });

  describe(`${name}: erasing a deleted value from events and profiles (DEC-PRV-05)`, () => {
    let stores: Stores;
    beforeEach(async () => {
      stores = await open();
    });
    afterEach(async () => {
      await stores.close();
    });

    const erased = "pad@example.com";
    const profileOf = (
      values: VisitorProfile["values"],
      visitorIds: VisitorProfile["visitorIds"] = {},
    ): VisitorProfile => ({
      firstSeenAt: 1_000,
      lastSeenAt: 2_000,
      visitStartedAt: 1_000,
      eventCount: 2,
      visitCount: 1,
      values,
      badges: [],
      visitorIds,
      lastSeq: 2,
    });

    test("events: the parameters holding the value (padded, nested) are removed with their columns, the rest kept; the data subject's events are left and named", async () => {
      await stores.events.append([
        sampleEvent({
          visitorId: "other",
          event: ` ${erased}`,
          traceId: `${erased}\t`,
          data: {
            svc_account: "acme",
            svc_event: ` ${erased}`,
            svc_trace_id: `${erased}\t`,
            contacts: { work: erased },
            n: 1,
            keep: "Pad@example.com",
          },
        }),
        sampleEvent({ visitorId: `\u00a0${erased}`, data: { svc_account: "acme", svc_visitor_id: `\u00a0${erased}` } }),
        sampleEvent({ visitorId: "tapid-holder", thirdPartyVisitorId: erased, data: { svc_account: "acme" } }),
        sampleEvent({ visitorId: "untouched", data: { svc_account: "acme", note: `${erased}.org` } }),
        sampleEvent({ profile: "dev", visitorId: "other", data: { svc_account: "acme", invited: erased } }),
        sampleEvent({ account: "globex", visitorId: "other", data: { svc_account: "globex", invited: erased } }),
      ]);
      const before = await stores.events.query({ limit: 10 });
      expect(await stores.events.eraseValue("acme", "main", erased)).toEqual({
        rewritten: 1,
        visitorIds: ["tapid-holder", `\u00a0${erased}`].sort(),
      });
      const after = await stores.events.query({ limit: 10 });
      expect(after.map((event) => event.seq)).toEqual(before.map((event) => event.seq));
      expect(after[0]).toEqual({
        ...(before[0] as (typeof before)[number]),
        event: null,
        traceId: null,
        data: { svc_account: "acme", n: 1, keep: "Pad@example.com" },
      });
      expect(after.slice(1)).toEqual(before.slice(1));
      // Nothing more the second time; the subject's events are named again until the caller removes them.
      expect(await stores.events.eraseValue("acme", "main", erased)).toEqual({
        rewritten: 0,
        visitorIds: ["tapid-holder", `\u00a0${erased}`].sort(),
      });
      expect(await stores.events.eraseValue("acme", "main", "nobody@example.com")).toEqual({
        rewritten: 0,
        visitorIds: [],
      });
    });

    test("events and profiles: the value is erased across more records than a store reads at a time", async () => {
      // libSQL reads 5,000 sequence numbers and 1,000 profiles at a time: these span several of each.
      const count = 12_345;
      const batch = Array.from({ length: count }, (_, index) =>
        sampleEvent({ visitorId: `v-${index}`, data: { svc_account: "acme", who: index % 3 === 0 ? erased : "x" } }),
      );
      for (let from = 0; from < count; from += 2_000) await stores.events.append(batch.slice(from, from + 2_000));
      expect(await stores.events.eraseValue("acme", "main", erased)).toEqual({
        rewritten: Math.ceil(count / 3),
        visitorIds: [],
      });
      expect(await stores.events.eraseValue("acme", "main", erased)).toEqual({ rewritten: 0, visitorIds: [] });
      const profiles = 2_345;
      for (let index = 0; index < profiles; index += 1) {
        const canonical = `p-${String(index).padStart(5, "0")}`;
        await stores.profiles.save("acme", "main", canonical, profileOf({ "5202": index % 2 === 0 ? erased : "x" }), [
          canonical,
        ]);
      }
      expect(await stores.profiles.eraseValue("acme", "main", erased)).toEqual({
        edited: Math.ceil(profiles / 2),
        groups: [],
      });
    }, 60_000);

    test("events: a tracking plan's violation loses the erased value it held; the rest of it stays (issue 43)", async () => {
      const erased = "pad@example.com";
      const violations = [
        { parameter: "email", path: "/email", rule: "pattern", value: erased, message: "must match pattern" },
        { parameter: "total", path: "/total", rule: "type", value: "3", message: "must be number" },
      ];
      await stores.events.append([
        sampleEvent({ visitorId: "anon-9", data: { email: erased, total: "3" }, verdict: "invalid", violations }),
      ]);
      expect(await stores.events.eraseValue("acme", "main", erased)).toEqual({ rewritten: 1, visitorIds: [] });
      const [stored] = await stores.events.query({ visitorId: "anon-9", limit: 1 });
      expect(stored?.verdict).toBe("invalid");
      expect(stored?.violations).toEqual([
        { parameter: "email", path: "/email", rule: "pattern", message: "must match pattern" },
        { parameter: "total", path: "/total", rule: "type", value: "3", message: "must be number" },
      ]);
    });

    test("events: a value with characters JSON escapes is found", async () => {
      const value = 'o"brien\\x@example.com';
      await stores.events.append([sampleEvent({ data: { svc_account: "acme", who: ` ${value}` } })]);
      expect(await stores.events.eraseValue("acme", "main", value)).toEqual({ rewritten: 1, visitorIds: [] });
      expect((await stores.events.query({ limit: 1 }))[0]?.data).toEqual({ svc_account: "acme" });
    });

    test("profiles: the text attributes holding the value are removed; the groups that captured it are named, not changed", async () => {
      await stores.profiles.save(
        "acme",
        "main",
        "other",
        profileOf({ "5202": ` ${erased}`, "5206": "other@example.com", "5207": 3 }),
        ["other"],
      );
      await stores.profiles.save("acme", "main", "known", profileOf({ "5206": erased }, { "5120": `${erased}\t` }), [
        "known",
      ]);
      await stores.profiles.save(
        "acme",
        "main",
        "untouched",
        profileOf({ "5202": "view" }, { "5120": "x@example.com" }),
        ["untouched"],
      );
      await stores.profiles.save("acme", "dev", "other", profileOf({ "5202": erased }), ["other"]);
      expect(await stores.profiles.eraseValue("acme", "main", erased)).toEqual({ edited: 1, groups: ["known"] });
      expect(await stores.profiles.find("acme", "main", "other")).toEqual(
        profileOf({ "5206": "other@example.com", "5207": 3 }),
      );
      expect(await stores.profiles.find("acme", "main", "known")).toEqual(
        profileOf({ "5206": erased }, { "5120": `${erased}\t` }),
      );
      expect(await stores.profiles.find("acme", "main", "untouched")).toEqual(
        profileOf({ "5202": "view" }, { "5120": "x@example.com" }),
      );
      expect(await stores.profiles.find("acme", "dev", "other")).toEqual(profileOf({ "5202": erased }));
      expect(await stores.profiles.eraseValue("acme", "main", erased)).toEqual({ edited: 0, groups: ["known"] });
    });
  });
}
