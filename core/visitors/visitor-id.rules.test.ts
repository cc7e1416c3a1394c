import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { collectError } from "../errors/collect.errors.ts";
import type { IdSource } from "../ports/ids.port.ts";
import { maxIndexedTextBytes } from "../values/storable-text.rules.ts";
import { readCollectCookies } from "./cookies.rules.ts";
import { loneSurrogate, parseTapid, serializeTapid } from "./tapid.rules.ts";
import {
  buildKnownVisitorId,
  explainVisitorId,
  identifyVisitor,
  isFlagSet,
  isLookupVisitorId,
  isUsableVisitorId,
  matchKnownVisitorId,
  maxVisitorIdLength,
  normaliseKnownVisitorId,
  normaliseVisitorIdValue,
  readRequestVisitor,
  readVisitorIdParam,
  readVisitorIdValue,
  resolveVisitorId,
  type VisitorIdentity,
  type VisitorIdInputs,
  visitorIdPrecedence,
} from "./visitor-id.rules.ts";

/** A fixed IdSource: every new ID is "new-id" (randomness arrives as an argument). */
const fixedIds: IdSource = { randomHex: () => "new-id", randomToken: () => "token", randomUnit: () => 0.5 };

function inputs(overrides: Partial<VisitorIdInputs> = {}): VisitorIdInputs {
  return {
    override: null,
    tapid: null,
    visitorId: null,
    firstParty: null,
    skipTapid: false,
    deleteTapid: false,
    ...overrides,
  };
}

/** A request's parameters and Cookie header as collection reads them (readRequestVisitor), then identified. */
function identify(
  request: { account: string; profile: string; params: Record<string, unknown>; cookieHeader: string | null },
  ids: IdSource,
): VisitorIdentity {
  const read = readRequestVisitor(
    request.params,
    readCollectCookies(request.cookieHeader),
    request.account,
    request.profile,
  );
  if (!read.ok) throw new Error(`the request is refused: ${read.error.code}`);
  return identifyVisitor(read.value, ids);
}

const optionalId = fc.option(fc.string({ minLength: 1, maxLength: 12 }), { nil: null });
const anyInputs = fc.record({
  override: optionalId,
  tapid: optionalId,
  visitorId: optionalId,
  firstParty: optionalId,
  skipTapid: fc.boolean(),
  deleteTapid: fc.boolean(),
});

describe("visitor ID precedence (DEC-COL-09)", () => {
  const table: Array<[string, Partial<VisitorIdInputs>, string, string]> = [
    [
      "[VID-04] the override beats everything",
      { override: "o", tapid: "t", visitorId: "v", firstParty: "f" },
      "o",
      "override",
    ],
    [
      "[VID-03] the TAPID beats svc_visitor_id and the first-party ID",
      { tapid: "t", visitorId: "v", firstParty: "f" },
      "t",
      "tapid",
    ],
    ["[VID-03] svc_visitor_id beats the first-party ID", { visitorId: "v", firstParty: "f" }, "v", "visitor_id"],
    ["[VID-03] the first-party ID is the last source", { firstParty: "f" }, "f", "first_party"],
    ["[VID-05] skip: the TAPID is not read", { tapid: "t", visitorId: "v", skipTapid: true }, "v", "visitor_id"],
    ["[VID-06] delete: the TAPID is not read", { tapid: "t", firstParty: "f", deleteTapid: true }, "f", "first_party"],
    [
      "[VID-04, VID-06] the override wins even with delete",
      { override: "o", tapid: "t", deleteTapid: true },
      "o",
      "override",
    ],
    ["[VID-09] nothing at all: a new ID", {}, "new-id", "new"],
  ];
  for (const [title, given, visitorId, source] of table) {
    it(title, () => assert.deepEqual(resolveVisitorId(inputs(given), fixedIds), { visitorId, source }));
  }

  it("the table reads like the decision: override, TAPID, svc_visitor_id, first-party", () => {
    assert.deepEqual(
      visitorIdPrecedence.map((rule) => rule.source),
      ["override", "tapid", "visitor_id", "first_party"],
    );
  });

  it("the winner is the first source of the table that has a value, for every combination", () => {
    fc.assert(
      fc.property(anyInputs, (given) => {
        const resolved = resolveVisitorId(given, fixedIds);
        const first = visitorIdPrecedence.find((rule) => rule.pick(given) !== null);
        assert.equal(resolved.source, first?.source ?? "new");
        assert.equal(resolved.visitorId, first?.pick(given) ?? "new-id");
      }),
    );
  });

  it("adding a lower-precedence source never changes the winner", () => {
    fc.assert(
      fc.property(
        anyInputs,
        fc.constantFrom("tapid", "visitorId", "firstParty") as fc.Arbitrary<"tapid" | "visitorId" | "firstParty">,
        fc.string({ minLength: 1 }),
        (given, field, value) => {
          const before = resolveVisitorId(given, fixedIds);
          const rank = (source: string) =>
            source === "new" ? 99 : visitorIdPrecedence.findIndex((rule) => rule.source === source);
          const fieldRank = { tapid: 1, visitorId: 2, firstParty: 3 }[field];
          fc.pre(before.source !== "new" && fieldRank > rank(before.source));
          assert.deepEqual(resolveVisitorId({ ...given, [field]: value }, fixedIds), before);
        },
      ),
    );
  });

  it("a new ID is made only when no source has a value, and then it comes from the IdSource", () => {
    fc.assert(
      fc.property(anyInputs, (given) => {
        let asked = 0;
        const counting: IdSource = {
          ...fixedIds,
          randomHex: (bytes) => {
            asked += 1;
            return "x".repeat(bytes * 2);
          },
        };
        const resolved = resolveVisitorId(given, counting);
        assert.equal(asked, resolved.source === "new" ? 1 : 0);
        if (resolved.source === "new") assert.equal(resolved.visitorId, "x".repeat(32));
      }),
    );
  });
});

