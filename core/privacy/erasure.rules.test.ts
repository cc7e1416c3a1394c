import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { type CollectedRequest, CollectJournal, type CollectJournalEntry } from "../collect/collect-journal.ts";
import type { VisitorProfile } from "../profiles/profile.rules.ts";
import { type AnsweredRequest, RequestJournal } from "../testing-tools/index.ts";
import { normaliseVisitorIdValue } from "../visitors/visitor-id.rules.ts";
import {
  eraseValueFromEvent,
  eraseValueFromProfile,
  erasureNeedle,
  holdsErasedValue,
  isErasedValue,
  journalEntryHoldsErasedValue,
  journaledRequestHoldsErasedValue,
} from "./erasure.rules.ts";

const erased = "pad@example.com";
const noRequest: CollectedRequest = {
  method: "GET",
  query: "svc_account=acme",
  contentType: null,
  body: null,
  cookie: null,
  referer: null,
  userAgent: "Mozilla/5.0",
};

function event(
  data: Record<string, unknown>,
  columns: Partial<{
    visitorId: string;
    thirdPartyVisitorId: string | null;
    firstPartyVisitorId: string | null;
    event: string | null;
    datasource: string | null;
    traceId: string | null;
  }> = {},
) {
  return {
    visitorId: "anon-1",
    thirdPartyVisitorId: null,
    firstPartyVisitorId: null,
    event: null,
    datasource: null,
    traceId: null,
    data,
    ...columns,
  };
}

function profile(values: VisitorProfile["values"], visitorIds: VisitorProfile["visitorIds"] = {}): VisitorProfile {
  return {
    firstSeenAt: 1,
    lastSeenAt: 2,
    visitStartedAt: 1,
    eventCount: 2,
    visitCount: 1,
    values,
    badges: [5205],
    visitorIds,
    lastSeq: 9,
  };
}

describe("the erased value (DEC-PRV-05)", () => {
  it("is a text equal to it once normalised: white space around it, not case, not a longer text, not a number", () => {
    for (const text of [erased, ` ${erased}`, `${erased}\t`, `\u00a0${erased}\u2003`, `\u0085${erased}`])
      assert.equal(isErasedValue(text, erased), true, JSON.stringify(text));
    for (const text of ["Pad@example.com", `x${erased}`, `${erased}.org`, `\ufeff${erased}`, ""])
      assert.equal(isErasedValue(text, erased), false, JSON.stringify(text));
    assert.equal(holdsErasedValue(77, "77"), false);
    assert.equal(holdsErasedValue(true, "true"), false);
  });

  it("an empty erased value erases nothing (not every empty text)", () => {
    assert.equal(isErasedValue("", ""), false);
    assert.equal(holdsErasedValue({ a: "", b: [" "] }, ""), false);
  });

  it("is found at any depth of arrays and objects, never in their names", () => {
    assert.equal(holdsErasedValue({ work: { list: [1, ` ${erased}`] } }, erased), true);
    assert.equal(holdsErasedValue({ [erased]: "x" }, erased), false);
  });

  it("the needle is in the JSON of every value that holds it, whatever white space is around it", () => {
    const padding = fc.string({ unit: fc.constantFrom(" ", "\t", "\n", "\u00a0", "\u0085", "\u2028") });
    fc.assert(
      // Any code point, lone surrogates included: JSON escapes some of them (controls, quotes, U+2028 stays).
      fc.property(
        fc.string({ minLength: 1, unit: "binary" }),
        padding,
        padding,
        fc.jsonValue(),
        (raw, before, after, around) => {
          const value = normaliseVisitorIdValue(raw);
          fc.pre(value !== "");
          const holder = { around, at: [before + value + after] };
          assert.ok(holdsErasedValue(holder, value));
          assert.ok(JSON.stringify(holder).includes(erasureNeedle(value)));
        },
      ),
    );
  });
});

