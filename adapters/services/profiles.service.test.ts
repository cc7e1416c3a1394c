import { describe, expect, it } from "bun:test";
import type { ProfileConfig } from "../../core/config/config.model.ts";
import type { CollectedEvent, ProfileSave, Stores } from "../../core/ports/index.ts";
import { profilePolicyFromLimits } from "../../core/profiles/profile.rules.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import { createMemoryStores } from "../store-memory/memory.stores.ts";
import { profileWorker } from "../workers/profile.worker.ts";
import { ProfileLeaseLost, ProfilesService, profileEventOf } from "./profiles.service.ts";

const config: ProfileConfig = {
  name: "main",
  visitorIdAttributes: [
    { id: 5120, name: "email_address", parameter: "email_address" },
    { id: 5121, name: "customer_id", parameter: "customer_id" },
  ],
  attributes: [
    {
      id: 5201,
      name: "Events",
      type: "number",
      pii: false,
      enrichments: [{ when: "any_event", conditions: [], action: { type: "increment", by: 1 } }],
    },
  ],
  audiences: [],
  engines: [],
  fileDefinitions: [],
};
const policy = profilePolicyFromLimits({ visitTimeoutMinutes: 30 });
const email = (value: string) => `__acme_main__5120_${value}__`;

async function setup() {
  const stores = createMemoryStores();
  await stores.tenancy.ensureAccount("acme", 0);
  await stores.tenancy.putProfile("acme", config, 0);
  const service = new ProfilesService({ stores, policy, pageSize: 2 });
  const worker = profileWorker({ stores, profiles: service, logger: createMemoryLogger(), batchSize: 2 });
  let at = 1_000_000;
  const send = async (visitorId: string, data: Record<string, unknown> = {}) => {
    at += 1000;
    const event: CollectedEvent = {
      account: "acme",
      profile: "main",
      visitorId,
      visitorIdSource: "visitor_id",
      thirdPartyVisitorId: null,
      firstPartyVisitorId: null,
      event: "view",
      datasource: null,
      traceId: null,
      receivedAt: at,
      data,
    };
    await stores.events.append([event]);
  };
  const drain = async () => {
    while ((await worker.runDue(0)) > 0);
  };
  const eventsOf = async (visitorId: string) => {
    const canonical = await stores.profiles.canonicalOf("acme", "main", visitorId);
    return canonical ? (await stores.profiles.find("acme", "main", canonical))?.eventCount : undefined;
  };
  return { stores, send, drain, eventsOf, worker };
}

