import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { refererHost } from "../collect/collect.rules.ts";
import type { AttributeType, EngineDefinition, ProfileConfig } from "../config/config.model.ts";
import { type AttributeValue, maxEpochMs, type VisitorProfile } from "../profiles/profile.rules.ts";
import {
  checkEngineAccess,
  placeAttributeValue,
  readAttributeLookup,
  readFlag,
  refererAllowed,
  type TypedSections,
  visitorDataFor,
} from "./moments.rules.ts";

const config: ProfileConfig = {
  name: "main",
  visitorIdAttributes: [{ id: 5120, name: "email_address", parameter: "email_address" }],
  attributes: [
    { id: 5201, name: "Lifetime event count", type: "number", pii: false, enrichments: [] },
    { id: 5202, name: "Last event name", type: "string", pii: false, enrichments: [] },
    { id: 5203, name: "Has purchased", type: "boolean", pii: false, enrichments: [] },
    { id: 5204, name: "Last purchase", type: "date", pii: false, enrichments: [] },
    { id: 5205, name: "Buyer", type: "badge", pii: false, enrichments: [] },
    { id: 5206, name: "Email", type: "string", pii: true, enrichments: [] },
    { id: 5207, name: "Not selected", type: "number", pii: false, enrichments: [] },
  ],
  audiences: [
    { id: 7, name: "Purchasers", conditions: [[{ attribute: 5203, operator: "equals", value: true }]] },
    { id: 8, name: "Heavy", conditions: [[{ attribute: 5201, operator: "greater_than", value: 100 }]] },
  ],
  engines: [],
  fileDefinitions: [],
};

const engine: EngineDefinition = {
  id: "demo-engine",
  name: "Demo",
  enabled: true,
  allowedDomains: ["localhost", "127.0.0.1", "example.com"],
  keys: "names",
  audiences: [7, 8],
  badges: [5205],
  attributes: [5201, 5202, 5203, 5204, 5206],
};

const profile: VisitorProfile = {
  firstSeenAt: 1,
  lastSeenAt: 2,
  visitStartedAt: 1,
  eventCount: 2,
  visitCount: 1,
  values: {
    "5201": 2,
    "5202": "purchase",
    "5203": true,
    "5204": 1_700_000_000_000,
    "5206": "ann@example.com",
    "5207": 9,
  },
  badges: [5205],
  visitorIds: { "5120": "ann@example.com" },
  lastSeq: 2,
};

describe("the visitor data answer (MOM-03..05, MOM-11, DEC-MOM-01/04)", () => {
  it("an attribute of any name is answered under that name, __proto__ and constructor too", () => {
    const names = ["__proto__", "constructor", "toString", "hasOwnProperty"];
    const named: ProfileConfig = {
      ...config,
      attributes: names.map((name, index) => ({
        id: 6000 + index,
        name,
        type: "number" as const,
        pii: false,
        enrichments: [],
      })),
    };
    const selecting: EngineDefinition = {
      ...engine,
      audiences: [],
      badges: [],
      attributes: names.map((_, index) => 6000 + index),
    };
    const values = Object.fromEntries(names.map((_, index) => [String(6000 + index), index + 1]));
    const data = visitorDataFor({
      account: "acme",
      profileName: "main",
      config: named,
      engine: selecting,
      profile: { ...profile, values },
    });
    assert.equal(JSON.stringify(data.metrics), '{"__proto__":1,"constructor":2,"toString":3,"hasOwnProperty":4}');
    assert.equal(Object.getPrototypeOf(data.metrics), Object.prototype);
  });

  it("keys by names: selected items only, each in its section, PII never", () => {
    assert.deepEqual(visitorDataFor({ account: "acme", profileName: "main", config, engine, profile }), {
      audiences: ["Purchasers"],
      badges: ["Buyer"],
      metrics: { "Lifetime event count": 2 },
      properties: { "Last event name": "purchase" },
      flags: { "Has purchased": true },
      dates: { "Last purchase": 1_700_000_000_000 },
    });
  });

  it("keys by ids: audience UIDs are account_profile_id, attributes and badges their ids", () => {
    const data = visitorDataFor({
      account: "acme",
      profileName: "main",
      config,
      engine: { ...engine, keys: "ids" },
      profile,
    });
    assert.deepEqual(data.audiences, ["acme_main_7"]);
    assert.deepEqual(data.badges, ["5205"]);
    assert.deepEqual(data.metrics, { "5201": 2 });
    assert.deepEqual(data.dates, { "5204": 1_700_000_000_000 });
  });

  it("all six sections are present for a profile with nothing selected", () => {
    const data = visitorDataFor({
      account: "a",
      profileName: "p",
      config,
      engine: { ...engine, audiences: [], badges: [], attributes: [] },
      profile,
    });
    assert.deepEqual(data, { audiences: [], badges: [], metrics: {}, properties: {}, flags: {}, dates: {} });
  });

  it("a PII attribute is never returned, whatever the engine selects and the profile holds", () => {
    fc.assert(
      fc.property(
        fc.subarray([5201, 5202, 5203, 5204, 5205, 5206, 5207]),
        fc.constantFrom("names" as const, "ids" as const),
        (selected, keys) => {
          const text = JSON.stringify(
            visitorDataFor({
              account: "a",
              profileName: "p",
              config,
              engine: { ...engine, keys, attributes: selected, badges: selected },
              profile,
            }),
          );
          assert.ok(!text.includes("ann@example.com"));
          assert.ok(!text.includes("Email") && !text.includes("5206"));
        },
      ),
      { seed: 3, numRuns: 100 },
    );
  });
});

