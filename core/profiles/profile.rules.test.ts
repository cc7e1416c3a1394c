import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { customerIdAttribute, emailIdAttribute, eventCountAttribute } from "../../testing/fixtures.ts";
import type { ProfileConfig } from "../config/config.model.ts";
import {
  applyEvent,
  audiencesOf,
  buildProfile,
  builtinValueOf,
  coerceToAttribute,
  conditionHolds,
  isVisitOpen,
  type ProfileEvent,
  profilePolicyFromLimits,
} from "./profile.rules.ts";
import { chooseCanonical, identitiesOfEvent } from "./stitching.rules.ts";

const policy = profilePolicyFromLimits({ visitTimeoutMinutes: 30 });
const minute = 60_000;
const purchase = { parameter: "svc_event", operator: "equals", value: "purchase" } as const;

/** acme/main of demo.md. */
const demo: ProfileConfig = {
  name: "main",
  visitorIdAttributes: [emailIdAttribute, customerIdAttribute],
  attributes: [
    eventCountAttribute,
    {
      id: 5202,
      name: "Last event name",
      type: "string",
      pii: false,
      enrichments: [
        { when: "any_event", conditions: [], action: { type: "set_from_parameter", parameter: "svc_event" } },
      ],
    },
    {
      id: 5203,
      name: "Has purchased",
      type: "boolean",
      pii: false,
      enrichments: [{ when: "any_event", conditions: [[purchase]], action: { type: "set_value", value: true } }],
    },
    {
      id: 5204,
      name: "Last purchase",
      type: "date",
      pii: false,
      enrichments: [{ when: "any_event", conditions: [[purchase]], action: { type: "set_event_time" } }],
    },
    {
      id: 5205,
      name: "Buyer",
      type: "badge",
      pii: false,
      enrichments: [{ when: "any_event", conditions: [[purchase]], action: { type: "assign_badge" } }],
    },
    {
      id: 5206,
      name: "Email",
      type: "string",
      pii: true,
      enrichments: [
        { when: "any_event", conditions: [], action: { type: "set_from_parameter", parameter: "email_address" } },
      ],
    },
    {
      id: 5300,
      name: "Visits seen",
      type: "number",
      pii: false,
      enrichments: [{ when: "new_visit", conditions: [], action: { type: "increment", by: 1 } }],
    },
    {
      id: 5301,
      name: "First source",
      type: "string",
      pii: false,
      enrichments: [
        { when: "new_visitor", conditions: [], action: { type: "set_from_parameter", parameter: "source" } },
      ],
    },
    {
      id: 5302,
      name: "Spend",
      type: "number",
      pii: false,
      enrichments: [
        {
          when: "any_event",
          conditions: [[purchase, { parameter: "amount", operator: "greater_than", value: 0 }]],
          action: { type: "increment_by_parameter", parameter: "amount" },
        },
      ],
    },
  ],
  audiences: [{ id: 7, name: "Purchasers", conditions: [[{ attribute: 5203, operator: "equals", value: true }]] }],
  engines: [],
  fileDefinitions: [],
};

let seq = 0;
function event(at: number, params: Record<string, unknown>): ProfileEvent {
  seq += 1;
  return { at, seq, params };
}