describe("profiles from stored events (DEC-PRO-03)", () => {
  it("applies events in order per visitor, in batches, and keeps a cursor", async () => {
    const { send, drain, eventsOf, stores } = await setup();
    for (let i = 0; i < 5; i += 1) await send("anon-1");
    await send("anon-2");
    await drain();
    expect(await eventsOf("anon-1")).toBe(5);
    expect(await eventsOf("anon-2")).toBe(1);
    expect(await stores.settings.get("profiles.cursor")).toBe("6");
  });

  it("applying the same events again counts nothing twice (a crash between profile and cursor writes)", async () => {
    const { send, drain, eventsOf, stores } = await setup();
    for (let i = 0; i < 3; i += 1) await send("anon-1");
    await drain();
    await stores.settings.set("profiles.cursor", "0");
    await drain();
    expect(await eventsOf("anon-1")).toBe(3);
  });

  it("[VID-08] an anonymous visitor naming an e-mail becomes the known visitor, and its earlier events count", async () => {
    const { send, drain, eventsOf, stores } = await setup();
    await send("anon-1");
    await send("anon-1");
    await send("anon-1", { email_address: "ann@example.com" });
    await drain();
    expect(await stores.profiles.canonicalOf("acme", "main", "anon-1")).toBe(email("ann@example.com"));
    expect(await eventsOf(email("ann@example.com"))).toBe(3);
    expect(await stores.profiles.mergesInto("acme", "main", email("ann@example.com"))).toEqual([
      { from: "anon-1", into: email("ann@example.com"), at: expect.any(Number) },
    ]);
  });

  it("[VID-08] a second device of a known visitor merges into it; later events of either go to the one profile", async () => {
    const { send, drain, eventsOf } = await setup();
    await send(email("ann@example.com"));
    await send("phone");
    await send("phone", { email_address: "ann@example.com" });
    await send("laptop", { email_address: "ann@example.com" });
    await send("phone");
    await drain();
    expect(await eventsOf("laptop")).toBe(5);
    expect(await eventsOf("phone")).toBe(5);
  });

  it("[PRV-09] one visitor naming two known identities joins both groups; the older known visitor stays canonical", async () => {
    const { send, drain, eventsOf, stores } = await setup();
    await send(email("ann@example.com"));
    await send("__acme_main__5121_c-9__");
    await send("kiosk", { email_address: "ann@example.com", customer_id: "c-9" });
    await drain();
    expect(await stores.profiles.canonicalOf("acme", "main", "__acme_main__5121_c-9__")).toBe(email("ann@example.com"));
    expect(await eventsOf("kiosk")).toBe(3);
    const members = await stores.profiles.membersOf("acme", "main", email("ann@example.com"));
    expect(members).toEqual(["__acme_main__5120_ann@example.com__", "__acme_main__5121_c-9__", "kiosk"].sort());
  });

  it("a join folds every member's events in stored order, page by page", async () => {
    const { send, drain, eventsOf, stores } = await setup();
    for (let i = 0; i < 5; i += 1) {
      await send("tablet");
      await send("desktop");
    }
    await drain();
    await send("tablet", { email_address: "bo@example.com" });
    await send("desktop", { email_address: "bo@example.com" });
    await drain();
    expect(await eventsOf("tablet")).toBe(12);
    const merged = await stores.profiles.find("acme", "main", email("bo@example.com"));
    expect(merged?.values["5201"]).toBe(12);
    expect(merged?.lastSeq).toBe(12);
  });

  it("events of an account/profile that is not configured are passed over", async () => {
    const { drain, stores } = await setup();
    await stores.events.append([
      {
        account: "initech",
        profile: "main",
        visitorId: "x",
        visitorIdSource: "new",
        thirdPartyVisitorId: null,
        firstPartyVisitorId: null,
        event: null,
        datasource: null,
        traceId: null,
        receivedAt: 1,
        data: {},
      },
    ]);
    await drain();
    expect(await stores.profiles.canonicalOf("initech", "main", "x")).toBeNull();
    expect(await stores.settings.get("profiles.cursor")).toBe("1");
  });

  it("a batch whose commit fails writes nothing, keeps the cursor, and is applied whole on the retry", async () => {
    const { send, stores, worker, eventsOf } = await setup();
    await send("anon-1");
    await send("anon-2");
    const original = stores.profiles.saveMany.bind(stores.profiles);
    let failOnce = true;
    (stores as { profiles: Stores["profiles"] }).profiles.saveMany = async (entries) => {
      if (failOnce) {
        failOnce = false;
        throw new Error("disk full");
      }
      return original(entries);
    };
    await expect(worker.runDue(0)).rejects.toThrow("disk full");
    expect(await stores.settings.get("profiles.cursor")).toBe("0");
    expect(await eventsOf("anon-1")).toBeUndefined();
    while ((await worker.runDue(0)) > 0);
    expect(await eventsOf("anon-1")).toBe(1);
    expect(await eventsOf("anon-2")).toBe(1);
  });

  it("a failure inside a batch writes the events before it and retries from the failed one", async () => {
    const { send, stores, worker, eventsOf } = await setup();
    await send("anon-1");
    // The second event joins anon-1 into the known visitor: a join reads the group's members, which fails once.
    await send("anon-1", { email_address: "ann@example.com" });
    const original = stores.profiles.membersOf.bind(stores.profiles);
    let failOnce = true;
    (stores as { profiles: Stores["profiles"] }).profiles.membersOf = async (account, profile, canonical) => {
      if (failOnce) {
        failOnce = false;
        throw new Error("read failed");
      }
      return original(account, profile, canonical);
    };
    await expect(worker.runDue(0)).rejects.toThrow("read failed");
    expect(await stores.settings.get("profiles.cursor")).toBe("1");
    expect(await eventsOf("anon-1")).toBe(1);
    while ((await worker.runDue(0)) > 0);
    expect(await stores.profiles.canonicalOf("acme", "main", "anon-1")).toBe(email("ann@example.com"));
    expect(await eventsOf("anon-1")).toBe(2);
  });

  it("a batch reads its visitors' groups and profiles together, not one event at a time", async () => {
    const { send, stores, worker, eventsOf } = await setup();
    await send("anon-1");
    await send("anon-2");
    while ((await worker.runDue(0)) > 0);
    let singleReads = 0;
    for (const name of ["canonicalOf", "find"] as const) {
      const original = (stores.profiles[name] as (...args: unknown[]) => Promise<unknown>).bind(stores.profiles);
      (stores.profiles as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
        singleReads += 1;
        return original(...args);
      };
    }
    await send("anon-1");
    await send("anon-2");
    while ((await worker.runDue(0)) > 0);
    expect(singleReads).toBe(0);
    expect(await eventsOf("anon-1")).toBe(2);
    expect(await eventsOf("anon-2")).toBe(2);
  });

  it("a batch writes member records only for ids the store does not record yet", async () => {
    const { send, stores, worker, eventsOf } = await setup();
    const saved: ProfileSave[] = [];
    const original = stores.profiles.saveMany.bind(stores.profiles);
    stores.profiles.saveMany = async (entries) => {
      saved.push(...entries);
      return original(entries);
    };
    // A new visitor: the canonical id's member record is written.
    await send("anon-1");
    while ((await worker.runDue(0)) > 0);
    expect(
      saved.map(({ canonical, members, canonicalRecorded }) => ({ canonical, members, canonicalRecorded })),
    ).toEqual([{ canonical: "anon-1", members: [], canonicalRecorded: false }]);
    // Returning: only the profile changes. Naming a customer id joins the visitor to that known id, whose
    // group records the visitor as a new member.
    saved.length = 0;
    await send("anon-1");
    await send("anon-1", { customer_id: "c-1" });
    while ((await worker.runDue(0)) > 0);
    expect(
      saved.map(({ canonical, members, canonicalRecorded }) => ({ canonical, members, canonicalRecorded })),
    ).toEqual([
      { canonical: "anon-1", members: [], canonicalRecorded: true },
      { canonical: "__acme_main__5121_c-1__", members: ["anon-1"], canonicalRecorded: false },
    ]);
    expect(await eventsOf("anon-1")).toBe(3);
    expect(await stores.profiles.membersOf("acme", "main", "__acme_main__5121_c-1__")).toEqual([
      "__acme_main__5121_c-1__",
      "anon-1",
    ]);
  });

  it("a batch pauses between its reads, its work and its commit; events stored meanwhile wait for the next batch", async () => {
    const stores = createMemoryStores();
    await stores.tenancy.ensureAccount("acme", 0);
    await stores.tenancy.putProfile("acme", config, 0);
    const event = (visitorId: string, receivedAt: number): CollectedEvent => ({
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
      data: {},
    });
    let pauses = 0;
    // Each pause is where the thread commits collected events: one arrives at every pause of the first batch.
    const pause = async () => {
      pauses += 1;
      if (pauses <= 3) await stores.events.append([event(pauses % 2 === 0 ? "anon-2" : "anon-1", 2_000 + pauses)]);
    };
    const worker = profileWorker({
      stores,
      profiles: new ProfilesService({ stores, policy, pause }),
      logger: createMemoryLogger(),
    });
    await stores.events.append([event("anon-1", 1_000), event("anon-2", 1_001)]);
    expect(await worker.runDue(0)).toBe(2);
    expect(pauses).toBe(3);
    expect(await stores.settings.get("profiles.cursor")).toBe("2");
    expect(await worker.runDue(0)).toBe(3);
    const eventsOf = async (visitorId: string) =>
      (await stores.profiles.findByMember("acme", "main", visitorId))?.data.eventCount;
    expect(await eventsOf("anon-1")).toBe(3);
    expect(await eventsOf("anon-2")).toBe(2);
  });
});