describe("erasing the value from an event (DEC-PRV-05)", () => {
  it("removes the parameters that hold it, empties the columns they mirror, and keeps everything else", () => {
    const stored = event(
      {
        svc_account: erased,
        svc_visitor_id: "anon-1",
        svc_event: ` ${erased}`,
        invited: `${erased}\t`,
        contacts: { work: erased, home: "home@example.com" },
        amount: 3,
        note: "Pad@example.com",
      },
      { event: ` ${erased}`, datasource: "web", traceId: erased },
    );
    assert.deepEqual(eraseValueFromEvent(stored, erased), {
      kind: "edit",
      data: { svc_account: erased, svc_visitor_id: "anon-1", amount: 3, note: "Pad@example.com" },
      event: null,
      datasource: "web",
      traceId: null,
      violations: [],
    });
  });

  it("takes it out of the tracking plan's violations too, keeping what the plan wrote (issue 43, point 3)", () => {
    const violations = [
      { parameter: "invited", path: "/invited", rule: "pattern", value: erased, message: "must match pattern" },
      { parameter: "contacts", path: "/contacts", rule: "type", value: { work: erased }, message: "must be string" },
      { parameter: "amount", path: "/amount", rule: "maximum", value: 3, message: "must be <= 2" },
      { parameter: "order_id", path: "/order_id", rule: "required", message: "must have required property" },
    ];
    const erasure = eraseValueFromEvent(
      { ...event({ invited: erased, contacts: { work: erased }, amount: 3 }), violations },
      erased,
    );
    assert.equal(erasure.kind, "edit");
    assert.deepEqual(erasure.kind === "edit" ? erasure.violations : [], [
      { parameter: "invited", path: "/invited", rule: "pattern", message: "must match pattern" },
      { parameter: "contacts", path: "/contacts", rule: "type", message: "must be string" },
      violations[2],
      violations[3],
    ]);
    assert.ok(!JSON.stringify(erasure).includes(erased));
  });

  it("an event whose own visitor IDs hold it is the data subject's", () => {
    for (const columns of [
      { visitorId: ` ${erased}` },
      { thirdPartyVisitorId: erased },
      { firstPartyVisitorId: `${erased}\n` },
    ]) {
      assert.deepEqual(
        eraseValueFromEvent(event({ svc_event: "view" }, columns), erased),
        { kind: "subject" },
        JSON.stringify(columns),
      );
    }
  });

  it("a parameter named __proto__ is kept as a parameter when another is erased", () => {
    const data = JSON.parse(`{"__proto__": false, "email_address": "${erased}", "n": 1}`) as Record<string, unknown>;
    const erasure = eraseValueFromEvent(event(data), erased);
    assert.equal(erasure.kind, "edit");
    if (erasure.kind !== "edit") return;
    assert.equal(JSON.stringify(erasure.data), '{"__proto__":false,"n":1}');
  });

  it("an event without it is kept as it is", () => {
    assert.deepEqual(
      eraseValueFromEvent(event({ svc_event: "view", email_address: "other@example.com", n: 1 }), erased),
      { kind: "keep" },
    );
  });

  it("what is left never holds the value, and every parameter that did not hold it is kept unchanged, for any parameters", () => {
    const valueOrOther = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom(erased, ` ${erased}`, `${erased}\t`, [erased], { a: ` ${erased}` }),
    );
    fc.assert(
      fc.property(fc.dictionary(fc.string(), valueOrOther), (data) => {
        const erasure = eraseValueFromEvent(event(data), erased);
        const kept = erasure.kind === "edit" ? erasure.data : data;
        for (const [name, value] of Object.entries(data)) {
          if (name === "svc_account" || name === "svc_profile" || !holdsErasedValue(value, erased))
            assert.deepEqual(kept[name], value);
          else assert.equal(Object.hasOwn(kept, name), false);
        }
        assert.equal(
          erasure.kind === "keep",
          Object.entries(data).every(
            ([name, value]) => name === "svc_account" || name === "svc_profile" || !holdsErasedValue(value, erased),
          ),
        );
      }),
    );
  });
});

describe("erasing the value from a profile (DEC-PRV-05)", () => {
  it("removes the text attributes that hold it and keeps the rest", () => {
    const before = profile({ "5202": ` ${erased}`, "5206": "other@example.com", "5207": 3, "5203": true });
    assert.deepEqual(eraseValueFromProfile(before, erased), {
      kind: "edit",
      data: { ...before, values: { "5206": "other@example.com", "5207": 3, "5203": true } },
    });
  });

  it("removes a text attribute holding the JSON of an object or array that holds it (set from such a parameter)", () => {
    const before = profile({
      "5206": JSON.stringify([` ${erased}`, "other@example.com"]),
      "5202": JSON.stringify({ work: { address: erased } }),
      "5204": `["${erased}x"]`,
      "5205": "[not json",
    });
    assert.deepEqual(eraseValueFromProfile(before, erased), {
      kind: "edit",
      data: { ...before, values: { "5204": `["${erased}x"]`, "5205": "[not json" } },
    });
  });

  it("a group that captured it as a visitor ID value is known by it: removed whole", () => {
    assert.deepEqual(eraseValueFromProfile(profile({}, { "5120": ` ${erased}` }), erased), { kind: "remove-group" });
    assert.deepEqual(eraseValueFromProfile(profile({}, { "5121": erased }), erased), { kind: "remove-group" });
  });

  it("a profile without it is kept as it is", () => {
    assert.deepEqual(
      eraseValueFromProfile(profile({ "5206": "other@example.com" }, { "5120": "other@example.com" }), erased),
      { kind: "keep" },
    );
  });
});