describe("profile engine (DEC-PRO-01, DEC-PRO-02)", () => {
  it("builds the demo attributes, badge and audience from a view and a purchase", () => {
    const t0 = Date.UTC(2026, 10, 21, 9);
    const profile = buildProfile(
      [
        event(t0, { svc_event: "view", source: "ad", email_address: "ann@example.com" }),
        event(t0 + minute, { svc_event: "purchase", amount: "12.5" }),
      ],
      demo,
      policy,
    );
    assert.ok(profile);
    assert.deepEqual(profile.values, {
      "5201": 2,
      "5202": "purchase",
      "5203": true,
      "5204": t0 + minute,
      "5206": "ann@example.com",
      "5300": 1,
      "5301": "ad",
      "5302": 12.5,
    });
    assert.deepEqual(profile.badges, [5205]);
    assert.deepEqual(profile.visitorIds, { "5120": "ann@example.com" });
    assert.deepEqual(audiencesOf(profile, demo.audiences), [7]);
    assert.equal(profile.eventCount, 2);
    assert.equal(profile.visitCount, 1);
  });

  it("a visit ends after 30 minutes without events: new-visit enrichments fire again, new-visitor ones do not", () => {
    const t0 = 1_000_000;
    const profile = buildProfile(
      [
        event(t0, { source: "ad" }),
        event(t0 + 29 * minute, { source: "mail" }),
        event(t0 + 59 * minute, { source: "tv" }),
      ],
      demo,
      policy,
    );
    assert.equal(profile?.visitCount, 2);
    assert.equal(profile?.values["5300"], 2);
    assert.equal(profile?.values["5301"], "ad");
    assert.equal(profile?.visitStartedAt, t0 + 59 * minute);
    assert.equal(isVisitOpen(profile!, t0 + 59 * minute + 29 * minute, policy), true);
    assert.equal(isVisitOpen(profile!, t0 + 59 * minute + 30 * minute, policy), false);
  });

  it("a value that cannot be the attribute's type leaves the attribute as it was", () => {
    const profile = buildProfile(
      [event(1, { svc_event: "purchase", amount: "12" }), event(2, { svc_event: "purchase", amount: "lots" })],
      demo,
      policy,
    );
    assert.equal(profile?.values["5302"], 12);
  });

  it("[MOM-03, DEC-MOM-04] a date is an integer of epoch milliseconds within the Date range; anything else is not a date", () => {
    const table: Array<[unknown, number | null]> = [
      [1_700_000_000_000, 1_700_000_000_000],
      ["1700000000000", 1_700_000_000_000],
      [0, 0],
      [8.64e15, 8.64e15],
      [-8.64e15, -8.64e15],
      ["2026-11-21T09:00:00Z", Date.UTC(2026, 10, 21, 9)],
      [1.5, null],
      ["1.5", null],
      ["9e20", null],
      [9e20, null],
      [8.64e15 + 1, null],
      [-8.64e15 - 1, null],
      ["not a date", null],
      [true, null],
    ];
    for (const [value, expected] of table) assert.equal(coerceToAttribute("date", value), expected, String(value));
  });

  it("[MOM-03] a date attribute set from any parameter is an integer or absent", () => {
    const lastSeen = {
      ...demo,
      attributes: [
        {
          id: 5400,
          name: "Seen at",
          type: "date" as const,
          pii: false,
          enrichments: [
            {
              when: "any_event" as const,
              conditions: [],
              action: { type: "set_from_parameter" as const, parameter: "at" },
            },
          ],
        },
      ],
    };
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.string(), fc.integer(), fc.double().map(String)), (at) => {
        const value = buildProfile([event(1, { at })], lastSeen, policy)?.values["5400"];
        assert.ok(
          value === undefined || (Number.isInteger(value) && Math.abs(value as number) <= 8.64e15),
          String(value),
        );
      }),
    );
  });

  it("operators", () => {
    const cases: Array<[Parameters<typeof conditionHolds>[0], unknown, boolean]> = [
      [{ parameter: "p", operator: "equals", value: "a" }, "a", true],
      [{ parameter: "p", operator: "equals", value: 5 }, "5", true],
      [{ parameter: "p", operator: "not_equals", value: "a" }, undefined, true],
      [{ parameter: "p", operator: "contains", value: "ell" }, "hello", true],
      [{ parameter: "p", operator: "starts_with", value: "he" }, "hello", true],
      [{ parameter: "p", operator: "exists" }, "", false],
      [{ parameter: "p", operator: "not_exists" }, null, true],
      [{ parameter: "p", operator: "greater_than", value: 10 }, "10.5", true],
      [{ parameter: "p", operator: "less_than", value: 10 }, "x", false],
    ];
    for (const [condition, actual, expected] of cases)
      assert.equal(conditionHolds(condition, actual), expected, JSON.stringify([condition, actual]));
  });

  const arbitraryEvents = fc.array(
    fc.record({
      at: fc.integer({ min: 0, max: 6 * 3_600_000 }),
      params: fc.record(
        {
          svc_event: fc.constantFrom("view", "purchase", "cart"),
          amount: fc.oneof(fc.constant(undefined), fc.integer({ min: -5, max: 50 }).map(String)),
          source: fc.constantFrom("ad", "mail"),
        },
        { requiredKeys: ["svc_event"] },
      ),
    }),
    { maxLength: 25 },
  );
  const numbered = (events: Array<{ at: number; params: Record<string, unknown> }>) =>
    events.map((entry, index) => ({ ...entry, seq: index + 1 }));

  it("the order of events within a visitor decides the result, not the order they are handed in", () => {
    fc.assert(
      fc.property(arbitraryEvents.map(numbered), fc.integer(), (events, salt) => {
        const shuffled = [...events].sort((a, b) => ((a.seq * 7919 + salt) % 101) - ((b.seq * 7919 + salt) % 101));
        assert.deepEqual(buildProfile(shuffled, demo, policy), buildProfile(events, demo, policy));
      }),
      { seed: 1121, numRuns: 200 },
    );
  });

  it("folding event by event in order is the same as building from all events", () => {
    fc.assert(
      fc.property(arbitraryEvents.map(numbered), (events) => {
        const ordered = [...events].sort((a, b) => a.seq - b.seq);
        const stepwise = ordered.reduce<ReturnType<typeof buildProfile>>(
          (profile, entry) => applyEvent(profile, entry, demo, policy),
          null,
        );
        assert.deepEqual(stepwise, buildProfile(events, demo, policy));
        assert.equal(stepwise?.eventCount ?? 0, events.length);
      }),
      { seed: 1122, numRuns: 200 },
    );
  });

  it("merging visitors is associative and commutative: any grouping of the same events gives one profile", () => {
    fc.assert(
      fc.property(arbitraryEvents, arbitraryEvents, arbitraryEvents, (a, b, c) => {
        const all = numbered([...a, ...b, ...c]);
        const [ea, eb, ec] = [
          all.slice(0, a.length),
          all.slice(a.length, a.length + b.length),
          all.slice(a.length + b.length),
        ];
        const left = buildProfile([...buildProfileInputs(ea, eb), ...ec], demo, policy);
        const right = buildProfile([...ea, ...buildProfileInputs(eb, ec)], demo, policy);
        const swapped = buildProfile([...ec, ...eb, ...ea], demo, policy);
        assert.deepEqual(left, right);
        assert.deepEqual(left, swapped);
      }),
      { seed: 1123, numRuns: 150 },
    );
    /** A merged group is represented by the union of its members' events. */
    function buildProfileInputs<T>(x: T[], y: T[]): T[] {
      return [...x, ...y];
    }
  });
});

