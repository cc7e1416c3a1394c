import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { ProfileConfig } from "../config/config.model.ts";
import type { VisitorProfile } from "../profiles/profile.rules.ts";
import { buildVisitorRecord, visitorRecordAnswer } from "./visitor-record.rules.ts";

const config: ProfileConfig = {
  name: "main",
  visitorIdAttributes: [
    { id: 5120, name: "email_address", parameter: "email_address" },
    { id: 5121, name: "customer_id", parameter: "customer_id" },
  ],
  attributes: [
    { id: 5201, name: "Lifetime event count", type: "number", pii: false, enrichments: [] },
    { id: 5202, name: "Last event name", type: "string", pii: false, enrichments: [] },
    { id: 5203, name: "Has purchased", type: "boolean", pii: false, enrichments: [] },
    { id: 5204, name: "Last purchase", type: "date", pii: false, enrichments: [] },
    { id: 5205, name: "Buyer", type: "badge", pii: false, enrichments: [] },
    { id: 5206, name: "Email", type: "string", pii: true, enrichments: [] },
    { id: 5208, name: "Never set", type: "number", pii: false, enrichments: [] },
  ],
  audiences: [
    { id: 7, name: "Purchasers", conditions: [[{ attribute: 5203, operator: "equals", value: true }]] },
    { id: 8, name: "Heavy", conditions: [[{ attribute: 5201, operator: "greater_than", value: 100 }]] },
  ],
  engines: [],
  fileDefinitions: [],
};

const profile: VisitorProfile = {
  firstSeenAt: 1_000,
  lastSeenAt: 60_000,
  visitStartedAt: 1_000,
  eventCount: 2,
  visitCount: 1,
  values: { "5201": 2, "5202": "purchase", "5203": true, "5204": 1_700_000_000_000, "5206": "ann@example.com" },
  badges: [5205],
  visitorIds: { "5120": "ann@example.com" },
  lastSeq: 2,
};

describe("the visitor record (PRV-02, PRV-03, DEC-PRV-01)", () => {
  it("[PRV-03, DEC-PRV-01] prettyName=false keys attributes, badges and secondary ids by id, audiences by UID; PII included", () => {
    assert.deepEqual(buildVisitorRecord({ account: "acme", profileName: "main", config, profile, prettyName: false }), {
      metrics: { "5201": 2 },
      dates: { "5204": 1_700_000_000_000 },
      properties: { "5202": "purchase", "5206": "ann@example.com" },
      flags: { "5203": true },
      badges: ["5205"],
      audiences: ["acme_main_7"],
      secondary_ids: { "5120": "ann@example.com" },
    });
  });

  it("[PRV-03, DEC-PRV-01] prettyName=true keys everything by name", () => {
    assert.deepEqual(buildVisitorRecord({ account: "acme", profileName: "main", config, profile, prettyName: true }), {
      metrics: { "Lifetime event count": 2 },
      dates: { "Last purchase": 1_700_000_000_000 },
      properties: { "Last event name": "purchase", Email: "ann@example.com" },
      flags: { "Has purchased": true },
      badges: ["Buyer"],
      audiences: ["Purchasers"],
      secondary_ids: { email_address: "ann@example.com" },
    });
  });

  it("[DEC-PRV-01] every section is present even when the profile holds nothing", () => {
    const empty: VisitorProfile = { ...profile, values: {}, badges: [], visitorIds: {} };
    assert.deepEqual(buildVisitorRecord({ account: "acme", profileName: "main", config, profile: empty, prettyName: false }), {
      metrics: {},
      dates: {},
      properties: {},
      flags: {},
      badges: [],
      audiences: [],
      secondary_ids: {},
    });
  });

  it("[DEC-PRV-01, DEC-PRO-02] the answer carries both spellings of the transaction id and live while the visit is open", () => {
    const policy = { visitTimeoutMs: 30 * 60_000 };
    const base = { transactionId: "t1", account: "acme", profileName: "main", config, profile, prettyName: false, policy };
    const open = visitorRecordAnswer({ ...base, now: profile.lastSeenAt + 29 * 60_000 });
    assert.equal(open.transaction_id, "t1");
    assert.equal(open.transactionId, "t1");
    assert.equal(open.live, true);
    assert.deepEqual(Object.keys(open), ["transaction_id", "transactionId", "live", "visitor"]);
    assert.equal(visitorRecordAnswer({ ...base, now: profile.lastSeenAt + 30 * 60_000 }).live, false);
  });

  it("a value of the wrong type for its attribute is left out, and nothing throws, for any stored values", () => {
    const anyValue = fc.oneof(fc.integer(), fc.string(), fc.boolean());
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom("5201", "5202", "5203", "5204", "5206", "9999"), anyValue), fc.boolean(), (values, prettyName) => {
        const record = buildVisitorRecord({ account: "acme", profileName: "main", config, profile: { ...profile, values }, prettyName });
        for (const value of Object.values(record.metrics)) assert.equal(typeof value, "number");
        for (const value of Object.values(record.dates)) assert.equal(typeof value, "number");
        for (const value of Object.values(record.properties)) assert.equal(typeof value, "string");
        for (const value of Object.values(record.flags)) assert.equal(typeof value, "boolean");
      }),
    );
  });
});
