import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { CollectErrorCode } from "../errors/collect.errors.ts";
import { maxIndexedTextBytes } from "../values/storable-text.rules.ts";
import {
  type CollectRequestInput,
  type EventParams,
  parseEventBody,
  readCollectRequest,
  refererHost,
} from "./collect.rules.ts";

const known = new Set(["acme/main", "acme/dev", "globex/main"]);
const isKnownProfile = (account: string, profile: string) => known.has(`${account}/${profile}`);

function params(entries: Record<string, unknown>): EventParams {
  return Object.assign(Object.create(null) as EventParams, entries);
}

function read(overrides: Partial<CollectRequestInput>) {
  return readCollectRequest({ method: "GET", query: [], body: null, referer: null, isKnownProfile, ...overrides });
}

function refusal(result: ReturnType<typeof read> | ReturnType<typeof parseEventBody>): CollectErrorCode | "ok" {
  return result.ok ? "ok" : result.error.code;
}

const q = (text: string) => new URLSearchParams(text);

describe("collection parameters", () => {
  const table: Array<[string, Partial<CollectRequestInput>, CollectErrorCode | "ok"]> = [
    ["[COL-03, DEC-COL-01] svc_profile absent means main", { query: q("svc_account=acme") }, "ok"],
    ["[COL-04, DEC-COL-01] svc_account missing", { query: q("svc_profile=main") }, "missingAccountOrProfile"],
    [
      "[COL-04, DEC-COL-01] svc_account empty",
      { query: q("svc_account=&svc_profile=main") },
      "missingAccountOrProfile",
    ],
    [
      "[COL-04, DEC-COL-01] svc_profile present but empty",
      { query: q("svc_account=acme&svc_profile=") },
      "missingAccountOrProfile",
    ],
    [
      "[COL-03, DEC-COL-01] svc_account not a string in a JSON body",
      { method: "POST", body: params({ svc_account: 7 }) },
      "paramNotString",
    ],
    [
      "[COL-03, DEC-COL-01] svc_profile not a string in a JSON body",
      { method: "POST", body: params({ svc_account: "acme", svc_profile: true }) },
      "paramNotString",
    ],
    [
      "[COL-04, DEC-COL-01] svc_account null in a JSON body is missing",
      { method: "POST", body: params({ svc_account: null }) },
      "missingAccountOrProfile",
    ],
    ["[COL-05, DEC-COL-02] unknown account", { query: q("svc_account=acmee") }, "unknownAccountOrProfile"],
    [
      "[COL-05, DEC-COL-02] unknown profile",
      { query: q("svc_account=globex&svc_profile=dev") },
      "unknownAccountOrProfile",
    ],
    [
      "[COL-09, DEC-COL-02] restricted characters in the account",
      { query: q("svc_account=ac.me") },
      "restrictedCharacters",
    ],
    [
      "[COL-09, DEC-COL-02] restricted characters in svc_datasource",
      { query: q("svc_account=acme&svc_datasource=a/b") },
      "restrictedCharacters",
    ],
    [
      "[COL-09, DEC-COL-04] svc_datasource not a string",
      { method: "POST", body: params({ svc_account: "acme", svc_datasource: 5 }) },
      "restrictedCharacters",
    ],
    [
      "[COL-09, DEC-COL-02] 250 characters together pass",
      { query: q(`svc_account=acme&svc_datasource=${"d".repeat(242)}`) },
      "ok",
    ],
    [
      "[COL-09, DEC-COL-02] 251 characters together are refused",
      { query: q(`svc_account=acme&svc_datasource=${"d".repeat(243)}`) },
      "namesTooLong",
    ],
    ["[COL-08, DEC-COL-04] file-type json", { query: q("svc_account=acme&file-type=json") }, "ok"],
    ["[COL-08, DEC-COL-04] file-type javascript", { query: q("svc_account=acme&file-type=javascript") }, "ok"],
    ["[COL-08, DEC-COL-04] file-type xml", { query: q("svc_account=acme&file-type=xml") }, "invalidFileType"],
    ["[COL-07] a POST with neither body nor parameters", { method: "POST" }, "emptyBody"],
    ["[COL-07] a POST with only cache-busters", { method: "POST", query: q("cb=1&_=2") }, "emptyBody"],
    [
      "[DEC-COL-04] a POST without body but with query parameters",
      { method: "POST", query: q("svc_account=acme") },
      "ok",
    ],
    [
      "[COL-04] a POST without body with parameters but no account",
      { method: "POST", query: q("svc_event=x") },
      "missingAccountOrProfile",
    ],
  ];
  for (const [title, input, expected] of table) {
    it(title, () => assert.equal(refusal(read(input)), expected));
  }

  it("[DEC-COL-04] body parameters win over the query string; a repeated query parameter keeps its first value", () => {
    const result = read({
      method: "POST",
      query: q("svc_account=acme&a=query&b=1&b=2"),
      body: params({ a: "body", c: [1] }),
    });
    assert.ok(result.ok);
    assert.deepEqual({ ...result.value.params }, { svc_account: "acme", a: "body", b: "1", c: [1] });
  });

  it("[COL-12, DEC-COL-05] cb and _ are never stored, from the query or the body", () => {
    const result = read({ method: "POST", query: q("svc_account=acme&cb=1&_=2"), body: params({ cb: 3, _: 4, x: 5 }) });
    assert.ok(result.ok);
    assert.deepEqual(Object.keys(result.value.params).sort(), ["svc_account", "x"]);
  });

  it("[COL-11, DEC-COL-05] a GET stores the Referer's host name as svc_referrer_host; a POST does not", () => {
    const get = read({ query: q("svc_account=acme"), referer: "https://Shop.Example.com:8443/cart?id=1#top" });
    assert.ok(get.ok);
    assert.equal(get.value.params.svc_referrer_host, "shop.example.com");
    const post = read({ method: "POST", query: q("svc_account=acme"), referer: "https://shop.example.com/" });
    assert.ok(post.ok);
    assert.equal(post.value.params.svc_referrer_host, undefined);
    const garbage = read({ query: q("svc_account=acme"), referer: "not a url" });
    assert.ok(garbage.ok);
    assert.equal("svc_referrer_host" in garbage.value.params, false);
  });

  it("reads the event name, trace id and data source", () => {
    const result = read({
      query: q("svc_account=acme&svc_profile=dev&svc_event=purchase&svc_trace_id=t1&svc_datasource=ds1"),
    });
    assert.ok(result.ok);
    assert.deepEqual(
      {
        account: result.value.account,
        profile: result.value.profile,
        event: result.value.event,
        traceId: result.value.traceId,
        datasource: result.value.datasource,
      },
      { account: "acme", profile: "dev", event: "purchase", traceId: "t1", datasource: "ds1" },
    );
  });

  it("[DEC-COL-04] an event name or trace id sent as a JSON number is its text, in the event's data too; a lone surrogate is U+FFFD", () => {
    const numbers = read({
      method: "POST",
      body: params({ svc_account: "acme", svc_event: 42, svc_trace_id: 9001.5 }),
    });
    assert.ok(numbers.ok);
    assert.deepEqual([numbers.value.event, numbers.value.traceId], ["42", "9001.5"]);
    assert.deepEqual([numbers.value.params.svc_event, numbers.value.params.svc_trace_id], ["42", "9001.5"]);
    const surrogate = read({ method: "POST", body: params({ svc_account: "acme", svc_trace_id: "t\uD800" }) });
    assert.ok(surrogate.ok);
    assert.equal(surrogate.value.traceId, "t\uFFFD");
    assert.equal(surrogate.value.params.svc_trace_id, "t\uFFFD");
    const none = read({
      method: "POST",
      body: params({ svc_account: "acme", svc_event: true, svc_trace_id: { id: 1 } }),
    });
    assert.ok(none.ok);
    assert.deepEqual([none.value.event, none.value.traceId], [null, null]);
    assert.equal(none.value.params.svc_event, true);
  });

  it("an event name or trace id with a U+0000, or over 2,048 bytes, is refused: not every store keeps or indexes it (second probe, finding 4)", () => {
    for (const name of ["svc_event", "svc_trace_id"]) {
      for (const value of ["a\u0000b", "\u0000", "x".repeat(2049), "一".repeat(683)]) {
        const result = read({ method: "POST", body: params({ svc_account: "acme", [name]: value }) });
        assert.equal(refusal(result), "unstorableText", `${name} ${JSON.stringify(value.slice(0, 10))}`);
        assert.ok(!result.ok && result.error.xError.startsWith(`Unusable ${name} param value:`));
        assert.ok(!result.ok && result.error.xError.includes(`${maxIndexedTextBytes} bytes`));
      }
      assert.equal(
        refusal(
          read({
            query: [
              ["svc_account", "acme"],
              [name, "x".repeat(2048)],
            ],
          }),
        ),
        "ok",
      );
      // Other parameters keep U+0000: the event's data is JSON, which every store keeps as it is.
      const kept = read({ method: "POST", body: params({ svc_account: "acme", note: "a\u0000b", "k\u0000": 1 }) });
      assert.ok(kept.ok);
      assert.deepEqual([kept.value.params.note, kept.value.params["k\u0000"]], ["a\u0000b", 1]);
    }
  });

  it("[DEC-COL-09] a visitor ID sent as a whole number past 2^53 keeps the digits sent; other large numbers are JSON's", () => {
    const body = parseEventBody(
      '{"svc_account":"acme","svc_visitor_id":12345678901234567890,"svc_override_tapid":9007199254740993,"amount":12345678901234567890,"nested":{"svc_visitor_id":12345678901234567890}}',
    );
    assert.ok(body.ok);
    assert.equal(body.value.svc_visitor_id, "12345678901234567890");
    assert.equal(body.value.svc_override_tapid, "9007199254740993");
    assert.equal(body.value.amount, 12345678901234567000);
    assert.deepEqual(body.value.nested, { svc_visitor_id: 12345678901234567000 });
    const small = parseEventBody('{"svc_account":"acme","svc_visitor_id":42}');
    assert.ok(small.ok);
    assert.equal(small.value.svc_visitor_id, 42);
  });

  it("parameter names such as __proto__ and constructor stay plain data", () => {
    const body = parseEventBody('{"svc_account":"acme","__proto__":{"x":1},"hasOwnProperty":2}');
    assert.ok(body.ok);
    const result = read({ method: "POST", query: q("constructor=q"), body: body.value });
    assert.ok(result.ok);
    // biome-ignore lint/suspicious/noProto: reads the parameter named __proto__, which must stay plain data
    assert.deepEqual(JSON.parse(JSON.stringify(result.value.params.__proto__)), { x: 1 });
    assert.deepEqual(Object.keys(result.value.params).sort(), [
      "__proto__",
      "constructor",
      "hasOwnProperty",
      "svc_account",
    ]);
    assert.equal(Object.getPrototypeOf(result.value.params), null);
    assert.equal(({} as Record<string, unknown>).x, undefined);
  });

  it("never throws, whatever the query and body", () => {
    const value = fc.jsonValue() as fc.Arbitrary<EventParams[string]>;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string(), fc.string())),
        fc.option(fc.dictionary(fc.string(), value), { nil: null }),
        fc.boolean(),
        (query, body, post) => {
          void read({
            method: post ? "POST" : "GET",
            query,
            body: body === null ? null : Object.assign(Object.create(null) as EventParams, body),
          });
        },
      ),
    );
  });
});