describe("a visitor ID decision explained (DEC-COL-09, issue 32)", () => {
  it("[VID-05, DEC-COL-09] shows every row with what it read: a skipped TAPID is shown, not chosen, and svc_visitor_id wins", () => {
    const given = inputs({ tapid: "t", visitorId: "v", firstParty: "f", skipTapid: true });
    assert.deepEqual(explainVisitorId(given, resolveVisitorId(given, fixedIds), null), {
      source: "visitor_id",
      precedence: [
        { source: "override", clauses: ["VID-04"], value: null, chosen: false, known: true },
        { source: "tapid", clauses: ["VID-03", "VID-05", "VID-06"], value: "t", chosen: false, known: true },
        { source: "visitor_id", clauses: ["VID-01", "VID-03"], value: "v", chosen: true, known: true },
        { source: "first_party", clauses: ["VID-03"], value: "f", chosen: false, known: true },
        { source: "new", clauses: ["VID-09"], value: null, chosen: false, known: true },
      ],
      skipTapid: true,
      deleteTapid: false,
      tapidCookie: null,
    });
  });

  it("[VID-09] a new ID is the last row's value, chosen", () => {
    const decision = explainVisitorId(inputs(), resolveVisitorId(inputs(), fixedIds), "TAPID=acme/main>new-id|");
    assert.deepEqual(decision.precedence.at(-1), {
      source: "new",
      clauses: ["VID-09"],
      value: "new-id",
      chosen: true,
      known: true,
    });
    assert.equal(decision.tapidCookie, "TAPID=acme/main>new-id|");
  });

  it("exactly one row is chosen, the resolved source's, and each row shows its input, for every combination", () => {
    fc.assert(
      fc.property(anyInputs, (given) => {
        const resolved = resolveVisitorId(given, fixedIds);
        const decision = explainVisitorId(given, resolved, null);
        assert.deepEqual(
          decision.precedence.filter((row) => row.chosen).map((row) => row.source),
          [resolved.source],
        );
        assert.deepEqual(
          decision.precedence.slice(0, -1).map((row) => row.value),
          [given.override, given.tapid, given.visitorId, given.firstParty],
        );
        assert.equal(decision.source, resolved.source);
      }),
    );
  });

  it("identifyVisitor exposes the inputs it resolved from", () => {
    const identity = identify(
      {
        account: "acme",
        profile: "main",
        params: { svc_visitor_id: "v", svc_delete_3rd_party_vid_cookies: "true" },
        cookieHeader: "TAPID=acme/main>t|",
      },
      fixedIds,
    );
    assert.deepEqual(identity.inputs, inputs({ tapid: "t", visitorId: "v", deleteTapid: true }));
    assert.equal(identity.source, "visitor_id");
  });
});

