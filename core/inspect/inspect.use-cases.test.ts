import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import { countingIds, hostEventLoop, silentLogger, storesRefusingNul } from "../../testing/fakes.ts";
import {
  buyerAttributes,
  customerIdAttribute,
  emailIdAttribute,
  profileWith,
  seedProfile,
} from "../../testing/fixtures.ts";
import { foldAll, foldingWorker, policy } from "../../testing/profiles/profiles.ts";
import { CollectService } from "../collect/collect.use-cases.ts";
import { CollectJournal } from "../collect/collect-journal.ts";
import { defaultLimits, type EngineDefinition, type ProfileConfig } from "../config/config.model.ts";
import { managementError } from "../errors/management.errors.ts";
import { MomentsService } from "../moments/moments.use-cases.ts";
import type { IncomingCollectRequest, Stores } from "../ports/index.ts";
import { ok } from "../result.ts";
import { InspectService } from "./inspect.use-cases.ts";

const engine: EngineDefinition = {
  id: "web",
  name: "Website",
  enabled: true,
  allowedDomains: ["example.com"],
  keys: "names",
  audiences: [7],
  badges: [5205],
  attributes: [5201, 5202],
};

/** demo.md's acme/main, in part. */
const config: ProfileConfig = profileWith({
  visitorIdAttributes: [emailIdAttribute, customerIdAttribute],
  attributes: buyerAttributes,
  audiences: [{ id: 7, name: "Purchasers", conditions: [[{ attribute: 5205, operator: "exists" }]] }],
  engines: [
    engine,
    { ...engine, id: "off", name: "Disabled engine", enabled: false },
    { ...engine, id: "later", name: "Enabled later" },
  ],
});

const start = Date.UTC(2024, 0, 2, 3, 4, 5);

async function setup(stores: Stores = createMemoryStores()) {
  await seedProfile(stores, config);
  await stores.profiles.setEngineEnabledSince("acme", "main", "web", 0);
  let now = start;
  const clock = { now: () => now };
  const journal = new CollectJournal();
  const collector = new CollectService({
    stores,
    clock,
    ids: countingIds(),
    logger: silentLogger,
    limits: defaultLimits,
    bots: { isBot: () => false },
    eventLoop: hostEventLoop,
    journal,
  });
  const inspect = new InspectService({ stores, journal, moments: new MomentsService({ stores }), clock, policy });
  const worker = foldingWorker(stores);
  /** Collects a GET event a second after the last one, and folds it into its visitor's profile. */
  const send = async (query: string, cookie?: string) => {
    now += 1000;
    const request: IncomingCollectRequest = {
      method: "GET",
      url: `http://collect.test/event?svc_account=acme&${query}`,
      headers: { get: (name) => (name === "cookie" ? (cookie ?? null) : null) },
      address: "192.0.2.1",
      readBody: async () => ok(new Uint8Array(0)),
    };
    const outcome = await collector.collect(request);
    assert.equal(outcome.ok, true);
    await foldAll(worker);
    const [event] = await stores.events.query({ limit: 1, order: "desc" });
    return event?.seq as number;
  };
  return { stores, collector, inspect, send, advance: (ms: number) => (now += ms) };
}

const email = (value: string) => `__acme_main__5120_${value}__`;