describe("what the worker reads of a stored event (DEC-PRO-01, DEC-COL-11, VID-08)", () => {
  const stored = (visitorId: string, data: Record<string, unknown>, account = "acme", profile = "main") => ({
    seq: 1,
    account,
    profile,
    visitorId,
    visitorIdSource: "visitor_id" as const,
    thirdPartyVisitorId: null,
    firstPartyVisitorId: null,
    event: "view",
    datasource: null,
    traceId: null,
    receivedAt: 1,
    data,
  });

  it("[DEC-PRO-01] the parameters are the event's own: names of Object.prototype are absent unless stored", () => {
    for (const name of ["constructor", "toString", "valueOf", "__proto__", "hasOwnProperty"]) {
      const params = profileEventOf(stored("anon", { color: "red" })).params;
      expect(Object.hasOwn(params, name)).toBe(false);
      expect(params[name]).toBeUndefined();
      const sent = profileEventOf(
        stored("anon", JSON.parse(`{${JSON.stringify(name)}:"x"}`) as Record<string, unknown>),
      ).params;
      expect(Object.hasOwn(sent, name)).toBe(true);
      expect(sent[name]).toBe("x");
    }
    expect(profileEventOf(stored("anon", { color: "red" })).params).toEqual(
      Object.assign(Object.create(null) as object, { color: "red", svc_event: "view" }),
    );
  });

  it("[DEC-COL-11, VID-02] the event's visitor ID, when it is a known visitor ID of the event's own account/profile", () => {
    expect(profileEventOf(stored("__acme_main__5121_cust77__", {})).knownVisitor).toEqual({
      attributeId: 5121,
      value: "cust77",
    });
    expect(profileEventOf(stored("__acme_main__5121_cust77__", {}, "acme", "dev")).knownVisitor).toBeNull();
    expect(profileEventOf(stored("anon", {})).knownVisitor).toBeNull();
  });

  it("[DEC-COL-11] a visitor known only by its known visitor ID has that visitor ID attribute captured", async () => {
    const { send, drain, stores } = await setup();
    await send("__acme_main__5121_cust77__");
    await send("__acme_main__5121_cust77__", { color: "red" });
    await drain();
    const profile = await stores.profiles.find("acme", "main", "__acme_main__5121_cust77__");
    expect(profile?.visitorIds).toEqual({ "5121": "cust77" });
  });

  it("[DEC-COL-11, VID-08] a known visitor ID joined into another group keeps its captured value in the joined profile", async () => {
    const { send, drain, stores } = await setup();
    await send(email("ann@example.com"));
    await send("__acme_main__5121_cust77__", { email_address: "ann@example.com" });
    await drain();
    const canonical = await stores.profiles.canonicalOf("acme", "main", "__acme_main__5121_cust77__");
    expect(canonical).toBe(email("ann@example.com"));
    expect((await stores.profiles.find("acme", "main", canonical as string))?.visitorIds).toEqual({
      "5120": "ann@example.com",
      "5121": "cust77",
    });
  });

  it("[VID-08, PRV-09] a visitor who gave two e-mail addresses shows the later one, and either finds the visitor", async () => {
    const { send, drain, stores } = await setup();
    await send("anon-1", { email_address: "ann@example.com" });
    await send("anon-1", { email_address: "ann@work.example" });
    await drain();
    const canonical = await stores.profiles.canonicalOf("acme", "main", email("ann@example.com"));
    expect(canonical).not.toBeNull();
    expect(await stores.profiles.canonicalOf("acme", "main", email("ann@work.example"))).toBe(canonical);
    expect((await stores.profiles.find("acme", "main", canonical as string))?.visitorIds).toEqual({
      "5120": "ann@work.example",
    });
  });

  it("[VID-08] an e-mail parameter the moments API could not look up (a control character, not text) neither stitches nor is captured", async () => {
    const { send, drain, stores } = await setup();
    await send("anon-1", { email_address: "ann\t@example.com" });
    await send("anon-2", { email_address: true });
    await drain();
    for (const visitorId of ["anon-1", "anon-2"]) {
      expect(await stores.profiles.canonicalOf("acme", "main", visitorId)).toBe(visitorId);
      expect((await stores.profiles.find("acme", "main", visitorId))?.visitorIds).toEqual({});
    }
    expect(await stores.profiles.canonicalOf("acme", "main", email("true"))).toBeNull();
  });
});