describe("flags (VID-05, VID-06)", () => {
  it("true and the text true in any case set a flag; anything else does not", () => {
    for (const value of [true, "true", "TRUE", "True"]) assert.equal(isFlagSet(value), true, String(value));
    for (const value of [false, "false", "1", 1, "", null, undefined, "yes"])
      assert.equal(isFlagSet(value), false, String(value));
  });
});

describe("identifyVisitor: parameters and cookies together", () => {
  const base = { account: "acme", profile: "main" };

  it("[VID-03] reads the TAPID entry of its own account/profile, not another's", () => {
    const cookieHeader = `other=1; TAPID=${serializeTapid([
      { account: "globex", profile: "main", visitorId: "g" },
      { account: "acme", profile: "main", visitorId: "a" },
    ])}`;
    const identity = identify({ ...base, params: { svc_visitor_id: "v" }, cookieHeader }, fixedIds);
    assert.equal(identity.visitorId, "a");
    assert.equal(identity.source, "tapid");
    assert.equal(identity.thirdPartyVisitorId, "a");
    assert.deepEqual(identity.tapidCookie, { kind: "none" });
  });

  it("[VID-03, DEC-COL-09, DEC-COL-10] every TAPID cookie the browser sent is read (one set for another domain or path beside the host's), the first entry of an account/profile wins", () => {
    const second = identify(
      {
        ...base,
        params: { svc_visitor_id: "vv1" },
        cookieHeader: "TAPID=globex/main>g1|; other=1; TAPID=acme/main>tap3|",
      },
      fixedIds,
    );
    assert.deepEqual([second.visitorId, second.source, second.tapidCookie], ["tap3", "tapid", { kind: "none" }]);
    const twice = identify(
      { ...base, params: {}, cookieHeader: 'TAPID="acme/main>a|"; TAPID=acme/main>b|globex/main>g|' },
      fixedIds,
    );
    assert.equal(twice.visitorId, "a");
    // The answer's cookie gathers the entries of all of them, each account/profile once.
    const overridden = identify(
      {
        ...base,
        params: { svc_override_tapid: "o" },
        cookieHeader: "TAPID=acme/main>a|; TAPID=acme/main>b|globex/main>g|",
      },
      fixedIds,
    );
    assert.deepEqual(overridden.tapidCookie, { kind: "write", value: "acme/main>o|globex/main>g|" });
  });

  it("[DEC-COL-09] the first-party ID comes from svc_firstparty_visitor_id, else v_id of utag_main", () => {
    const fromCookie = identify(
      {
        ...base,
        params: { svc_skip_3rd_party_vid_cookies: "true" },
        cookieHeader: "utag_main=v_id:0190abc$_sn:1$ses_id:17%3Bexp-session",
      },
      fixedIds,
    );
    assert.deepEqual(
      [fromCookie.visitorId, fromCookie.source, fromCookie.firstPartyVisitorId],
      ["0190abc", "first_party", "0190abc"],
    );
    const fromParam = identify(
      { ...base, params: { svc_firstparty_visitor_id: "p" }, cookieHeader: "utag_main=v_id:c" },
      fixedIds,
    );
    assert.equal(fromParam.firstPartyVisitorId, "p");
  });

  it("[VID-09, DEC-COL-10] a new visitor gets a new ID, written as the first TAPID entry", () => {
    const identity = identify({ ...base, params: {}, cookieHeader: "TAPID=globex/main>g|" }, fixedIds);
    assert.equal(identity.visitorId, "new-id");
    assert.deepEqual(identity.tapidCookie, { kind: "write", value: "acme/main>new-id|globex/main>g|" });
  });

  it("[DEC-COL-09] a TAPID entry that is not a usable visitor ID is ignored, and the answer replaces it", () => {
    for (const bad of ["alice%00mallory", "a%0Ab", "v".repeat(1025)]) {
      const cookieHeader = `TAPID=acme/main>${bad}|globex/main>g|`;
      const identity = identify({ ...base, params: { svc_visitor_id: "v" }, cookieHeader }, fixedIds);
      assert.equal(identity.visitorId, "v", bad.slice(0, 20));
      assert.equal(identity.source, "visitor_id");
      assert.deepEqual(identity.tapidCookie, { kind: "write", value: "acme/main>v|globex/main>g|" });
    }
  });

  it("[DEC-COL-09] parameters and a utag_main v_id that are not usable visitor IDs are refused when the request is read", () => {
    const nul = "alice\u0000mallory";
    const read = (params: Record<string, unknown>, cookieHeader: string | null = null) =>
      readRequestVisitor(params, readCollectCookies(cookieHeader), "acme", "main");
    for (const [name, value] of [
      ["svc_override_tapid", nul],
      ["svc_visitor_id", nul],
      ["svc_firstparty_visitor_id", nul],
      ["svc_visitor_id", "v".repeat(1025)],
    ] as const) {
      assert.deepEqual(
        read({ [name]: value }),
        { ok: false, error: collectError("unusableVisitorId", { source: `${name} param value` }) },
        name,
      );
    }
    const cookieHeader = "utag_main=v_id:alice%00mallory$_sn:1";
    assert.deepEqual(read({}, cookieHeader), {
      ok: false,
      error: collectError("unusableVisitorId", { source: "v_id of the utag_main cookie" }),
    });
    assert.equal(read({ svc_firstparty_visitor_id: "f" }, cookieHeader).ok, true, "the parameter comes first");
  });

  it("IDs that are neither strings nor finite numbers are refused as not strings; an empty one is none", () => {
    const read = (params: Record<string, unknown>) =>
      readRequestVisitor(params, readCollectCookies(null), "acme", "main");
    assert.deepEqual(read({ svc_visitor_id: true }), {
      ok: false,
      error: collectError("paramNotString", { parameter: "svc_visitor_id" }),
    });
    assert.deepEqual(read({ svc_firstparty_visitor_id: { id: 1 } }), {
      ok: false,
      error: collectError("paramNotString", { parameter: "svc_firstparty_visitor_id" }),
    });
    assert.equal(identify({ ...base, params: { svc_override_tapid: "" }, cookieHeader: null }, fixedIds).source, "new");
  });

  it("[DEC-COL-09] a numeric svc_visitor_id is taken as its text", () => {
    const identity = identify({ ...base, params: { svc_visitor_id: 42 }, cookieHeader: null }, fixedIds);
    assert.deepEqual([identity.visitorId, identity.source], ["42", "visitor_id"]);
  });

  it("the TAPID entry written back reads as the resolved visitor ID, for any parameters", () => {
    fc.assert(
      fc.property(
        optionalId,
        optionalId,
        optionalId,
        fc.boolean(),
        fc.boolean(),
        (override, tapid, visitorId, skip, del) => {
          const cookieHeader =
            tapid === null ? null : `TAPID=${serializeTapid([{ account: "acme", profile: "main", visitorId: tapid }])}`;
          const params = {
            svc_override_tapid: override ?? undefined,
            svc_visitor_id: visitorId ?? undefined,
            svc_skip_3rd_party_vid_cookies: skip,
            svc_delete_3rd_party_vid_cookies: del,
          };
          const identity = identify({ ...base, params, cookieHeader }, fixedIds);
          if (identity.tapidCookie.kind === "write") {
            const written = parseTapid(identity.tapidCookie.value);
            const own = written.find((entry) => entry.account === "acme" && entry.profile === "main");
            if (own) {
              assert.equal(own.visitorId, identity.thirdPartyVisitorId);
              assert.equal(written[0], own, "the entry is first");
            }
          }
          if (override !== null) assert.equal(identity.visitorId, override);
        },
      ),
    );
  });
});