describe("DEC-PRV-05: the collection journal forgets a deleted value (issue 32)", () => {
  const decision = (visitorValue: string | null) => ({
    source: "visitor_id" as const,
    precedence: [
      { source: "override" as const, clauses: ["VID-04"], value: null, chosen: false, known: true },
      { source: "visitor_id" as const, clauses: ["VID-01"], value: visitorValue, chosen: true, known: true },
    ],
    skipTapid: false,
    deleteTapid: false,
    tapidCookie: null,
  });
  const stored = (
    id: number,
    visitorId: string,
    data: Record<string, unknown>,
    account = "acme",
    request: Partial<CollectedRequest> = {},
  ): CollectJournalEntry => ({
    id,
    at: 0,
    outcome: "stored",
    method: "GET",
    account,
    profile: "main",
    event: "view",
    traceId: null,
    visitorId,
    userAgent: "Mozilla/5.0",
    data,
    decision: decision(visitorId),
    request: { ...noRequest, ...request },
  });
  const holds = (entry: CollectJournalEntry) => journalEntryHoldsErasedValue(entry, "acme", "main", erased);

  it("finds the value in the request as received: its query string, its body, its Referer's query", () => {
    const query = `svc_account=acme&email_address=${encodeURIComponent(erased)}`;
    assert.equal(holds(stored(1, "v-1", {}, "acme", { query })), true);
    assert.equal(holds(stored(2, "v-1", {}, "acme", { body: JSON.stringify({ list: [erased] }) })), true);
    assert.equal(holds(stored(3, "v-1", {}, "acme", { referer: `https://shop.example/?m=${erased}` })), true);
    assert.equal(holds(stored(4, "v-1", {}, "acme", { query: "svc_account=acme&note=other" })), false);
  });

  it("finds the value in a parameter, as the visitor ID, as a known visitor ID, and in a refusal's hints", () => {
    assert.equal(holds(stored(1, "v-1", { email_address: ` ${erased}` })), true);
    assert.equal(holds(stored(2, erased, {})), true);
    assert.equal(holds(stored(3, `__acme_main__5120_${erased}__`, {})), true);
    assert.equal(holds(stored(4, "v-1", { nested: [{ email: erased }] })), true);
    const refused: CollectJournalEntry = {
      id: 5,
      at: 0,
      outcome: "refused",
      method: "GET",
      account: "acme",
      profile: "main",
      event: erased,
      traceId: null,
      userAgent: null,
      status: 400,
      reason: "invalidJson",
      xError: "x",
    };
    assert.equal(holds(refused), true);
  });

  it("leaves other values, other profiles, and numbers alone", () => {
    assert.equal(holds(stored(1, "v-1", { email_address: "other@example.com", amount: 77 })), false);
    assert.equal(holds(stored(2, erased, {}, "globex")), false);
    assert.equal(holds(stored(3, "v-1", { note: `mail ${erased} later` })), false);
  });

  it("the journal forgets the matching entries and keeps the others in order, with their ids", () => {
    const journal = new CollectJournal();
    const record = (entry: CollectJournalEntry) => {
      const { id: _, ...outcome } = entry;
      journal.record(outcome);
    };
    record(stored(0, "v-1", { email_address: erased }));
    record(stored(0, "v-2", { email_address: "other@example.com" }));
    record(stored(0, `__acme_main__5120_${erased}__`, {}));
    record(stored(0, "v-3", {}));
    assert.equal(journal.forget(holds), 2);
    assert.deepEqual(
      journal.entriesAfter(0).map((entry) => entry.id),
      [2, 4],
    );
    record(stored(0, "v-4", {}));
    assert.deepEqual(
      journal.latest(10).map((entry) => entry.id),
      [2, 4, 5],
    );
  });
});

