import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import { hostEventLoop as eventLoop, recordingLogger } from "../../testing/fakes.ts";
import { knownEmailId as email, sampleEvent, seedProfile, visitorEvent } from "../../testing/fixtures.ts";
import { stitchingProfile as config, foldAll, foldingWorker, policy } from "../../testing/profiles/profiles.ts";
import type { ProfileSave, Stores } from "../ports/index.ts";
import { ProfileLeaseLost, ProfilesService, profileEventOf } from "./profiles.use-cases.ts";

async function setup() {
  const stores = createMemoryStores();
  await seedProfile(stores, config);
  const service = new ProfilesService({ stores, policy, eventLoop, pageSize: 2 });
  const worker = foldingWorker(stores, { profiles: service, batchSize: 2 });
  let at = 1_000_000;
  const send = async (visitorId: string, data: Record<string, unknown> = {}) => {
    at += 1000;
    await stores.events.append([visitorEvent(visitorId, data, at)]);
  };
  const drain = () => foldAll(worker);
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
    assert.equal(await eventsOf("anon-1"), 5);
    assert.equal(await eventsOf("anon-2"), 1);
    assert.equal(await stores.settings.get("profiles.cursor"), "6");
  });

  it("applying the same events again counts nothing twice (a crash between profile and cursor writes)", async () => {
    const { send, drain, eventsOf, stores } = await setup();
    for (let i = 0; i < 3; i += 1) await send("anon-1");
    await drain();
    await stores.settings.set("profiles.cursor", "0");
    await drain();
    assert.equal(await eventsOf("anon-1"), 3);
  });

  it("[VID-08] an anonymous visitor naming an e-mail becomes the known visitor, and its earlier events count", async () => {
    const { send, drain, eventsOf, stores } = await setup();
    await send("anon-1");
    await send("anon-1");
    await send("anon-1", { email_address: "ann@example.com" });
    await drain();
    assert.equal(await stores.profiles.canonicalOf("acme", "main", "anon-1"), email("ann@example.com"));
    assert.equal(await eventsOf(email("ann@example.com")), 3);
    const merges = await stores.profiles.mergesInto("acme", "main", email("ann@example.com"));
    // Any time of the merge: the rest of the record exactly.
    assert.deepEqual(
      merges.map(({ at, ...rest }) => rest),
      [{ from: "anon-1", into: email("ann@example.com") }],
    );
    assert.equal(typeof merges[0]?.at, "number");
  });

  it("[VID-08] a second device of a known visitor merges into it; later events of either go to the one profile", async () => {
    const { send, drain, eventsOf } = await setup();
    await send(email("ann@example.com"));
    await send("phone");
    await send("phone", { email_address: "ann@example.com" });
    await send("laptop", { email_address: "ann@example.com" });
    await send("phone");
    await drain();
    assert.equal(await eventsOf("laptop"), 5);
    assert.equal(await eventsOf("phone"), 5);
  });

  it("[PRV-09] one visitor naming two known identities joins both groups; the older known visitor stays canonical", async () => {
    const { send, drain, eventsOf, stores } = await setup();
    await send(email("ann@example.com"));
    await send("__acme_main__5121_c-9__");
    await send("kiosk", { email_address: "ann@example.com", customer_id: "c-9" });
    await drain();
    assert.equal(
      await stores.profiles.canonicalOf("acme", "main", "__acme_main__5121_c-9__"),
      email("ann@example.com"),
    );
    assert.equal(await eventsOf("kiosk"), 3);
    const members = await stores.profiles.membersOf("acme", "main", email("ann@example.com"));
    assert.deepEqual(members, ["__acme_main__5120_ann@example.com__", "__acme_main__5121_c-9__", "kiosk"].sort());
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
    assert.equal(await eventsOf("tablet"), 12);
    const merged = await stores.profiles.find("acme", "main", email("bo@example.com"));
    assert.equal(merged?.values["5201"], 12);
    assert.equal(merged?.lastSeq, 12);
  });

  it("events of an account/profile that is not configured are passed over", async () => {
    const { drain, stores } = await setup();
    await stores.events.append([
      sampleEvent({ account: "initech", visitorId: "x", visitorIdSource: "new", event: null, receivedAt: 1, data: {} }),
    ]);
    await drain();
    assert.equal(await stores.profiles.canonicalOf("initech", "main", "x"), null);
    assert.equal(await stores.settings.get("profiles.cursor"), "1");
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
    await assert.rejects(worker.runDue(0), { message: /disk full/ });
    assert.equal(await stores.settings.get("profiles.cursor"), "0");
    assert.equal(await eventsOf("anon-1"), undefined);
    await foldAll(worker);
    assert.equal(await eventsOf("anon-1"), 1);
    assert.equal(await eventsOf("anon-2"), 1);
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
    await assert.rejects(worker.runDue(0), { message: /read failed/ });
    assert.equal(await stores.settings.get("profiles.cursor"), "1");
    assert.equal(await eventsOf("anon-1"), 1);
    await foldAll(worker);
    assert.equal(await stores.profiles.canonicalOf("acme", "main", "anon-1"), email("ann@example.com"));
    assert.equal(await eventsOf("anon-1"), 2);
  });

  it("a batch reads its visitors' groups and profiles together, not one event at a time", async () => {
    const { send, stores, worker, eventsOf } = await setup();
    await send("anon-1");
    await send("anon-2");
    await foldAll(worker);
    // Counts what the batch asks of the store, not how the store answers it (the memory store's own reads of
    // several ids are made of single ones).
    let singleReads = 0;
    const store = stores.profiles;
    (stores as { profiles: Stores["profiles"] }).profiles = new Proxy(store, {
      get(target, name) {
        const value: unknown = Reflect.get(target, name, target);
        if (typeof value !== "function") return value;
        if (name === "canonicalOf" || name === "find") singleReads += 1;
        return value.bind(target);
      },
    });
    await send("anon-1");
    await send("anon-2");
    await foldAll(worker);
    assert.equal(singleReads, 0);
    assert.equal(await eventsOf("anon-1"), 2);
    assert.equal(await eventsOf("anon-2"), 2);
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
    await foldAll(worker);
    assert.deepEqual(
      saved.map(({ canonical, members, canonicalRecorded }) => ({ canonical, members, canonicalRecorded })),
      [{ canonical: "anon-1", members: [], canonicalRecorded: false }],
    );
    // Returning: only the profile changes. Naming a customer id joins the visitor to that known id, whose
    // group records the visitor as a new member.
    saved.length = 0;
    await send("anon-1");
    await send("anon-1", { customer_id: "c-1" });
    await foldAll(worker);
    assert.deepEqual(
      saved.map(({ canonical, members, canonicalRecorded }) => ({ canonical, members, canonicalRecorded })),
      [
        { canonical: "anon-1", members: [], canonicalRecorded: true },
        { canonical: "__acme_main__5121_c-1__", members: ["anon-1"], canonicalRecorded: false },
      ],
    );
    assert.equal(await eventsOf("anon-1"), 3);
    assert.deepEqual(await stores.profiles.membersOf("acme", "main", "__acme_main__5121_c-1__"), [
      "__acme_main__5121_c-1__",
      "anon-1",
    ]);
  });

  it("a batch pauses between its reads, its work and its commit; events stored meanwhile wait for the next batch", async () => {
    const stores = createMemoryStores();
    await seedProfile(stores, config);
    const event = (visitorId: string, receivedAt: number) => visitorEvent(visitorId, {}, receivedAt);
    let pauses = 0;
    // Each pause is where the thread commits collected events: one arrives at every pause of the first batch.
    const pause = async () => {
      pauses += 1;
      if (pauses <= 3) await stores.events.append([event(pauses % 2 === 0 ? "anon-2" : "anon-1", 2_000 + pauses)]);
    };
    const worker = foldingWorker(stores, { profiles: new ProfilesService({ stores, policy, eventLoop, pause }) });
    await stores.events.append([event("anon-1", 1_000), event("anon-2", 1_001)]);
    assert.equal(await worker.runDue(0), 2);
    assert.equal(pauses, 3);
    assert.equal(await stores.settings.get("profiles.cursor"), "2");
    assert.equal(await worker.runDue(0), 3);
    const eventsOf = async (visitorId: string) =>
      (await stores.profiles.findByMember("acme", "main", visitorId))?.data.eventCount;
    assert.equal(await eventsOf("anon-1"), 3);
    assert.equal(await eventsOf("anon-2"), 2);
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
    verdict: "none" as const,
    violations: [],
  });

  it("[DEC-PRO-01] the parameters are the event's own: names of Object.prototype are absent unless stored", () => {
    for (const name of ["constructor", "toString", "valueOf", "__proto__", "hasOwnProperty"]) {
      const params = profileEventOf(stored("anon", { color: "red" })).params;
      assert.equal(Object.hasOwn(params, name), false);
      assert.equal(params[name], undefined);
      const sent = profileEventOf(
        stored("anon", JSON.parse(`{${JSON.stringify(name)}:"x"}`) as Record<string, unknown>),
      ).params;
      assert.equal(Object.hasOwn(sent, name), true);
      assert.equal(sent[name], "x");
    }
    assert.deepEqual(
      profileEventOf(stored("anon", { color: "red" })).params,
      Object.assign(Object.create(null) as object, { color: "red", svc_event: "view" }),
    );
  });

  it("[DEC-COL-11, VID-02] the event's visitor ID, when it is a known visitor ID of the event's own account/profile", () => {
    assert.deepEqual(profileEventOf(stored("__acme_main__5121_cust77__", {})).knownVisitor, {
      attributeId: 5121,
      value: "cust77",
    });
    assert.equal(profileEventOf(stored("__acme_main__5121_cust77__", {}, "acme", "dev")).knownVisitor, null);
    assert.equal(profileEventOf(stored("anon", {})).knownVisitor, null);
  });

  it("[DEC-COL-11] a visitor known only by its known visitor ID has that visitor ID attribute captured", async () => {
    const { send, drain, stores } = await setup();
    await send("__acme_main__5121_cust77__");
    await send("__acme_main__5121_cust77__", { color: "red" });
    await drain();
    const profile = await stores.profiles.find("acme", "main", "__acme_main__5121_cust77__");
    assert.deepEqual(profile?.visitorIds, { "5121": "cust77" });
  });

  it("[DEC-COL-11, VID-08] a known visitor ID joined into another group keeps its captured value in the joined profile", async () => {
    const { send, drain, stores } = await setup();
    await send(email("ann@example.com"));
    await send("__acme_main__5121_cust77__", { email_address: "ann@example.com" });
    await drain();
    const canonical = await stores.profiles.canonicalOf("acme", "main", "__acme_main__5121_cust77__");
    assert.equal(canonical, email("ann@example.com"));
    assert.deepEqual((await stores.profiles.find("acme", "main", canonical as string))?.visitorIds, {
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
    assert.notEqual(canonical, null);
    assert.equal(await stores.profiles.canonicalOf("acme", "main", email("ann@work.example")), canonical);
    assert.deepEqual((await stores.profiles.find("acme", "main", canonical as string))?.visitorIds, {
      "5120": "ann@work.example",
    });
  });

  it("[VID-08] an e-mail parameter the moments API could not look up (a control character, not text) neither stitches nor is captured", async () => {
    const { send, drain, stores } = await setup();
    await send("anon-1", { email_address: "ann\t@example.com" });
    await send("anon-2", { email_address: true });
    await drain();
    for (const visitorId of ["anon-1", "anon-2"]) {
      assert.equal(await stores.profiles.canonicalOf("acme", "main", visitorId), visitorId);
      assert.deepEqual((await stores.profiles.find("acme", "main", visitorId))?.visitorIds, {});
    }
    assert.equal(await stores.profiles.canonicalOf("acme", "main", email("true")), null);
  });
});