describe("joins into a large group (DEC-PRO-03, VID-08)", () => {
  async function largeGroup(members: number, options: { sliceMs?: number } = {}) {
    const stores = createMemoryStores();
    await stores.tenancy.ensureAccount("acme", 0);
    await stores.tenancy.putProfile("acme", config, 0);
    const service = new ProfilesService({ stores, policy, ...options });
    const event = (visitorId: string, receivedAt: number, data: Record<string, unknown> = {}): CollectedEvent => ({
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
    });
    // Every visitor views a page, then logs in with one shared customer id (a "guest" id sent for everyone).
    const views = Array.from({ length: members }, (_, index) => event(`anon-${index}`, 1_000 + index));
    const logins = Array.from({ length: members }, (_, index) =>
      event(`anon-${index}`, 10_000 + index, { customer_id: "guest" }),
    );
    await stores.events.append([...views, ...logins]);
    return { stores, service, worker: profileWorker({ stores, profiles: service, logger: createMemoryLogger() }) };
  }

  it("a join reads its members' events a chunk of members at a time, not one query a member", async () => {
    const { stores, worker } = await largeGroup(250);
    const query = stores.events.query.bind(stores.events);
    let queriesByMember = 0;
    let membersNamed = 0;
    stores.events.query = async (asked) => {
      if (asked.visitorId !== undefined) queriesByMember += 1;
      membersNamed = Math.max(membersNamed, asked.visitorIds?.length ?? 0);
      return query(asked);
    };
    while ((await worker.runDue(0)) > 0);
    expect(queriesByMember).toBe(0);
    expect(membersNamed).toBeGreaterThan(1);
    const group = await stores.profiles.findByMember("acme", "main", "anon-0");
    expect(group?.canonical).toBe("__acme_main__5121_guest__");
    expect(group?.data.eventCount).toBe(500);
    expect(group?.data.values["5201"]).toBe(500);
  });

  it("a batch gives the thread back while it works, so group commits of collected events are not held up", async () => {
    const { worker } = await largeGroup(100, { sliceMs: 0 });
    let turns = 0;
    let counting = true;
    const count = () => {
      turns += 1;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    while ((await worker.runDue(0)) > 0);
    counting = false;
    // The three pauses between a batch's steps alone would give three turns; the joins' slices give many.
    expect(turns).toBeGreaterThan(50);
  });

  it("a batch stops, writing nothing more, once the lease has passed to another process", async () => {
    const { stores, service } = await largeGroup(50, { sliceMs: 0 });
    const events = await stores.events.query({ limit: 1000 });
    let asked = 0;
    const stillHeld = async () => {
      asked += 1;
      return asked < 3;
    };
    await expect(service.applyBatch(events, async () => config, { stillHeld })).rejects.toBeInstanceOf(
      ProfileLeaseLost,
    );
    expect(await stores.profiles.findByMember("acme", "main", "anon-49")).toBeNull();
  });

  it("the worker leaves the cursor to the process that took the lease over", async () => {
    const { stores } = await largeGroup(3);
    const service = new ProfilesService({ stores, policy });
    service.applyBatch = async () => {
      throw new ProfileLeaseLost();
    };
    const logger = createMemoryLogger();
    const worker = profileWorker({ stores, profiles: service, logger });
    expect(await worker.runDue(0)).toBe(0);
    expect(await stores.settings.get("profiles.cursor")).toBeNull();
    expect(
      logger.lines.some((line) => line.level === "warn" && String(line.msg ?? line.message).includes("lease")),
    ).toBe(true);
  });
});

describe("visitor ID values the store keeps otherwise than JavaScript (VID-08)", () => {
  it("an e-mail with a lone surrogate joins the same group every time in the libSQL store", async () => {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { openLibsqlStores } = await import("../store-libsql/libsql.stores.ts");
    const dir = mkdtempSync(join(tmpdir(), "svc-hub-profiles-surrogate-"));
    const stores = await openLibsqlStores({ url: `file:${join(dir, "profiles.db")}` });
    try {
      await stores.tenancy.ensureAccount("acme", 0);
      await stores.tenancy.putProfile("acme", config, 0);
      const worker = profileWorker({
        stores,
        profiles: new ProfilesService({ stores, policy }),
        logger: createMemoryLogger(),
      });
      const send = async (visitorId: string, data: Record<string, unknown>) => {
        await stores.events.append([
          {
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
          },
        ]);
        while ((await worker.runDue(0)) > 0);
      };
      await send("ls-a", { email_address: "lone\ud800@x.com" });
      await send("ls-a", {});
      await send("ls-z", { email_address: "lone\ud800@x.com" });
      for (const member of ["ls-a", "ls-z", email("lone\ufffd@x.com")]) {
        expect((await stores.profiles.findByMember("acme", "main", member))?.data.eventCount).toBe(3);
      }
    } finally {
      await stores.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("profiles with two processes on one database", () => {
  it("two nodes working at once apply every event exactly once", async () => {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { openLibsqlStores } = await import("../store-libsql/libsql.stores.ts");
    const dir = mkdtempSync(join(tmpdir(), "svc-hub-profiles-two-"));
    const url = `file:${join(dir, "shared.db")}`;
    const first = await openLibsqlStores({ url });
    const second = await openLibsqlStores({ url });
    try {
      await first.tenancy.ensureAccount("acme", 0);
      await first.tenancy.putProfile("acme", config, 0);
      const workerOf = (stores: Stores, nodeId: string) =>
        profileWorker({
          stores,
          profiles: new ProfilesService({ stores, policy }),
          logger: createMemoryLogger(),
          nodeId,
          batchSize: 1,
        });
      const workers = [workerOf(first, "node-a"), workerOf(second, "node-b")];
      for (let i = 0; i < 6; i += 1) {
        await (i % 2 === 0 ? first : second).events.append([
          {
            account: "acme",
            profile: "main",
            visitorId: "shared-visitor",
            visitorIdSource: "visitor_id",
            thirdPartyVisitorId: null,
            firstPartyVisitorId: null,
            event: "view",
            datasource: null,
            traceId: null,
            receivedAt: 1_000 + i,
            data: {},
          },
        ]);
      }
      // Both nodes try to work at the same time, batch after batch.
      for (let round = 0; round < 10; round += 1) await Promise.all(workers.map((worker) => worker.runDue(0)));
      const canonical = await second.profiles.canonicalOf("acme", "main", "shared-visitor");
      expect((await second.profiles.find("acme", "main", canonical as string))?.eventCount).toBe(6);
    } finally {
      await first.close();
      await second.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
