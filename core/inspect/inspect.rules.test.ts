import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  buyerAttributes,
  customerIdAttribute,
  emailIdAttribute,
  profileWith,
  sampleEvent,
} from "../../testing/fixtures.ts";
import type { StoredJournalEntry } from "../collect/collect-journal.ts";
import type { ProfileConfig } from "../config/config.model.ts";
import type { StoredEvent } from "../ports/events.store.ts";
import { applyEvent, type ProfilePolicy } from "../profiles/profile.rules.ts";
import type { VisitorIdSource } from "../visitors/visitor-id.rules.ts";
import { decisionOfStoredEvent, diffProfiles, isJournalEntryOf, sameJson, viewOfProfile } from "./inspect.rules.ts";

const policy: ProfilePolicy = { visitTimeoutMs: 30 * 60_000 };

/** demo.md's acme/main, in part: a counter, the last event name, a purchase flag, the Buyer badge, Purchasers. */
const config: ProfileConfig = profileWith({
  visitorIdAttributes: [emailIdAttribute, customerIdAttribute],
  attributes: buyerAttributes,
  audiences: [{ id: 7, name: "Buyers", conditions: [[{ attribute: 5205, operator: "exists" }]] }],
});

const event = (at: number, seq: number, params: Record<string, unknown>) => ({ at, seq, params });

function stored(overrides: Partial<StoredEvent> = {}): StoredEvent {
  return { ...sampleEvent(), seq: 1, ...overrides };
}

describe("a profile as the console shows it (issue 32)", () => {
  it("[DEC-PRO-01] names attributes, badges, audiences and visitor ID values by the configuration", () => {
    const profile = applyEvent(
      null,
      event(Date.UTC(2024, 0, 1), 1, { svc_event: "purchase", email_address: "ann@example.com" }),
      config,
      policy,
    );
    assert.deepEqual(viewOfProfile(profile, config), {
      firstSeen: "2024-01-01T00:00:00.000Z",
      lastSeen: "2024-01-01T00:00:00.000Z",
      eventCount: 1,
      visitCount: 1,
      attributes: [
        { id: 5201, name: "Lifetime event count", type: "number", pii: false, value: 1 },
        { id: 5202, name: "Last event name", type: "string", pii: false, value: "purchase" },
      ],
      badges: [{ id: 5205, name: "Buyer" }],
      audiences: [{ id: 7, name: "Buyers" }],
      visitorIds: [{ id: 5120, name: "email_address", value: "ann@example.com" }],
    });
  });

  it("[DEC-PRO-01, VID-08] lists what one event changed: visitor IDs, attributes, badges, audiences, built-ins", () => {
    const before = applyEvent(null, event(1_000, 1, { svc_event: "view" }), config, policy);
    const after = applyEvent(before, event(2_000, 2, { svc_event: "purchase", customer_id: "c-7" }), config, policy);
    assert.deepEqual(diffProfiles(before, after, config), [
      { kind: "visitorIdAttribute", id: 5121, name: "customer_id", from: null, to: "c-7" },
      { kind: "attribute", id: 5201, name: "Lifetime event count", from: 1, to: 2 },
      { kind: "attribute", id: 5202, name: "Last event name", from: "view", to: "purchase" },
      { kind: "badge", id: 5205, name: "Buyer", from: false, to: true },
      { kind: "audience", id: 7, name: "Buyers", from: false, to: true },
      { kind: "builtin", id: "lifetime_event_count", name: "Lifetime event count", from: 1, to: 2 },
    ]);
  });

  it("[DEC-PRO-02] a first event changes everything from nothing, and starts a visit", () => {
    const after = applyEvent(null, event(5_000, 1, { svc_event: "view" }), config, policy);
    const changes = diffProfiles(null, after, config);
    assert.deepEqual(
      changes.filter((change) => change.kind === "builtin"),
      [
        { kind: "builtin", id: "lifetime_event_count", name: "Lifetime event count", from: null, to: 1 },
        { kind: "builtin", id: "lifetime_visit_count", name: "Lifetime visit count", from: null, to: 1 },
        { kind: "builtin", id: "first_visit", name: "First visit", from: null, to: 5_000 },
        { kind: "builtin", id: "last_visit", name: "Last visit", from: null, to: 5_000 },
        { kind: "builtin", id: "returning_visitor", name: "Returning visitor", from: null, to: false },
      ],
    );
    assert.equal(
      changes.some((change) => change.kind === "badge"),
      false,
      "a badge not assigned is no change",
    );
  });
});