describe("joins into a large group (DEC-PRO-03, VID-08)", () => {
  async function largeGroup(members: number, options: { sliceMs?: number } = {}) {
    const stores = createMemoryStores();
    await seedProfile(stores, config);
    const service = new ProfilesService({ stores, policy, eventLoop, ...options });
    const event = (visitorId: string, receivedAt: number, data: Record<string, unknown> = {}) =>
      visitorEvent(visitorId, data, receivedAt);
    // Every visitor views a page, then logs in with one shared customer id (a "guest" id sent for everyone).
    const views = Array.from({ length: members }, (_, index) => event(`anon-${index}`, 1_000 + index));
    const logins = Array.from({ length: members }, (_, index) =>
      event(`anon-${index}`, 10_000 + index, { customer_id: "guest" }),
    );
    await stores.events.append([...views, ...logins]);
    return {
      stores,
      service,
      worker: foldingWorker(stores, { profiles: service }),
    };
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
    await foldAll(worker);
    assert.equal(queriesByMember, 0);
    assert.ok(membersNamed > 1, `${membersNamed} is not more than 1`);
    const group = await stores.profiles.findByMember("acme", "main", "anon-0");
    assert.equal(group?.canonical, "__acme_main__5121_guest__");
    assert.equal(group?.data.eventCount, 500);
    assert.equal(group?.data.values["5201"], 500);
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
    await foldAll(worker);
    counting = false;
    // The three pauses between a batch's steps alone would give three turns; the joins' slices give many.
    assert.ok(turns > 50, `${turns} is not more than 50`);
  });

  it("a batch stops, writing nothing more, once the lease has passed to another process", async () => {
    const { stores, service } = await largeGroup(50, { sliceMs: 0 });
    const events = await stores.events.query({ limit: 1000 });
    let asked = 0;
    const stillHeld = async () => {
      asked += 1;
      return asked < 3;
    };
    await assert.rejects(
      service.applyBatch(events, async () => config, { stillHeld }),
      ProfileLeaseLost,
    );
    assert.equal(await stores.profiles.findByMember("acme", "main", "anon-49"), null);
  });

  it("the worker leaves the cursor to the process that took the lease over", async () => {
    const { stores } = await largeGroup(3);
    const service = new ProfilesService({ stores, policy, eventLoop });
    service.applyBatch = async () => {
      throw new ProfileLeaseLost();
    };
    const logger = recordingLogger();
    const worker = foldingWorker(stores, { profiles: service, logger });
    assert.equal(await worker.runDue(0), 0);
    assert.equal(await stores.settings.get("profiles.cursor"), null);
    assert.equal(
      logger.lines.some((line) => line.level === "warn" && line.message.includes("lease")),
      true,
    );
  });
});