describe("visitor ID attributes in conditions (DEC-PRO-01, VID-08)", () => {
  it("[DEC-PRO-01, VID-08] an audience over a visitor ID attribute reads the value the profile captured", () => {
    const audiences = [
      { id: 8, name: "Known by e-mail", conditions: [[{ attribute: 5120, operator: "exists" as const }]] },
      {
        id: 9,
        name: "Ann",
        conditions: [[{ attribute: 5120, operator: "equals" as const, value: "ann@example.com" }]],
      },
      { id: 10, name: "Anonymous", conditions: [[{ attribute: 5120, operator: "not_exists" as const }]] },
    ];
    const known = buildProfile([event(1, { email_address: "ann@example.com" })], demo, policy);
    const anonymous = buildProfile([event(1, {})], demo, policy);
    assert.ok(known && anonymous);
    assert.deepEqual(audiencesOf(known, audiences), [8, 9]);
    assert.deepEqual(audiencesOf(anonymous, audiences), [10]);
  });

  it("[DEC-PRO-01, VID-08] an enrichment condition over an attribute reads visitor ID values and badges as audiences do", () => {
    const config: ProfileConfig = {
      ...demo,
      attributes: [
        ...demo.attributes,
        {
          id: 5400,
          name: "Known",
          type: "string",
          pii: false,
          enrichments: [
            {
              when: "any_event",
              conditions: [[{ attribute: 5120, operator: "exists" }]],
              action: { type: "set_value", value: "yes" },
            },
          ],
        },
        {
          id: 5401,
          name: "Buyer seen",
          type: "boolean",
          pii: false,
          enrichments: [
            {
              when: "any_event",
              conditions: [[{ attribute: 5205, operator: "equals", value: true }]],
              action: { type: "set_value", value: true },
            },
          ],
        },
      ],
    };
    const first = buildProfile([event(1, { svc_event: "view" })], config, policy);
    assert.equal(first?.values["5400"], undefined);
    assert.equal(first?.values["5401"], undefined);
    const later = buildProfile(
      [event(1, { svc_event: "view" }), event(2, { svc_event: "purchase", email_address: "ann@example.com" })],
      config,
      policy,
    );
    // The visitor ID value the event brings is read at once; the badge the same event assigns, from the next.
    assert.equal(later?.values["5400"], "yes");
    assert.equal(later?.values["5401"], undefined);
    const next = buildProfile(
      [
        event(1, { svc_event: "view" }),
        event(2, { svc_event: "purchase", email_address: "ann@example.com" }),
        event(3, { svc_event: "view" }),
      ],
      config,
      policy,
    );
    assert.equal(next?.values["5401"], true);
  });

  it("[DEC-PRO-01] enrichment conditions over attributes read them as they stood before the event, whatever the order of the attributes", () => {
    const counter = {
      id: 5500,
      name: "Views",
      type: "number" as const,
      pii: false,
      enrichments: [{ when: "any_event" as const, conditions: [], action: { type: "increment" as const, by: 1 } }],
    };
    const second = {
      id: 5501,
      name: "Came back",
      type: "boolean" as const,
      pii: false,
      enrichments: [
        {
          when: "any_event" as const,
          conditions: [[{ attribute: 5500, operator: "greater_than" as const, value: 0 }]],
          action: { type: "set_value" as const, value: true },
        },
      ],
    };
    for (const attributes of [
      [counter, second],
      [second, counter],
    ]) {
      const config: ProfileConfig = { ...demo, attributes };
      assert.equal(buildProfile([event(1, {})], config, policy)?.values["5501"], undefined);
      assert.equal(buildProfile([event(1, {}), event(2, {})], config, policy)?.values["5501"], true);
    }
  });
});