describe("an event explained (issue 32)", () => {
  it("[DEC-COL-09, DEC-PRO-01] gives the journal's decision and what the event changed in the profile", async () => {
    const { inspect, collector, send } = await setup();
    await send("svc_visitor_id=v-1&svc_event=view");
    const seq = await send("svc_visitor_id=v-1&svc_event=purchase&customer_id=c-7", "TAPID=acme/main>v-1|");
    const explained = await inspect.explainEvent(seq);
    assert.equal(explained.ok, true);
    if (!explained.ok) return;
    const entry = collector.journal.latest(1)[0];
    assert.equal(explained.value.decisionKnown, "journal");
    assert.deepEqual(explained.value.decision, entry?.outcome === "stored" ? entry.decision : null);
    assert.equal(explained.value.decision.source, "tapid");
    assert.equal(explained.value.event.seq, seq);
    const changes = explained.value.profileChanges;
    // The customer id makes v-1 a known visitor: its group is named by it.
    assert.equal(changes?.visitorId, "__acme_main__5121_c-7__");
    assert.equal(changes?.before?.eventCount, 1);
    assert.equal(changes?.after.eventCount, 2);
    assert.deepEqual(changes?.changes, [
      { kind: "visitorIdAttribute", id: 5121, name: "customer_id", from: null, to: "c-7" },
      { kind: "attribute", id: 5201, name: "Lifetime event count", from: 1, to: 2 },
      { kind: "attribute", id: 5202, name: "Last event name", from: "view", to: "purchase" },
      { kind: "badge", id: 5205, name: "Buyer", from: false, to: true },
      { kind: "audience", id: 7, name: "Purchasers", from: false, to: true },
      { kind: "builtin", id: "lifetime_event_count", name: "Lifetime event count", from: 1, to: 2 },
    ]);
  });

  it("rebuilds the decision from the stored event once the journal no longer holds it", async () => {
    const { inspect, collector, send } = await setup();
    const seq = await send("svc_visitor_id=v-2&svc_skip_3rd_party_vid_cookies=true");
    collector.forget();
    const explained = await inspect.explainEvent(seq);
    assert.equal(explained.ok && explained.value.decisionKnown, "stored");
    assert.deepEqual(
      explained.ok && explained.value.decision.precedence.map((row) => [row.source, row.value, row.chosen, row.known]),
      [
        ["override", null, false, true],
        ["tapid", null, false, false],
        ["visitor_id", "v-2", true, true],
        ["first_party", null, false, true],
        ["new", null, false, true],
      ],
    );
    assert.equal(explained.ok && explained.value.decision.skipTapid, true);
  });

  it("[VID-08] counts, before the event, the events of every visitor since stitched into its group", async () => {
    const { inspect, send } = await setup();
    await send("svc_visitor_id=anon-1&svc_event=view");
    await send("svc_visitor_id=anon-2&svc_event=view&email_address=ann@example.com");
    const third = await send("svc_visitor_id=anon-1&svc_event=view&email_address=ann@example.com");
    const explained = await inspect.explainEvent(third);
    const changes = explained.ok ? explained.value.profileChanges : null;
    assert.equal(changes?.visitorId, email("ann@example.com"));
    assert.equal(changes?.before?.eventCount, 2);
    assert.equal(changes?.after.eventCount, 3);
  });

  it("has no profile changes for an event whose profile has no configuration", async () => {
    const { inspect, stores } = await setup();
    await stores.events.append([
      {
        account: "acme",
        profile: "gone",
        visitorId: "v-9",
        visitorIdSource: "visitor_id",
        thirdPartyVisitorId: null,
        firstPartyVisitorId: null,
        event: "view",
        datasource: null,
        traceId: null,
        receivedAt: start,
        data: { svc_visitor_id: "v-9" },
      },
    ]);
    const explained = await inspect.explainEvent(1);
    assert.equal(explained.ok && explained.value.profileChanges, null);
    assert.equal(explained.ok && explained.value.decisionKnown, "stored");
  });

  it("[DEC-OPS-01] an unknown sequence number is 404 1404", async () => {
    const { inspect, send } = await setup();
    await send("svc_visitor_id=v-1");
    assert.deepEqual(await inspect.explainEvent(99), {
      ok: false,
      error: managementError("itemNotFound", { what: "Event 99" }),
    });
  });
});

describe("a visitor looked up (issue 32)", () => {
  it("[MOM-01, MOM-08, MOM-10] by a visitor ID: group, profile, visits, latest events and every engine's answer", async () => {
    const { inspect, send, stores } = await setup();
    await send("svc_visitor_id=anon-1&svc_event=view");
    await send("svc_visitor_id=anon-1&svc_event=purchase&email_address=ann@example.com");
    await stores.profiles.setEngineEnabledSince("acme", "main", "later", start + 60_000);
    const found = await inspect.lookupVisitor({ account: "acme", profile: "main", visitorId: "anon-1" });
    assert.equal(found.ok, true);
    if (!found.ok) return;
    const visitor = found.value;
    assert.equal(visitor.visitorId, email("ann@example.com"));
    assert.deepEqual(visitor.members, [email("ann@example.com"), "anon-1"]);
    assert.equal(visitor.profile.eventCount, 2);
    assert.deepEqual(visitor.profile.audiences, [{ id: 7, name: "Purchasers" }]);
    assert.deepEqual(visitor.visits, {
      count: 1,
      current: { startedAt: new Date(start + 1000).toISOString(), open: true },
    });
    assert.deepEqual(
      visitor.events.map((event) => event.event),
      ["purchase", "view"],
    );
    assert.deepEqual(visitor.engines, [
      {
        id: "web",
        name: "Website",
        enabled: true,
        answer: {
          audiences: ["Purchasers"],
          badges: ["Buyer"],
          metrics: { "Lifetime event count": 2 },
          properties: { "Last event name": "purchase" },
          flags: {},
          dates: {},
        },
        status: 200,
        note: null,
      },
      {
        id: "off",
        name: "Disabled engine",
        enabled: false,
        answer: null,
        status: 403,
        note: "The engine is disabled: the visitor-data API answers 403.",
      },
      {
        id: "later",
        name: "Enabled later",
        enabled: true,
        answer: null,
        status: 404,
        note: `No event since the engine was enabled (${new Date(start + 60_000).toISOString()}); the visitor's last was at ${new Date(start + 2000).toISOString()}.`,
      },
    ]);
  });

  it("[VID-02, DEC-PRV-05] by a visitor ID attribute, named by its id or its name, with the value normalised", async () => {
    const { inspect, send, advance } = await setup();
    await send("svc_visitor_id=anon-1&email_address=ann@example.com");
    for (const attribute of ["5120", "email_address"]) {
      const found = await inspect.lookupVisitor({
        account: "acme",
        profile: "main",
        attribute,
        value: " ann@example.com ",
      });
      assert.equal(found.ok && found.value.visitorId, email("ann@example.com"), attribute);
    }
    advance(31 * 60_000);
    const later = await inspect.lookupVisitor({
      account: "acme",
      profile: "main",
      visitorId: email("ann@example.com"),
    });
    assert.equal(
      later.ok && later.value.visits.current.open,
      false,
      "[DEC-PRO-02] the visit ended after 30 idle minutes",
    );
  });

  it("refuses a query that names the visitor neither way, both ways, or by an attribute the profile lacks (400 1400)", async () => {
    const { inspect } = await setup();
    const refusal = (parameter: string, problem: string) => ({
      ok: false,
      error: managementError("invalidParameter", { parameter, problem }),
    });
    const base = { account: "acme", profile: "main" };
    assert.deepEqual(await inspect.lookupVisitor(base), refusal("visitorId", "is required, or attribute and value"));
    assert.deepEqual(
      await inspect.lookupVisitor({ ...base, visitorId: "v", attribute: "5120", value: "a" }),
      refusal("visitorId", "give either visitorId, or attribute and value, not both"),
    );
    assert.deepEqual(
      await inspect.lookupVisitor({ ...base, value: "a" }),
      refusal("attribute", "is required with value"),
    );
    assert.deepEqual(
      await inspect.lookupVisitor({ ...base, attribute: "5120" }),
      refusal("value", "is required with attribute"),
    );
    assert.deepEqual(
      await inspect.lookupVisitor({ ...base, attribute: "phone", value: "1" }),
      refusal("attribute", '"phone" is not a visitor ID attribute of acme/main'),
    );
  });

  it("[DEC-GEN-04, DEC-PRV-01] an unknown account is 404 1240, profile 404 1250, visitor 404 1404", async () => {
    const { inspect } = await setup();
    const lookup = (account: string, profile: string) =>
      inspect.lookupVisitor({ account, profile, visitorId: "nobody" });
    assert.deepEqual(await lookup("nobody", "main"), { ok: false, error: managementError("accountNotFound") });
    assert.deepEqual(await lookup("acme", "nothing"), { ok: false, error: managementError("profileNotFound") });
    assert.deepEqual(await lookup("acme", "main"), { ok: false, error: managementError("visitorNotFound") });
  });
});