/** The section each attribute type answers in, and what fits it (MOM-03, DEC-MOM-04): the test's own oracle. */
const sectionOf = { number: "metrics", string: "properties", boolean: "flags", date: "dates" } as const;
function fitsSection(section: keyof TypedSections, value: unknown): boolean {
  switch (section) {
    case "metrics":
      return typeof value === "number" && Number.isFinite(value);
    case "properties":
      return typeof value === "string";
    case "flags":
      return typeof value === "boolean";
    case "dates":
      return typeof value === "number" && Number.isInteger(value) && Math.abs(value) <= maxEpochMs;
  }
}

/** Stored values of every kind, the awkward numbers among them (fractions, NaN, ±Infinity, -0, beyond a Date). */
const anyStoredValue: fc.Arbitrary<AttributeValue> = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.maxSafeInteger(),
  fc.constantFrom(12.5, -0, Number.NaN, Number.POSITIVE_INFINITY, maxEpochMs, -maxEpochMs, maxEpochMs + 1, 9e20),
  fc.string(),
  fc.boolean(),
);
const anyAttributeType = fc.constantFrom<AttributeType>("number", "string", "boolean", "date", "badge");

describe("stored values against the attribute's current type (MOM-03, DEC-MOM-04)", () => {
  const empty = (): TypedSections => ({ metrics: {}, properties: {}, flags: {}, dates: {} });

  it("each type takes only the values that fit its section, unconverted", () => {
    const cases: Array<[AttributeType, unknown, Partial<TypedSections>]> = [
      ["number", 12.5, { metrics: { k: 12.5 } }],
      ["number", Number.NaN, {}],
      ["number", Number.POSITIVE_INFINITY, {}],
      ["number", "12", {}],
      ["string", "purchase", { properties: { k: "purchase" } }],
      ["string", 7, {}],
      ["boolean", false, { flags: { k: false } }],
      ["boolean", "true", {}],
      ["date", 1_700_000_000_000, { dates: { k: 1_700_000_000_000 } }],
      ["date", -maxEpochMs, { dates: { k: -maxEpochMs } }],
      ["date", 12.5, {}],
      ["date", maxEpochMs + 1, {}],
      ["date", "2025-01-02", {}],
      ["date", true, {}],
      ["badge", 1, {}],
      ["number", undefined, {}],
    ];
    for (const [type, value, expected] of cases) {
      const sections = empty();
      placeAttributeValue(sections, type, "k", value);
      assert.deepEqual(sections, { ...empty(), ...expected }, `${type} ${String(value)}`);
    }
  });

  it("a number stored before its attribute became a date is left out of the answer, the rest answered", () => {
    const retyped: ProfileConfig = {
      ...config,
      attributes: config.attributes.map((attribute) =>
        attribute.id === 5207 ? { ...attribute, name: "Last purchase amount", type: "date" as const } : attribute,
      ),
    };
    const data = visitorDataFor({
      account: "acme",
      profileName: "main",
      config: retyped,
      engine: { ...engine, attributes: [...engine.attributes, 5207] },
      profile: { ...profile, values: { ...profile.values, "5207": 12.5 } },
    });
    assert.deepEqual(data.dates, { "Last purchase": 1_700_000_000_000 });
    assert.deepEqual(data.metrics, { "Lifetime event count": 2 });
  });

  it("for any stored values and any attribute types, every answered value fits its section and is the stored one", () => {
    const ids = [1, 2, 3, 4, 5, 6];
    fc.assert(
      fc.property(
        fc.tuple(...ids.map(() => anyAttributeType)),
        fc.dictionary(fc.constantFrom(...ids.map(String)), anyStoredValue),
        (types, values) => {
          const attributes = ids.map((id, index) => ({
            id,
            name: `a${id}`,
            type: types[index] as AttributeType,
            pii: false,
            enrichments: [],
          }));
          const data = visitorDataFor({
            account: "a",
            profileName: "p",
            config: { ...config, attributes, audiences: [] },
            engine: { ...engine, keys: "ids", audiences: [], badges: [], attributes: ids },
            profile: { ...profile, values, badges: [] },
          });
          for (const section of ["metrics", "properties", "flags", "dates"] as const) {
            for (const [key, value] of Object.entries(data[section])) {
              assert.ok(fitsSection(section, value), `${section}.${key} = ${String(value)}`);
              assert.ok(Object.is(value, values[key]), `${section}.${key} is the stored value`);
            }
          }
          // Nothing that fits is dropped: the answer holds exactly the fitting values.
          for (const attribute of attributes) {
            if (attribute.type === "badge") continue;
            const section = sectionOf[attribute.type];
            const stored = values[String(attribute.id)];
            assert.equal(String(attribute.id) in data[section], stored !== undefined && fitsSection(section, stored));
          }
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });
});

describe("engine access (MOM-06, MOM-08, DEC-MOM-02)", () => {
  it("a domain allows itself and its subdomains, nothing else", () => {
    assert.equal(refererAllowed(engine, "https://example.com/page"), true);
    assert.equal(refererAllowed(engine, "https://shop.example.com/"), true);
    assert.equal(refererAllowed(engine, "http://localhost:3000/x"), true);
    assert.equal(refererAllowed(engine, "https://badexample.com/"), false);
    assert.equal(refererAllowed(engine, "https://example.com.evil.net/"), false);
    assert.equal(refererAllowed(engine, undefined), false);
    assert.equal(refererAllowed({ ...engine, allowedDomains: [] }, undefined), true);
  });

  it("a disabled engine is 403 before the referer is looked at", () => {
    const disabled = checkEngineAccess({ ...engine, enabled: false }, "https://example.com/");
    assert.equal(disabled.ok ? 0 : disabled.error.status, 403);
    assert.equal(disabled.ok ? "" : disabled.error.code, "engineDisabled");
    const elsewhere = checkEngineAccess(engine, "https://other.net/");
    assert.equal(elsewhere.ok ? "" : elsewhere.error.code, "refererNotAllowed");
  });

  it("hosts are read from URLs with ports, credentials and IPv6", () => {
    assert.equal(refererHost("https://user:pw@Shop.Example.com:8443/a?b#c"), "shop.example.com");
    assert.equal(refererHost("http://[::1]:8080/"), "[::1]");
    assert.equal(refererHost("example.com"), null);
  });

  it("a Referer is read as a browser reads the URL: a backslash ends the host, whatever follows an @", () => {
    // A hand-written parser took what follows the last @ before a / as the host: example.com.
    assert.equal(refererHost("http://evil.net\\@example.com/"), "evil.net");
    assert.equal(refererAllowed(engine, "http://evil.net\\@example.com/"), false);
    assert.equal(refererAllowed(engine, "https://evil.net\\@shop.example.com/page"), false);
    assert.equal(refererAllowed(engine, " https://shop.example.com/ "), true);
  });
});

describe("parameters (MOM-12)", () => {
  it("attributeId must be numeric and a visitor ID attribute; attributeValue is required", () => {
    assert.deepEqual(readAttributeLookup(config, "5120", "ann@example.com"), {
      ok: true,
      value: { attributeId: 5120, value: "ann@example.com" },
    });
    for (const [id, value, problem] of [
      ["abc", "x", "attributeId must be numeric"],
      ["5201", "x", "attributeId 5201 is not a visitor ID attribute of this profile"],
      ["5120", undefined, "attributeValue is required"],
      [undefined, "x", "attributeId is required"],
    ] as const) {
      const result = readAttributeLookup(config, id, value);
      assert.equal(result.ok ? "" : result.error.message, `Bad request: ${problem}`);
    }
  });

  it("[DEC-PRV-05, DEC-MOM-02] attributeValue is normalised as collection keeps it; white space only is no value (400)", () => {
    assert.deepEqual(readAttributeLookup(config, "5120", " Ann@example.com\t"), {
      ok: true,
      value: { attributeId: 5120, value: "Ann@example.com" },
    });
    const blank = readAttributeLookup(config, "5120", " \u00a0\t");
    assert.equal(blank.ok ? "" : blank.error.message, "Bad request: attributeValue is required");
  });

  it("flags are true or false", () => {
    assert.deepEqual(readFlag("suppressNotFound", "TRUE"), { ok: true, value: true });
    assert.deepEqual(readFlag("suppressNotFound", undefined), { ok: true, value: false });
    assert.equal(readFlag("suppressNotFound", "yes").ok, false);
  });
});