describe("known visitor IDs (DEC-COL-11, VID-02)", () => {
  it("[DEC-COL-11] the event's known visitor ID sets its visitor ID attribute", () => {
    const profile = buildProfile(
      [{ at: 1, seq: 1, params: {}, knownVisitor: { attributeId: 5121, value: "cust77" } }],
      demo,
      policy,
    );
    assert.deepEqual(profile?.visitorIds, { "5121": "cust77" });
  });

  it("[DEC-COL-11] a known visitor ID naming an attribute that is not a visitor ID attribute of the profile sets nothing", () => {
    for (const attributeId of [5201, 9999]) {
      const profile = buildProfile(
        [{ at: 1, seq: 1, params: {}, knownVisitor: { attributeId, value: "x" } }],
        demo,
        policy,
      );
      assert.deepEqual(profile?.visitorIds, {}, String(attributeId));
    }
  });

  it("[DEC-COL-11] the attribute's parameter, sent in so many words, wins over the known visitor ID", () => {
    const profile = buildProfile(
      [{ at: 1, seq: 1, params: { customer_id: "c-2" }, knownVisitor: { attributeId: 5121, value: "cust77" } }],
      demo,
      policy,
    );
    assert.deepEqual(profile?.visitorIds, { "5121": "c-2" });
  });
});