describe("visitor IDs the lookups look up (DEC-PRV-05)", () => {
  it("the characters' limits of a usable ID, not its limit in bytes: a visitor kept before that stays readable", () => {
    const cjk = "名".repeat(maxVisitorIdLength);
    assert.equal(isUsableVisitorId(cjk), false);
    assert.equal(isLookupVisitorId(cjk), true);
    assert.equal(isLookupVisitorId("v".repeat(maxVisitorIdLength + 1)), false);
    for (const bad of ["a\u0000b", "a\tb", "a\u007fb"])
      assert.equal(isLookupVisitorId(bad), false, JSON.stringify(bad));
  });
});

describe("usable visitor IDs (DEC-COL-09)", () => {
  it("at most maxVisitorIdLength characters, no control characters; the refusal's X-Error says the same limit", () => {
    assert.equal(isUsableVisitorId("v".repeat(maxVisitorIdLength)), true);
    assert.equal(isUsableVisitorId("v".repeat(maxVisitorIdLength + 1)), false);
    for (const bad of ["a\u0000b", "a\tb", "a\u007fb"])
      assert.equal(isUsableVisitorId(bad), false, JSON.stringify(bad));
    assert.equal(isUsableVisitorId("ann@example.com ü ✓"), true);
    assert.match(
      collectError("unusableVisitorId", { source: "x" }).xError,
      new RegExp(`at most ${maxVisitorIdLength} characters \\(${maxIndexedTextBytes} bytes of UTF-8\\)`),
    );
  });

  it("at most 2,048 bytes of UTF-8 too, which every store can index: 1,024 characters of CJK are not (second probe, finding 4)", () => {
    assert.equal(isUsableVisitorId("é".repeat(maxVisitorIdLength)), true);
    assert.equal(isUsableVisitorId("一".repeat(682)), true);
    assert.equal(isUsableVisitorId("一".repeat(683)), false);
    assert.equal(isUsableVisitorId("一".repeat(maxVisitorIdLength)), false);
  });

  it("[DEC-COL-09] a whole number past 2^53 is refused: JSON.parse has already rounded it, so its text is not the ID sent", () => {
    assert.deepEqual(readVisitorIdParam("svc_visitor_id", JSON.parse("12345678901234567890")), {
      ok: false,
      error: collectError("paramNotString", { parameter: "svc_visitor_id" }),
    });
    assert.deepEqual(readVisitorIdParam("svc_visitor_id", Number.MAX_SAFE_INTEGER), {
      ok: true,
      value: "9007199254740991",
    });
    assert.deepEqual(readVisitorIdParam("svc_visitor_id", 12.25), { ok: true, value: "12.25" });
    assert.equal(readVisitorIdValue(JSON.parse("98765432109876543210")), null);
  });

  it("[DEC-COL-09] a lone surrogate becomes U+FFFD, as the store and the cookie would write it: one ID everywhere", () => {
    assert.deepEqual(readVisitorIdParam("svc_override_tapid", "ab\ud800cd"), { ok: true, value: "ab\ufffdcd" });
    assert.deepEqual(readVisitorIdParam("svc_visitor_id", "ok\ud83d\ude00"), { ok: true, value: "ok\ud83d\ude00" });
  });

  it("readVisitorIdParam never throws and takes only usable text, for any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const read = readVisitorIdParam("svc_visitor_id", value);
        if (read.ok && read.value !== null) assert.ok(isUsableVisitorId(read.value));
      }),
    );
  });
});