describe("visitor ID parameters (DEC-COL-09, VID-01, VID-04)", () => {
  const idParams = ["svc_visitor_id", "svc_override_tapid", "svc_firstparty_visitor_id"] as const;

  for (const name of idParams) {
    it(`[DEC-COL-09] ${name} with a NUL or another control character is refused`, () => {
      for (const value of ["alice\u0000mallory", "a\nb", "a\u001fb", "a\u007fb"]) {
        const result = read({
          query: [
            ["svc_account", "acme"],
            [name, value],
          ],
        });
        assert.equal(refusal(result), "unusableVisitorId", JSON.stringify(value));
        assert.ok(
          !result.ok && result.error.xError.startsWith(`Unusable ${name} param value`),
          !result.ok ? result.error.xError : "",
        );
      }
    });

    it(`[DEC-COL-09] ${name} of 1,024 characters passes, 1,025 are refused`, () => {
      assert.equal(
        refusal(
          read({
            query: [
              ["svc_account", "acme"],
              [name, "v".repeat(1024)],
            ],
          }),
        ),
        "ok",
      );
      assert.equal(
        refusal(
          read({
            query: [
              ["svc_account", "acme"],
              [name, "v".repeat(1025)],
            ],
          }),
        ),
        "unusableVisitorId",
      );
      assert.equal(
        refusal(
          read({
            query: [
              ["svc_account", "acme"],
              [name, "v".repeat(200_000)],
            ],
          }),
        ),
        "unusableVisitorId",
      );
    });

    it(`[DEC-COL-09] ${name} as a JSON number is taken as its text`, () => {
      const result = read({ method: "POST", body: params({ svc_account: "acme", [name]: 12345 }) });
      assert.ok(result.ok);
      assert.equal(result.value.params[name], "12345");
    });

    it(`[DEC-COL-09] ${name} as a boolean, object or array is refused: it must be a string`, () => {
      for (const value of [true, false, { id: "a" }, ["a"]]) {
        const result = read({ method: "POST", body: params({ svc_account: "acme", [name]: value }) });
        assert.equal(refusal(result), "paramNotString", JSON.stringify(value));
        assert.ok(!result.ok && result.error.xError === `${name} param value must be a string`);
      }
    });

    it(`[DEC-COL-09] ${name} null or empty is no ID, not a refusal`, () => {
      assert.equal(refusal(read({ method: "POST", body: params({ svc_account: "acme", [name]: null }) })), "ok");
      assert.equal(
        refusal(
          read({
            query: [
              ["svc_account", "acme"],
              [name, ""],
            ],
          }),
        ),
        "ok",
      );
    });
  }

  it("[DEC-COL-01] svc_account as a number names the parameter that must be a string", () => {
    const result = read({ method: "POST", body: params({ svc_account: 123 }) });
    assert.ok(!result.ok);
    assert.equal(result.error.xError, "svc_account param value must be a string");
  });

  it("[DEC-COL-09] the v_id of a utag_main cookie with a control character is refused when it is the first-party ID", () => {
    const cookieHeader = "utag_main=v_id:alice%00mallory$_sn:1";
    const result = read({ query: q("svc_account=acme"), cookieHeader });
    assert.equal(refusal(result), "unusableVisitorId");
    assert.ok(!result.ok && result.error.xError.startsWith("Unusable v_id of the utag_main cookie"));
    assert.equal(
      refusal(read({ query: q(`svc_account=acme`), cookieHeader: `utag_main=v_id:${"v".repeat(1025)}` })),
      "unusableVisitorId",
    );
    // svc_firstparty_visitor_id wins over the cookie, which is then not read at all.
    assert.equal(refusal(read({ query: q("svc_account=acme&svc_firstparty_visitor_id=f1"), cookieHeader })), "ok");
    assert.equal(refusal(read({ query: q("svc_account=acme"), cookieHeader: "utag_main=v_id:0190abc$_sn:1" })), "ok");
  });

  // Issue 42, "a request read once": the read value carries everything the rules after it need (the checked
  // parameters, the parsed cookies, the visitor-ID inputs), so identification never goes back to the raw request.
  it("[DEC-COL-09, DEC-COL-10, DEC-COL-11] a GET is read once into a value holding its parsed cookies and its visitor-ID inputs", () => {
    const result = read({
      query: q(
        "svc_account=acme&svc_visitor_id=__acme_main__5120_%20ann@example.com__&svc_skip_3rd_party_vid_cookies=TRUE",
      ),
      cookieHeader: "TAPID=globex/main>g|; utag_main=v_id:0190abc$_sn:1; TAPID=acme/main>t|; utag_main=v_id:second",
    });
    assert.ok(result.ok);
    const { cookies, visitor } = result.value;
    // What the rules after the read take of the cookies: every TAPID, and the first utag_main's v_id; and, for the
    // journal, their pairs as sent.
    assert.deepEqual(cookies, {
      tapid: ["globex/main>g|", "acme/main>t|"],
      utagMainVisitorId: "0190abc",
      sent: "TAPID=globex/main>g|; utag_main=v_id:0190abc$_sn:1; TAPID=acme/main>t|; utag_main=v_id:second",
    });
    assert.deepEqual(visitor.inputs, {
      override: null,
      tapid: "t",
      visitorId: "__acme_main__5120_ann@example.com__",
      firstParty: "0190abc",
      skipTapid: true,
      deleteTapid: false,
    });
    assert.deepEqual(visitor.tapidEntries, [
      { account: "globex", profile: "main", visitorId: "g" },
      { account: "acme", profile: "main", visitorId: "t" },
    ]);
    assert.deepEqual(visitor.knownVisitorId, { attributeId: 5120, value: "ann@example.com" });
    assert.deepEqual(visitor.params, {
      svc_override_tapid: null,
      svc_visitor_id: "__acme_main__5120_ ann@example.com__",
      svc_firstparty_visitor_id: null,
    });
  });

  it("[DEC-COL-04, DEC-COL-09] a POST is read once the same way: the body's visitor IDs (a number as its text) and the cookies", () => {
    const result = read({
      method: "POST",
      query: q("svc_account=acme"),
      body: params({ svc_override_tapid: 42, svc_firstparty_visitor_id: "f1", svc_delete_3rd_party_vid_cookies: true }),
      cookieHeader: 'TAPID="acme/main>t|"; utag_main=v_id:0190abc',
    });
    assert.ok(result.ok);
    assert.deepEqual(result.value.visitor.inputs, {
      override: "42",
      tapid: "t",
      visitorId: null,
      firstParty: "f1",
      skipTapid: false,
      deleteTapid: true,
    });
    assert.equal(result.value.params.svc_override_tapid, "42");
    assert.deepEqual(result.value.cookies.tapid, ["acme/main>t|"]);
    assert.equal(result.value.cookies.utagMainVisitorId, "0190abc");
  });

  it("any JSON value in a visitor ID parameter gives ok or a refusal, never a throw, and an accepted one is usable text", () => {
    fc.assert(
      fc.property(fc.constantFrom(...idParams), fc.jsonValue(), (name, value) => {
        const result = read({ method: "POST", body: params({ svc_account: "acme", [name]: value }) });
        if (!result.ok) return;
        const stored = result.value.params[name];
        assert.ok(stored === null || typeof stored === "string", JSON.stringify(stored));
        // biome-ignore lint/suspicious/noControlCharactersInRegex: checks that no control character is stored
        if (typeof stored === "string") assert.ok(stored.length <= 1024 && !/[\u0000-\u001f\u007f]/.test(stored));
      }),
    );
  });
});

