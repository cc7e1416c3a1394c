import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { customerIdAttribute, emailIdAttribute } from "../../testing/fixtures.ts";
import type { AttributeType, ProfileConfig } from "../config/config.model.ts";
import { type AttributeValue, maxEpochMs, type VisitorProfile } from "../profiles/profile.rules.ts";
import { buildVisitorRecord, visitorRecordAnswer } from "./visitor-record.rules.ts";

const config: ProfileConfig = {
  name: "main",
  visitorIdAttributes: [emailIdAttribute, customerIdAttribute],
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
  it("[DEC-PRV-01] with prettyName=true, an attribute or a visitor ID attribute named __proto__ is in the record", () => {
    const named: ProfileConfig = {
      ...config,
      visitorIdAttributes: [{ id: 5120, name: "__proto__", parameter: "email_address" }],
      attributes: [{ id: 5201, name: "__proto__", type: "number", pii: false, enrichments: [] }],
      audiences: [],
    };
    const record = buildVisitorRecord({
      account: "acme",
      profileName: "main",
      config: named,
      profile,
      prettyName: true,
    });
    assert.equal(JSON.stringify(record.metrics), '{"__proto__":2}');
    assert.equal(JSON.stringify(record.secondary_ids), '{"__proto__":"ann@example.com"}');
  });

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
    assert.deepEqual(
      buildVisitorRecord({ account: "acme", profileName: "main", config, profile: empty, prettyName: false }),
      {
        metrics: {},
        dates: {},
        properties: {},
        flags: {},
        badges: [],
        audiences: [],
        secondary_ids: {},
      },
    );
  });

  it("[DEC-PRV-01, DEC-PRO-02] the answer carries both spellings of the transaction id and live while the visit is open", () => {
    const policy = { visitTimeoutMs: 30 * 60_000 };
    const base = {
      transactionId: "t1",
      account: "acme",
      profileName: "main",
      config,
      profile,
      prettyName: false,
      policy,
    };
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
      fc.property(
        fc.dictionary(fc.constantFrom("5201", "5202", "5203", "5204", "5206", "9999"), anyValue),
        fc.boolean(),
        (values, prettyName) => {
          const record = buildVisitorRecord({
            account: "acme",
            profileName: "main",
            config,
            profile: { ...profile, values },
            prettyName,
          });
          for (const value of Object.values(record.metrics)) assert.equal(typeof value, "number");
          for (const value of Object.values(record.dates)) assert.equal(typeof value, "number");
          for (const value of Object.values(record.properties)) assert.equal(typeof value, "string");
          for (const value of Object.values(record.flags)) assert.equal(typeof value, "boolean");
        },
      ),
    );
  });

  it("[DEC-PRV-01] a number stored before its attribute became a date is left out of the record, the rest answered", () => {
    const retyped: ProfileConfig = {
      ...config,
      attributes: [
        ...config.attributes,
        { id: 5207, name: "Last purchase amount", type: "date", pii: false, enrichments: [] },
      ],
    };
    const record = buildVisitorRecord({
      account: "acme",
      profileName: "main",
      config: retyped,
      profile: { ...profile, values: { ...profile.values, "5207": 12.5 } },
      prettyName: true,
    });
    assert.deepEqual(record.dates, { "Last purchase": 1_700_000_000_000 });
    assert.deepEqual(record.metrics, { "Lifetime event count": 2 });
  });

  it("[DEC-PRV-01] for any stored values and any attribute types, every answered value fits its section and is the stored one", () => {
    const sectionOf = { number: "metrics", string: "properties", boolean: "flags", date: "dates" } as const;
    const fitsSection: Record<(typeof sectionOf)[keyof typeof sectionOf], (value: unknown) => boolean> = {
      metrics: (value) => typeof value === "number" && Number.isFinite(value),
      properties: (value) => typeof value === "string",
      flags: (value) => typeof value === "boolean",
      dates: (value) => typeof value === "number" && Number.isInteger(value) && Math.abs(value) <= maxEpochMs,
    };
    const anyStoredValue: fc.Arbitrary<AttributeValue> = fc.oneof(
      fc.double(),
      fc.integer(),
      fc.maxSafeInteger(),
      fc.constantFrom(12.5, Number.NaN, Number.NEGATIVE_INFINITY, maxEpochMs, -maxEpochMs, -maxEpochMs - 1, 9e20),
      fc.string(),
      fc.boolean(),
    );
    const ids = [1, 2, 3, 4, 5, 6];
    fc.assert(
      fc.property(
        fc.tuple(...ids.map(() => fc.constantFrom<AttributeType>("number", "string", "boolean", "date", "badge"))),
        fc.dictionary(fc.constantFrom(...ids.map(String)), anyStoredValue),
        fc.boolean(),
        (types, values, pii) => {
          const attributes = ids.map((id, index) => ({
            id,
            name: `a${id}`,
            type: types[index] as AttributeType,
            pii,
            enrichments: [],
          }));
          const record = buildVisitorRecord({
            account: "acme",
            profileName: "main",
            config: { ...config, attributes, audiences: [] },
            profile: { ...profile, values, badges: [] },
            prettyName: false,
          });
          for (const section of ["metrics", "properties", "flags", "dates"] as const) {
            for (const [key, value] of Object.entries(record[section])) {
              assert.ok(fitsSection[section](value), `${section}.${key} = ${String(value)}`);
              assert.ok(Object.is(value, values[key]), `${section}.${key} is the stored value`);
            }
          }
          // Nothing that fits is dropped, PII included (the data subject's own record).
          for (const attribute of attributes) {
            if (attribute.type === "badge") continue;
            const section = sectionOf[attribute.type];
            const stored = values[String(attribute.id)];
            assert.equal(String(attribute.id) in record[section], stored !== undefined && fitsSection[section](stored));
          }
        },
      ),
      { seed: 11, numRuns: 300 },
    );
  });
});