describe("visitor ID attribute values (VID-08, DEC-COL-11)", () => {
  it("[VID-08] text and finite numbers (as their text) that isUsableVisitorId takes; nothing else", () => {
    const table: Array<[unknown, string | null]> = [
      ["ann@example.com", "ann@example.com"],
      [77, "77"],
      [1.5, "1.5"],
      ["", null],
      [undefined, null],
      [null, null],
      [true, null],
      [false, null],
      [Number.NaN, null],
      [Number.POSITIVE_INFINITY, null],
      [{ email: "a" }, null],
      [["a"], null],
      ["ann\t@example.com", null],
      // DEC-PRV-05: white space around the value is not part of it; white space only is no value.
      [" ann@example.com", "ann@example.com"],
      ["ann@example.com\t", "ann@example.com"],
      ["\u00a0Ann@Example.com\r\n", "Ann@Example.com"],
      [" \t\u3000", null],
      ["ann\u0000", null],
      ["v".repeat(maxVisitorIdLength), "v".repeat(maxVisitorIdLength)],
      ["v".repeat(maxVisitorIdLength + 1), null],
      // As the store would keep it: a lone surrogate is U+FFFD, so the group is found again by the same value.
      ["lone\ud800@x.com", "lone\ufffd@x.com"],
      ["\udc00tail", "\ufffdtail"],
      ["pair\ud83d\ude00", "pair\ud83d\ude00"],
    ];
    for (const [value, expected] of table) assert.equal(readVisitorIdValue(value), expected, JSON.stringify(value));
  });

  it("[VID-08] what it takes is usable and non-empty, for any JSON value", () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.string({ unit: "binary" })), (value) => {
        const read = readVisitorIdValue(value);
        if (read !== null) {
          assert.ok(read !== "" && isUsableVisitorId(read));
          assert.ok(
            !new RegExp(loneSurrogate.source).test(read),
            "what a visitor ID value is read as has no lone surrogate",
          );
          assert.ok(typeof value === "string" || typeof value === "number");
        }
      }),
    );
  });
});