describe("a stored event's visitor ID decision, rebuilt (DEC-COL-09, COL-14)", () => {
  const rows = (decision: ReturnType<typeof decisionOfStoredEvent>) =>
    decision.precedence.map(({ source, value, chosen, known }) => ({ source, value, chosen, known }));

  it("[VID-04] an override: the rows below it are unknown but the first-party ID, which the event keeps", () => {
    const decision = decisionOfStoredEvent(
      stored({ visitorId: "o-1", visitorIdSource: "override", firstPartyVisitorId: "f-1" }),
    );
    assert.deepEqual(rows(decision), [
      { source: "override", value: "o-1", chosen: true, known: true },
      { source: "tapid", value: null, chosen: false, known: false },
      { source: "visitor_id", value: null, chosen: false, known: false },
      { source: "first_party", value: "f-1", chosen: false, known: true },
      { source: "new", value: null, chosen: false, known: true },
    ]);
    assert.equal(decision.tapidCookie, null);
  });

  it("[VID-03] svc_visitor_id chosen: the rows above had nothing", () => {
    const decision = decisionOfStoredEvent(stored({ visitorId: "v-1", visitorIdSource: "visitor_id" }));
    assert.deepEqual(rows(decision).slice(0, 3), [
      { source: "override", value: null, chosen: false, known: true },
      { source: "tapid", value: null, chosen: false, known: true },
      { source: "visitor_id", value: "v-1", chosen: true, known: true },
    ]);
  });

  it("[VID-05] with skip set, the TAPID above the winner is unknown (it may have been sent and ignored)", () => {
    const decision = decisionOfStoredEvent(
      stored({
        visitorId: "v-1",
        visitorIdSource: "visitor_id",
        data: { svc_visitor_id: "v-1", svc_skip_3rd_party_vid_cookies: "true" },
      }),
    );
    assert.equal(decision.skipTapid, true);
    assert.deepEqual(rows(decision)[1], { source: "tapid", value: null, chosen: false, known: false });
  });

  it("[VID-09] a new ID: every row above had nothing, the new row holds the ID", () => {
    const decision = decisionOfStoredEvent(stored({ visitorId: "n-1", visitorIdSource: "new" }));
    assert.deepEqual(rows(decision).at(-1), { source: "new", value: "n-1", chosen: true, known: true });
    assert.ok(
      rows(decision)
        .slice(0, -1)
        .every((row) => row.value === null && row.known && !row.chosen),
    );
  });

  it("marks exactly the stored source chosen, with the stored visitor ID, for every source", () => {
    const sources: VisitorIdSource[] = ["override", "tapid", "visitor_id", "first_party", "new"];
    fc.assert(
      fc.property(fc.constantFrom(...sources), fc.string({ minLength: 1 }), (source, visitorId) => {
        const decision = decisionOfStoredEvent(
          stored({
            visitorId,
            visitorIdSource: source,
            firstPartyVisitorId: source === "first_party" ? visitorId : null,
          }),
        );
        const chosen = decision.precedence.filter((row) => row.chosen);
        assert.deepEqual(
          chosen.map((row) => [row.source, row.value, row.known]),
          [[source, visitorId, true]],
        );
        assert.equal(decision.source, source);
      }),
    );
  });
});

describe("a journal entry matched to its stored event", () => {
  const base = stored({ traceId: "t-1", receivedAt: 5_000, data: { a: 1, b: { c: [1, 2] } } });
  const entry: StoredJournalEntry = {
    id: 9,
    at: 5_000,
    outcome: "stored",
    method: "GET",
    account: "acme",
    profile: "main",
    event: "view",
    traceId: "t-1",
    visitorId: "v1",
    userAgent: null,
    data: { b: { c: [1, 2] }, a: 1 },
    decision: decisionOfStoredEvent(base),
    request: {
      method: "GET",
      query: "svc_account=acme",
      contentType: null,
      body: null,
      cookie: null,
      referer: null,
      userAgent: null,
    },
  };

  it("matches on account, profile, visitor, time, trace id, event name and data in any key order", () => {
    assert.equal(isJournalEntryOf(entry, base), true);
    for (const other of [
      { ...base, receivedAt: 5_001 },
      { ...base, visitorId: "v2" },
      { ...base, traceId: null },
      { ...base, event: "buy" },
      { ...base, profile: "dev" },
      { ...base, data: { a: 1, b: { c: [2, 1] } } },
    ])
      assert.equal(isJournalEntryOf(entry, other), false, JSON.stringify(other));
  });

  it("sameJson: a value equals its copy with keys in another order, and never equals a changed one", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        assert.equal(sameJson(value, JSON.parse(JSON.stringify(value))), true);
        assert.equal(sameJson({ x: value }, { x: value, y: 1 }), false);
        assert.equal(sameJson([value], [value, value]), false);
      }),
    );
    assert.equal(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 }), true);
    assert.equal(sameJson({ a: [] }, { a: {} }), false);
    assert.equal(sameJson({ a: undefined }, { b: undefined }), false);
  });
});