describe("counters (DEC-PRO-01)", () => {
  const counters: ProfileConfig = {
    ...demo,
    attributes: [
      {
        id: 5500,
        name: "Big steps",
        type: "number",
        pii: false,
        enrichments: [{ when: "any_event", conditions: [], action: { type: "increment", by: 1e308 } }],
      },
      {
        id: 5501,
        name: "Total",
        type: "number",
        pii: false,
        enrichments: [
          { when: "any_event", conditions: [], action: { type: "increment_by_parameter", parameter: "amount" } },
        ],
      },
    ],
  };

  it("[DEC-PRO-01] an increment whose result is not finite leaves the value as it was; the next one counts from it", () => {
    const profile = buildProfile(
      [event(1, { amount: "1e308" }), event(2, { amount: 1e308 }), event(3, { amount: "-5e307" })],
      counters,
      policy,
    );
    assert.equal(profile?.values["5500"], 1e308);
    assert.equal(profile?.values["5501"], 5e307);
  });

  it("[DEC-PRO-01] a number attribute is always finite, for any amounts", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.double(), fc.double().map(String), fc.constantFrom("1e308", "-1e308", "1e400")), {
          maxLength: 8,
        }),
        (amounts) => {
          const profile = buildProfile(
            amounts.map((amount, index) => ({ at: index, seq: index + 1, params: { amount } })),
            counters,
            policy,
          );
          for (const key of ["5500", "5501"]) {
            const value = profile?.values[key];
            assert.ok(value === undefined || Number.isFinite(value), `${key}: ${String(value)}`);
          }
        },
      ),
    );
  });
});

describe("parameters are the event's own (DEC-PRO-01)", () => {
  const prototypeNames = [
    "constructor",
    "toString",
    "valueOf",
    "__proto__",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toLocaleString",
    "__defineGetter__",
    "__lookupGetter__",
  ];
  const configFor = (name: string): ProfileConfig => ({
    ...demo,
    visitorIdAttributes: [{ id: 5602, name: "odd id", parameter: name }],
    attributes: [
      {
        id: 5600,
        name: "Copied",
        type: "string",
        pii: false,
        enrichments: [{ when: "any_event", conditions: [], action: { type: "set_from_parameter", parameter: name } }],
      },
      {
        id: 5601,
        name: "Seen",
        type: "badge",
        pii: false,
        enrichments: [
          {
            when: "any_event",
            conditions: [[{ parameter: name, operator: "exists" }]],
            action: { type: "assign_badge" },
          },
        ],
      },
      {
        id: 5603,
        name: "Count",
        type: "number",
        pii: false,
        enrichments: [
          { when: "any_event", conditions: [], action: { type: "increment_by_parameter", parameter: name } },
        ],
      },
    ],
    audiences: [],
  });

  it("[DEC-PRO-01] a name of Object.prototype is no parameter unless the event carries it", () => {
    fc.assert(
      fc.property(fc.constantFrom(...prototypeNames), fc.boolean(), (name, nullPrototype) => {
        const config = configFor(name);
        const params: Record<string, unknown> = nullPrototype
          ? Object.assign(Object.create(null) as object, { svc_event: "view" })
          : { svc_event: "view" };
        const absent = buildProfile([event(1, params)], config, policy);
        assert.deepEqual(absent?.values, {});
        assert.deepEqual(absent?.badges, []);
        assert.deepEqual(absent?.visitorIds, {});
        assert.deepEqual(identitiesOfEvent({ visitorId: "anon", params }, "acme", "main", config), []);

        const sent = JSON.parse(`{"svc_event":"view",${JSON.stringify(name)}:"7"}`) as Record<string, unknown>;
        const present = buildProfile([event(2, sent)], config, policy);
        assert.deepEqual(present?.values, { "5600": "7", "5603": 7 });
        assert.deepEqual(present?.badges, [5601]);
        assert.deepEqual(present?.visitorIds, { "5602": "7" });
        assert.deepEqual(identitiesOfEvent({ visitorId: "anon", params: sent }, "acme", "main", config), [
          { key: `__acme_main__5602_7__`, attributeId: 5602, value: "7" },
        ]);
      }),
    );
  });
});