/** Unicode's White_Space property, listed (PropList.txt): what normaliseVisitorIdValue removes, and nothing else. */
const whiteSpaceList = [
  "\t",
  "\n",
  "\u000b",
  "\f",
  "\r",
  " ",
  "\u0085",
  "\u00a0",
  "\u1680",
  "\u2000",
  "\u2001",
  "\u2002",
  "\u2003",
  "\u2004",
  "\u2005",
  "\u2006",
  "\u2007",
  "\u2008",
  "\u2009",
  "\u200a",
  "\u2028",
  "\u2029",
  "\u202f",
  "\u205f",
  "\u3000",
];

/** The oracle: removes the listed characters from both ends. */
function trimListed(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && whiteSpaceList.includes(value.charAt(start))) start += 1;
  while (end > start && whiteSpaceList.includes(value.charAt(end - 1))) end -= 1;
  return value.slice(start, end);
}

describe("visitor-ID value normalisation (DEC-PRV-05)", () => {
  const spaceOrText = fc.string({
    unit: fc.oneof(
      fc.constantFrom(...whiteSpaceList, "\ufeff", "\u180e", "\u200b", "\u0000"),
      fc.string({ minLength: 1, maxLength: 1, unit: "binary" }),
    ),
  });

  it("removes Unicode White_Space from both ends, and nothing else: case, inner white space, U+FEFF, U+180E, U+200B stay", () => {
    const table: Array<[string, string]> = [
      ["ann@example.com", "ann@example.com"],
      [" pad@example.com", "pad@example.com"],
      ["pad@example.com\t", "pad@example.com"],
      ["\r\n\u000b\f Ann@Example.COM \u00a0\u3000", "Ann@Example.COM"],
      ["\u0085nel\u0085", "nel"],
      ["\u2028a b\u2029", "a b"],
      ["\ufeffbom\ufeff", "\ufeffbom\ufeff"],
      ["\u180emongolian\u180e", "\u180emongolian\u180e"],
      ["\u200bzero width\u200b", "\u200bzero width\u200b"],
      [" \t ", ""],
      ["", ""],
    ];
    for (const [value, expected] of table)
      assert.equal(normaliseVisitorIdValue(value), expected, JSON.stringify(value));
  });

  it("the list it is tested against is exactly the characters of the White_Space property", () => {
    const found: string[] = [];
    for (let code = 0; code <= 0xffff; code += 1)
      if (/\p{White_Space}/u.test(String.fromCharCode(code))) found.push(String.fromCharCode(code));
    assert.deepEqual(found, whiteSpaceList);
  });

  it("equals removing exactly the White_Space characters from both ends, for any text", () => {
    fc.assert(
      fc.property(fc.oneof(spaceOrText, fc.string({ unit: "binary" })), (value) =>
        assert.equal(normaliseVisitorIdValue(value), trimListed(value)),
      ),
    );
  });

  it("is idempotent", () => {
    fc.assert(
      fc.property(spaceOrText, (value) =>
        assert.equal(normaliseVisitorIdValue(normaliseVisitorIdValue(value)), normaliseVisitorIdValue(value)),
      ),
    );
  });

  it("never changes the inside: white space added around a normalised value is all it removes", () => {
    const spaces = fc.string({ unit: fc.constantFrom(...whiteSpaceList) });
    fc.assert(
      fc.property(spaces, spaceOrText, spaces, (before, text, after) => {
        const inside = normaliseVisitorIdValue(text);
        assert.equal(normaliseVisitorIdValue(before + inside + after), inside);
      }),
    );
  });

  it("removes a million white space characters in linear time (a regex anchored at the end would not finish)", () => {
    const long = `${" ".repeat(500_000)}a${" ".repeat(500_000)}b${"\t".repeat(500_000)}`;
    assert.equal(normaliseVisitorIdValue(long), `a${" ".repeat(500_000)}b`);
  });
});