describe("names holding U+0000, which no store keeps (second probe, finding 4)", () => {
  it("the admin API's events and visitor lookups, and the moments lookup, answer them as unknown without asking a store", async () => {
    const stores = storesRefusingNul(createMemoryStores());
    const { inspect, collector, send } = await setup(stores);
    await send("svc_visitor_id=v-1&svc_event=view&svc_trace_id=t-1&email_address=ann@example.com");
    for (const filter of [
      { account: "acme\u0000" },
      { profile: "main\u0000" },
      { visitorId: "v-1\u0000x" },
      { visitorIds: ["v-1", "v-1\u0000x"] },
      { event: "view\u0000" },
      { traceId: "t-1\u0000" },
    ])
      assert.deepEqual(await collector.storedEvents({ limit: 10, ...filter }), [], JSON.stringify(filter));
    assert.equal((await collector.storedEvents({ limit: 10, visitorId: "v-1" })).length, 1);

    const returnCodeOf = async (query: Parameters<InspectService["lookupVisitor"]>[0]) => {
      const found = await inspect.lookupVisitor(query);
      return found.ok ? 200 : found.error.returnCode;
    };
    assert.equal(await returnCodeOf({ account: "acme\u0000", profile: "main", visitorId: "v-1" }), 1240);
    assert.equal(await returnCodeOf({ account: "acme", profile: "main\u0000", visitorId: "v-1" }), 1250);
    assert.equal(await returnCodeOf({ account: "acme", profile: "main", visitorId: "v-1\u0000x" }), 1404);
    assert.equal(
      await returnCodeOf({ account: "acme", profile: "main", attribute: "5120", value: "ann@example.com\u0000x" }),
      1404,
    );
    assert.equal(await returnCodeOf({ account: "acme", profile: "main", visitorId: "v-1" }), 200);

    const moments = new MomentsService({ stores });
    const lookup = (names: { account: string | null; profile: string | null; engineId: string | null }) =>
      moments.lookup({ ...names, visitorId: "v-1", referer: "https://example.com/", cookieHeader: null });
    for (const names of [
      { account: "acme\u0000", profile: "main", engineId: "web" },
      { account: "acme", profile: "main\u0000", engineId: "web" },
      { account: null, profile: "main", engineId: "web" },
      { account: "acme", profile: null, engineId: "web" },
      { account: "acme", profile: "main", engineId: null },
    ]) {
      const found = await lookup(names);
      assert.equal(found.ok ? 200 : found.error.code, "engineNotFound", JSON.stringify(names));
    }
    assert.deepEqual(stores.asked, []);
  });
});