describe("values read from events (DEC-PRO-01, MOM-03)", () => {
  it("[MOM-03, DEC-MOM-04] date text is ISO 8601 only; zone-less is UTC; days that do not exist are not dates", () => {
    const table: Array<[unknown, number | null]> = [
      ["2026-11-21", Date.UTC(2026, 10, 21)],
      ["2026-11-21T09:00", Date.UTC(2026, 10, 21, 9)],
      ["2026-11-21 09:00:00.250", Date.UTC(2026, 10, 21, 9, 0, 0, 250)],
      ["2026-11-21T09:00:00+01:00", Date.UTC(2026, 10, 21, 8)],
      ["2026-11-21T09:00:00-0100", Date.UTC(2026, 10, 21, 10)],
      ["Jan 1", null],
      ["hello 2020", null],
      ["2024-02-30", null],
      ["21 Nov 2026", null],
      ["2026/11/21", null],
      ["Sat, 21 Nov 2026 09:00:00 GMT", null],
    ];
    for (const [value, expected] of table) assert.equal(coerceToAttribute("date", value), expected, String(value));
  });

  it("[DEC-PRO-01] number text is decimal only: no hex, binary, octal or Infinity", () => {
    const table: Array<[unknown, number | null]> = [
      ["12.5", 12.5],
      [" 3 ", 3],
      ["-1e3", -1000],
      ["0x10", null],
      ["0b11", null],
      ["0o17", null],
      ["Infinity", null],
      ["-Infinity", null],
      ["1e400", null],
      ["", null],
      [Number.POSITIVE_INFINITY, null],
      [true, null],
    ];
    for (const [value, expected] of table) assert.equal(coerceToAttribute("number", value), expected, String(value));
    assert.equal(conditionHolds({ parameter: "p", operator: "greater_than", value: 10 }, "0x10"), false);
    assert.equal(conditionHolds({ parameter: "p", operator: "less_than", value: 10 }, "0b11"), false);
  });

  it("[DEC-PRO-01] a boolean is true or false in any case, or 1 or 0", () => {
    const table: Array<[unknown, boolean | null]> = [
      [true, true],
      ["true", true],
      ["TRUE", true],
      ["True", true],
      ["1", true],
      [1, true],
      [false, false],
      ["FALSE", false],
      ["fAlSe", false],
      ["0", false],
      [0, false],
      ["yes", null],
      ["", null],
      [2, null],
      ["1.0", null],
    ];
    for (const [value, expected] of table) assert.equal(coerceToAttribute("boolean", value), expected, String(value));
  });
});

describe("visitor ID values (VID-08, DEC-COL-11)", () => {
  it("[VID-08] a value with a control character, over 1,024 characters or not text or a number is neither stitched nor captured", () => {
    for (const value of ["ann\t@example.com", "ann\u0000", "a".repeat(1025), true, { a: 1 }, ["x"]]) {
      const params = { email_address: value };
      assert.deepEqual(
        identitiesOfEvent({ visitorId: "anon", params }, "acme", "main", demo),
        [],
        JSON.stringify(value),
      );
      assert.deepEqual(buildProfile([event(1, params)], demo, policy)?.visitorIds, {}, JSON.stringify(value));
    }
  });

  it("[VID-08, DEC-COL-11] stitching and capture take the same values, for any parameter value", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.jsonValue(), fc.string({ unit: "binary" }), fc.constantFrom("a\tb", "x".repeat(1025), true, 42)),
        (value) => {
          const params = { email_address: value };
          const stitched = identitiesOfEvent({ visitorId: "anon", params }, "acme", "main", demo).map((identity) => [
            String(identity.attributeId),
            identity.value,
          ]);
          const captured = Object.entries(buildProfile([event(1, params)], demo, policy)?.visitorIds ?? {});
          assert.deepEqual(stitched, captured);
        },
      ),
    );
  });
});