describe("known visitor ID (VID-02, DEC-COL-11)", () => {
  it("has the form __<account>_<profile>__<attributeId>_<value>__", () => {
    assert.equal(buildKnownVisitorId("acme", "main", 5120, "ann@example.com"), "__acme_main__5120_ann@example.com__");
    assert.deepEqual(matchKnownVisitorId("__acme_main__5120_ann@example.com__", "acme", "main"), {
      attributeId: 5120,
      value: "ann@example.com",
    });
  });

  it("is matched against the event's own account and profile", () => {
    assert.equal(matchKnownVisitorId("__acme_main__5120_ann@example.com__", "acme", "dev"), null);
    assert.equal(matchKnownVisitorId("__globex_main__5120_x__", "acme", "main"), null);
  });

  it("needs a numeric attribute id and a value", () => {
    for (const id of [
      "__acme_main__email_x__",
      "__acme_main__5120___",
      "__acme_main__5120_x",
      "acme_main__5120_x__",
      "__acme_main__0120_x__",
      "0190abcdef",
    ]) {
      assert.equal(matchKnownVisitorId(id, "acme", "main"), null, id);
    }
  });

  it("build then match gives back the attribute and the normalised value (none when it is only white space), for any names and values", () => {
    const name = fc.stringMatching(/^[A-Za-z0-9_~-]{1,12}$/);
    fc.assert(
      fc.property(
        name,
        name,
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.string({ minLength: 1 }),
        (account, profile, attributeId, value) => {
          const normalised = normaliseVisitorIdValue(value);
          const expected = normalised === "" ? null : { attributeId, value: normalised };
          assert.deepEqual(
            matchKnownVisitorId(buildKnownVisitorId(account, profile, attributeId, value), account, profile),
            expected,
          );
        },
      ),
    );
  });

  it("[DEC-PRV-05] a known visitor ID names its value without the white space around it", () => {
    assert.deepEqual(matchKnownVisitorId("__acme_main__5120_ ann@example.com\t__", "acme", "main"), {
      attributeId: 5120,
      value: "ann@example.com",
    });
    assert.equal(matchKnownVisitorId("__acme_main__5120_ \u00a0__", "acme", "main"), null);
    assert.equal(
      normaliseKnownVisitorId("__acme_main__5120_ ann@example.com __", "acme", "main"),
      "__acme_main__5120_ann@example.com__",
    );
    assert.equal(
      normaliseKnownVisitorId(" anon ", "acme", "main"),
      " anon ",
      "an anonymous ID is not a visitor-ID value",
    );
    assert.equal(normaliseKnownVisitorId("__globex_main__5120_ ann__", "acme", "main"), "__globex_main__5120_ ann__");
  });

  it("[DEC-PRV-05, DEC-COL-11] an event identified by a padded known visitor ID is the known visitor of the normalised value, and so is its TAPID entry", () => {
    const identity = identify(
      {
        account: "acme",
        profile: "main",
        params: { svc_override_tapid: "__acme_main__5120_ ann@example.com__" },
        cookieHeader: null,
      },
      fixedIds,
    );
    assert.equal(identity.visitorId, "__acme_main__5120_ann@example.com__");
    assert.deepEqual(identity.tapidCookie, { kind: "write", value: "acme/main>__acme_main__5120_ann@example.com__|" });
    const byParam = identify(
      {
        account: "acme",
        profile: "main",
        params: { svc_visitor_id: "__acme_main__5121_C-77\u2003__" },
        cookieHeader: null,
      },
      fixedIds,
    );
    assert.equal(byParam.visitorId, "__acme_main__5121_C-77__");
  });

  it("never throws on any text", () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        fc.string(),
        (id, account, profile) => void matchKnownVisitorId(id, account, profile),
      ),
    );
  });
});