describe("svc_referrer_host (DEC-COL-05)", () => {
  it("[DEC-COL-05] a client-sent svc_referrer_host is never stored: with an unparseable Referer there is none", () => {
    const result = read({ query: q("svc_account=acme&svc_referrer_host=fake"), referer: "not a url" });
    assert.ok(result.ok);
    assert.equal("svc_referrer_host" in result.value.params, false);
  });

  it("[DEC-COL-05] the Referer's host replaces a client-sent svc_referrer_host", () => {
    const result = read({ query: q("svc_account=acme&svc_referrer_host=fake"), referer: "https://shop.example.com/p" });
    assert.ok(result.ok);
    assert.equal(result.value.params.svc_referrer_host, "shop.example.com");
  });

  it("[DEC-COL-05] a POST never stores a client-sent svc_referrer_host, from the body or the query", () => {
    const result = read({
      method: "POST",
      query: q("svc_referrer_host=q"),
      body: params({ svc_account: "acme", svc_referrer_host: "fake" }),
    });
    assert.ok(result.ok);
    assert.equal("svc_referrer_host" in result.value.params, false);
  });
});

describe("event bodies (COL-06, DEC-COL-04, DEC-DLE-03)", () => {
  const nest = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${"}".repeat(levels - 1)}`;
  const table: Array<[string, string, CollectErrorCode | "ok"]> = [
    ["an object", '{"svc_account":"acme"}', "ok"],
    ["[COL-06] invalid JSON", '{"svc_account":', "invalidJson"],
    ["[COL-06] an array", "[1,2]", "notAnObject"],
    ["[COL-06] a string", '"text"', "notAnObject"],
    ["[COL-06] null", "null", "notAnObject"],
    ["[COL-06] a key with a period at the top", '{"a.b":1}', "keyWithPeriod"],
    ["[COL-06] a key with a period at depth 3", '{"a":{"b":{"c.d":1}}}', "keyWithPeriod"],
    ["[COL-06] a key with a period in an object inside an array", '{"a":[1,{"b.c":1}]}', "keyWithPeriod"],
    ["a period in a value is fine", '{"a":"b.c"}', "ok"],
    ["[DEC-DLE-03] 64 levels pass", nest(64), "ok"],
    ["[DEC-DLE-03] 65 levels are refused", nest(65), "tooDeep"],
    ["[DEC-DLE-03] 100000 open brackets are refused without parsing", "[".repeat(100_000), "tooDeep"],
  ];
  for (const [title, text, expected] of table) {
    it(title, () => assert.equal(refusal(parseEventBody(text)), expected));
  }

  it("never throws on any text or any JSON", () => {
    fc.assert(fc.property(fc.string(), (text) => void parseEventBody(text)));
    fc.assert(fc.property(fc.jsonValue(), (value) => void parseEventBody(JSON.stringify(value))));
  });

  it("any JSON object without periods in keys reads back deep-equal", () => {
    const key = fc.string().filter((text) => !text.includes("."));
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        fc.string(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie("node")),
        fc.dictionary(key, tie("node")),
      ),
    })).node;
    fc.assert(
      fc.property(fc.dictionary(key, value), (object) => {
        const parsed = parseEventBody(JSON.stringify(object));
        assert.ok(parsed.ok);
        assert.equal(JSON.stringify(parsed.value), JSON.stringify(object));
      }),
    );
  });
});

describe("refererHost (COL-11)", () => {
  it("is the host name only, without port, path or query", () => {
    assert.equal(refererHost("https://www.example.com/a/b?c=d"), "www.example.com");
    assert.equal(refererHost("http://localhost:8080/"), "localhost");
    assert.equal(refererHost(""), null);
    assert.equal(refererHost("/relative"), null);
  });

  it("gives what the URL parser gives for the host: lower case, IPv4 numbers, Punycode, ports, odd schemes", () => {
    assert.equal(refererHost("https://Shop.Example.COM/"), "shop.example.com");
    assert.equal(refererHost("http://1.2.3/"), "1.2.0.3");
    assert.equal(refererHost("http://0x7f.1/x"), "127.0.0.1");
    assert.equal(refererHost("http://example.com.:443"), "example.com.");
    assert.equal(refererHost("http://example.com:bad/"), null);
    assert.equal(refererHost("https://bücher.example/"), "xn--bcher-kva.example");
    assert.equal(refererHost("https://xn--a.example/"), null);
    assert.equal(refererHost("android-app://com.example.app/"), "com.example.app");
  });

  it("agrees with the URL parser on any Referer made of a host's characters", () => {
    /** What `new URL(referer).hostname` says, the reference: "" or a failure is no host. */
    const parserHost = (referer: string) => {
      try {
        const host = new URL(referer).hostname;
        return host === "" ? null : host;
      } catch {
        return null;
      }
    };
    const label = fc
      .array(fc.constantFrom("a", "z", "0", "9", "-", "x", "n", "X", "\u00e9"), { minLength: 0, maxLength: 6 })
      .map((parts) => parts.join(""));
    const referer = fc
      .tuple(
        fc.constantFrom("http://", "https://", "HTTP://", "ftp://", "http:/", ""),
        fc.array(label, { minLength: 1, maxLength: 4 }),
        fc.constantFrom("", ".", ":8080", ":", "/", "/path?q=1", "?q", "#f", "\\x", " ", "@host"),
      )
      .map(([scheme, labels, rest]) => `${scheme}${labels.join(".")}${rest}`);
    fc.assert(
      fc.property(referer, (text) => {
        assert.equal(refererHost(text), parserHost(text));
      }),
      { numRuns: 3000 },
    );
  });
});