describe("DEC-PRV-05: the request journal forgets a deleted value (second probe, finding 5)", () => {
  const request = (query: string, account: string | null = "acme", texts: string[] = []) => ({
    account,
    parameters: query.split("&").map((pair) => pair.split("=") as [string, string]),
    texts,
  });
  const holds = (query: string, account: string | null = "acme") =>
    journaledRequestHoldsErasedValue(request(query, account), "acme", erased);

  it("finds the value in any parameter of a request of the account: the pixel's, a lookup's, padded, in JSON", () => {
    assert.equal(holds(`svc_account=acme&email_address=${erased}`), true);
    assert.equal(holds(`attributeId=5120&attributeValue= ${erased}\t`), true);
    assert.equal(holds(`utk=${erased}`), true);
    assert.equal(holds(`data={"email":"${erased}"}`), true);
  });

  it("issue 43: finds the value in a path segment, a header, a body's text or JSON, the answer's", () => {
    const holdsIn = (texts: string[]) =>
      journaledRequestHoldsErasedValue(request("q=1", "acme", texts), "acme", erased);
    assert.equal(holdsIn(["", "personalization", "accounts", "acme", "visitors", erased]), true);
    assert.equal(holdsIn([`{"visitor":{"email":"${erased}"}}`]), true);
    assert.equal(holdsIn(["text/plain", `a note about ${erased}`]), false);
  });

  it("leaves other values, other accounts, requests of no account, and longer texts alone", () => {
    assert.equal(holds("email_address=other@example.com"), false);
    assert.equal(holds(`email_address=${erased}`, "globex"), false);
    assert.equal(holds(`email_address=${erased}`, null), false);
    assert.equal(holds(`note=mail ${erased} later`), false);
    assert.equal(holds("email_address=Pad@example.com"), false);
    assert.equal(journaledRequestHoldsErasedValue(request("q="), "acme", ""), false);
  });

  it("issue 43: the journal forgets a request holding it in its path, a header or its body", () => {
    const journal = new RequestJournal();
    const bytes = (text: string) => ({ bytes: new TextEncoder().encode(text), truncated: false });
    const record = (path: string, extra: Partial<AnsweredRequest> = {}) =>
      journal.record({
        method: "POST",
        path,
        query: "",
        route: null,
        atMs: 0,
        status: 200,
        durationMs: 1,
        fault: null,
        ...extra,
      });
    record(`/personalization/accounts/acme/profiles/main/engines/e1/visitors/${encodeURIComponent(erased)}`);
    record("/v1/dle/accounts/acme/profiles/main/datalayers/d1", {
      headers: [["content-type", "application/json"]],
      body: bytes(`{"user":{"email":"${erased}"}}`),
    });
    record("/event", {
      query: "svc_account=acme",
      headers: [["content-type", "application/x-www-form-urlencoded"]],
      body: bytes(`email_address=${encodeURIComponent(erased)}`),
    });
    record("/v1/accounts/acme/x", { headers: [["cookie", `a=1; who=${encodeURIComponent(erased)}`]] });
    record("/v1/accounts/acme/y", { response: { headers: [], body: bytes(`["${erased}"]`) } });
    record("/v1/accounts/acme/z", { body: bytes(`{"email":"other@example.com"}`) });
    assert.equal(
      journal.forget((kept) => journaledRequestHoldsErasedValue(kept, "acme", erased)),
      5,
    );
    assert.deepEqual(
      journal.query().map((entry) => entry.id),
      [6],
    );
  });

  it("the journal forgets the requests holding it, from their decoded query", () => {
    const journal = new RequestJournal();
    const answered = (query: string) =>
      journal.record({
        method: "GET",
        path: "/event",
        query,
        route: "/event",
        atMs: 0,
        status: 200,
        durationMs: 1,
        fault: null,
      });
    answered(`svc_account=acme&email_address=${encodeURIComponent(erased)}`);
    answered("svc_account=acme&svc_event=view");
    answered(`svc_account=acme&email_address=%20${erased.replace("@", "%40")}`);
    assert.equal(
      journal.forget((kept) => journaledRequestHoldsErasedValue(kept, "acme", erased)),
      2,
    );
    assert.deepEqual(
      journal.query().map((entry) => entry.id),
      [2],
    );
  });
});