describe("stitching (VID-08, DEC-COL-11)", () => {
  it("an event names its known visitor id and every visitor ID parameter it carries", () => {
    const identities = identitiesOfEvent(
      { visitorId: "__acme_main__5121_c-9__", params: { email_address: "ann@example.com", customer_id: "c-9" } },
      "acme",
      "main",
      demo,
    );
    assert.deepEqual(identities, [
      { key: "__acme_main__5121_c-9__", attributeId: 5121, value: "c-9" },
      { key: "__acme_main__5120_ann@example.com__", attributeId: 5120, value: "ann@example.com" },
    ]);
    assert.deepEqual(
      identitiesOfEvent({ visitorId: "anon-1", params: { email_address: "" } }, "acme", "main", demo),
      [],
    );
    assert.deepEqual(identitiesOfEvent({ visitorId: "__globex_main__5120_x__", params: {} }, "acme", "main", demo), []);
  });

  it("the canonical id of joined groups prefers the known visitor, then the older, whatever the order", () => {
    const anonymous = { canonical: "anon", known: false, firstSeenAt: 1 };
    const known = { canonical: "__acme_main__5120_x__", known: true, firstSeenAt: 5 };
    const older = { canonical: "__acme_main__5121_y__", known: true, firstSeenAt: 2 };
    assert.equal(chooseCanonical(anonymous, known), known.canonical);
    assert.equal(chooseCanonical(known, anonymous), known.canonical);
    assert.equal(chooseCanonical(known, older), older.canonical);
    assert.equal(chooseCanonical(older, known), older.canonical);
  });
});

describe("built-ins in audiences (DEC-PRO-01)", () => {
  const audiences = [
    {
      id: 20,
      name: "Returning",
      conditions: [[{ builtin: "returning_visitor" as const, operator: "equals" as const, value: true }]],
    },
    {
      id: 21,
      name: "Three events or more",
      conditions: [[{ builtin: "lifetime_event_count" as const, operator: "greater_than" as const, value: 2 }]],
    },
    {
      id: 22,
      name: "Two visits",
      conditions: [[{ builtin: "lifetime_visit_count" as const, operator: "equals" as const, value: 2 }]],
    },
    {
      id: 23,
      name: "First seen before t0 + 1",
      conditions: [[{ builtin: "first_visit" as const, operator: "less_than" as const, value: 1_000_001 }]],
    },
    {
      id: 24,
      name: "Visit started after t0 + 1 h",
      conditions: [
        [{ builtin: "last_visit" as const, operator: "greater_than" as const, value: 1_000_000 + 60 * minute }],
      ],
    },
    {
      id: 25,
      name: "New",
      conditions: [[{ builtin: "returning_visitor" as const, operator: "equals" as const, value: false }]],
    },
  ];
  const t0 = 1_000_000;

  it("[DEC-PRO-01] lifetime event count, lifetime visit count, first visit, last visit and returning visitor are tested like attributes", () => {
    const once = buildProfile([event(t0, {})], demo, policy);
    const back = buildProfile(
      [event(t0, {}), event(t0 + 5 * minute, {}), event(t0 + 2 * 60 * minute, {})],
      demo,
      policy,
    );
    assert.ok(once && back);
    assert.deepEqual(audiencesOf(once, audiences), [23, 25]);
    // Three events in two visits, the second starting two hours after the first.
    assert.deepEqual(audiencesOf(back, audiences), [20, 21, 22, 23, 24]);
  });

  it("[DEC-PRO-01] for any events, each built-in is what the events themselves say (counted here without the profile engine)", () => {
    const visitTimeout = 30 * minute;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 10 * 60 }), { minLength: 1, maxLength: 12 }), (gapsInMinutes) => {
        const times: number[] = [];
        let at = t0;
        for (const gap of gapsInMinutes) {
          at += gap * minute;
          times.push(at);
        }
        const profile = buildProfile(
          times.map((time, index) => event(time, { n: index })),
          demo,
          policy,
        );
        assert.ok(profile);
        // A visit starts at the first event and at every event 30 minutes or more after the one before.
        const visitStarts = times.filter(
          (time, index) => index === 0 || time - (times[index - 1] as number) >= visitTimeout,
        );
        const expected = {
          lifetime_event_count: times.length,
          lifetime_visit_count: visitStarts.length,
          first_visit: times[0],
          last_visit: visitStarts[visitStarts.length - 1],
          returning_visitor: visitStarts.length > 1,
        };
        for (const [name, value] of Object.entries(expected))
          assert.equal(builtinValueOf(profile, name as keyof typeof expected), value, name);
        assert.equal(audiencesOf(profile, audiences).includes(20), visitStarts.length > 1);
        assert.equal(audiencesOf(profile, audiences).includes(21), times.length > 2);
      }),
    );
  });
});
