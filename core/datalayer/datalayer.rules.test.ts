import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { assertInvalidRequest } from "../../testing/errors/refusal.ts";
import { managementError } from "../errors/index.ts";
import {
  compareCodeUnits,
  dataLayerScript,
  limitDataLayerList,
  readDataLayerEncoding,
  reportStatus,
  statusRetentionMs,
  validateDataLayerBody,
  validateDataLayerContentType,
  validateDataLayerPath,
  validateProfilePath,
} from "./datalayer.rules.ts";

const allowedChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-~";
const day = 86_400_000;

describe("data layer names (DLE-ERR-02, DLE-ERR-03, DEC-DLE-02)", () => {
  it("accepts every allowed character", () => {
    assert.deepEqual(validateDataLayerPath("acme", "main", allowedChars), {
      ok: true,
      value: { account: "acme", profile: "main", dlId: allowedChars },
    });
  });

  // The set of DEC-DLE-02, and more: whitespace, the URL delimiters, quotes, backslash, non-ASCII.
  const restricted = [
    " ",
    "\t",
    "\n",
    "/",
    ":",
    "?",
    "#",
    "[",
    "]",
    "@",
    "!",
    "$",
    "&",
    "'",
    "(",
    ")",
    "*",
    "+",
    ",",
    ";",
    "=",
    "%",
    ".",
    '"',
    "\\",
    "<",
    ">",
    "{",
    "}",
    "|",
    "^",
    "`",
    "é",
    "ü",
    "😀",
    "\u0000",
    "\u00a0",
  ];
  for (const char of restricted) {
    it(`refuses ${JSON.stringify(char)} in a dl_id, account or profile with 400 1400`, () => {
      assertInvalidRequest(
        validateDataLayerPath("acme", "main", `prod${char}1`),
        /^the data layer id "prod.+1" holds a character names may not: only A-Z a-z 0-9 _ - ~$/,
      );
      assertInvalidRequest(
        validateDataLayerPath(`ac${char}me`, "main", "prod"),
        /^the account "ac.+me" holds a character/,
      );
      assertInvalidRequest(
        validateDataLayerPath("acme", `ma${char}in`, "prod"),
        /^the profile "ma.+in" holds a character/,
      );
    });
  }

  it("refuses an empty name and a path segment that could not be decoded (null)", () => {
    assertInvalidRequest(validateDataLayerPath("acme", "main", ""), /^the data layer id in the path is empty$/);
    assertInvalidRequest(
      validateDataLayerPath("acme", "main", null),
      /^the data layer id in the path is not valid percent-encoding$/,
    );
    assertInvalidRequest(
      validateDataLayerPath(undefined, "main", "x"),
      /^the account in the path is not valid percent-encoding$/,
    );
    assertInvalidRequest(validateProfilePath("acme", null), /^the profile in the path is not valid percent-encoding$/);
  });

  it("counts account + profile + dl_id without separators: 250 passes, 251 is refused", () => {
    assert.ok(validateDataLayerPath("acme", "main", "x".repeat(242)).ok);
    assertInvalidRequest(
      validateDataLayerPath("acme", "main", "x".repeat(243)),
      /^the account, profile and data layer id are 251 characters together, and may be 250 at most$/,
    );
    assert.ok(validateDataLayerPath("a".repeat(124), "p".repeat(125), "d").ok);
    assertInvalidRequest(
      validateDataLayerPath("a".repeat(125), "p".repeat(125), "d"),
      /^the account, profile and data layer id are 251 characters together/,
    );
    assertInvalidRequest(
      validateProfilePath("a".repeat(125), "p".repeat(126)),
      /^the account and profile are 251 characters together/,
    );
  });

  it("accepts allowed names exactly when their lengths add up to at most 250", () => {
    const name = (max: number) => fc.string({ unit: fc.constantFrom(...allowedChars), minLength: 1, maxLength: max });
    fc.assert(
      fc.property(name(120), name(120), name(120), (account, profile, dlId) => {
        assert.equal(
          validateDataLayerPath(account, profile, dlId).ok,
          account.length + profile.length + dlId.length <= 250,
        );
      }),
    );
  });

  it("never accepts a name with any other character", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", minLength: 1, maxLength: 20 }), (text) => {
        const allowed = [...text].every((char) => allowedChars.includes(char));
        assert.equal(validateDataLayerPath("acme", "main", text).ok, allowed);
      }),
    );
  });
});

describe("upload and update requests (DEC-DLE-03, DEC-DLE-04)", () => {
  it("takes application/json with or without parameters, in any case", () => {
    for (const type of [
      "application/json",
      "application/json; charset=utf-8",
      "Application/JSON;charset=UTF-8",
      " application/json ",
    ]) {
      assert.ok(validateDataLayerContentType(type).ok, type);
    }
  });

  it("refuses any other Content-Type, or none, with 400 1400", () => {
    for (const type of [
      null,
      undefined,
      "",
      "text/plain",
      "application/x-www-form-urlencoded",
      "application/json-patch+json",
      "application/jsonx",
      "text/json",
    ]) {
      assertInvalidRequest(
        validateDataLayerContentType(type),
        /^the Content-Type must be application\/json, not /,
        String(type),
      );
    }
    assertInvalidRequest(
      validateDataLayerContentType("text/plain"),
      /^the Content-Type must be application\/json, not "text\/plain"$/,
    );
    assertInvalidRequest(
      validateDataLayerContentType(null),
      /^the Content-Type must be application\/json, not missing$/,
    );
  });

  it("accepts gzip (and x-gzip, identity, none) and refuses other encodings with 400 1400", () => {
    assert.deepEqual(readDataLayerEncoding("gzip"), { ok: true, value: "gzip" });
    assert.deepEqual(readDataLayerEncoding("GZIP"), { ok: true, value: "gzip" });
    assert.deepEqual(readDataLayerEncoding("x-gzip"), { ok: true, value: "gzip" });
    assert.deepEqual(readDataLayerEncoding(null), { ok: true, value: "identity" });
    assert.deepEqual(readDataLayerEncoding("identity"), { ok: true, value: "identity" });
    for (const coding of ["br", "deflate", "compress", "gzip, br", "zstd"]) {
      assertInvalidRequest(
        readDataLayerEncoding(coding),
        new RegExp(`^the Content-Encoding "${coding}" is not taken: gzip, or none$`),
        coding,
      );
    }
  });

  it("answers the body's text exactly as sent, so that it is served as sent", () => {
    const text = '{ "big": 123456789012345678901234567890, "float": 1.50, "__proto__": {"a": 1} }';
    assert.deepEqual(validateDataLayerBody(text), { ok: true, value: text });
  });

  it("refuses an empty, invalid, non-object, too deep body or a key with a period with 400 1400", () => {
    const refused: Array<[string, RegExp]> = [
      ["", /^the body is empty$/],
      ["{", /^the body is not valid JSON$/],
      ["[]", /^the body must be a JSON object, not an array$/],
      ["null", /^the body must be a JSON object, not null$/],
      ['"x"', /^the body must be a JSON object, not a string$/],
      ['{"a":{"b.c":1}}', /^no key may hold a period \(\.\), and \/a\/b\.c does$/],
      ['{"a/b":[0,{"~c.":1}]}', /^no key may hold a period \(\.\), and \/a~1b\/1\/~0c\. does$/],
      ["[".repeat(65) + "]".repeat(65), /^the body nests objects and arrays deeper than 64 levels$/],
      [`{"a":${"[".repeat(64)}${"]".repeat(64)}}`, /^the body nests objects and arrays deeper than 64 levels$/],
    ];
    for (const [text, reason] of refused) assertInvalidRequest(validateDataLayerBody(text), reason, text.slice(0, 40));
  });
});

describe("list (DLE-05, DLE-12, DEC-DLE-09)", () => {
  it("sorts by UTF-16 code unit, not by locale", () => {
    assert.deepEqual(limitDataLayerList(["b", "a", "B", "_", "~", "0", "-"], 1000), {
      ok: true,
      value: ["-", "0", "B", "_", "a", "b", "~"],
    });
  });

  it("answers up to the maximum and refuses more with the list message", () => {
    const names = Array.from({ length: 1001 }, (_, index) => `dl_${index}`);
    assert.equal(limitDataLayerList(names.slice(0, 1000), 1000).ok, true);
    assert.deepEqual(limitDataLayerList(names, 1000), {
      ok: false,
      error: {
        kind: "management",
        code: "dataLayerListTooLarge",
        status: 400,
        returnCode: 1400,
        message: "Invalid request submission. Data layer list size exceeds maximum permissible (1000).",
      },
    });
  });

  it("[DEC-GEN-01] the refusal names the configured maximum (limits.dataLayerListMax)", () => {
    const refused = limitDataLayerList(["a", "b", "c", "d"], 3);
    assert.equal(refused.ok, false);
    if (!refused.ok)
      assert.equal(
        refused.error.message,
        "Invalid request submission. Data layer list size exceeds maximum permissible (3).",
      );
  });

  it("code-unit order is a total order that agrees with <", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) =>
        assert.equal(Math.sign(compareCodeUnits(a, b)), a < b ? -1 : a > b ? 1 : 0),
      ),
    );
  });
});

describe("get status (DLE-04, DLE-08, DLE-09, DEC-DLE-05, DEC-DLE-08)", () => {
  const retention = statusRetentionMs({ statusRetentionDays: 30 });
  const unavailable = { ok: false, error: managementError("statusUnavailable") };

  it("retention is 30 days by default", () => {
    assert.equal(retention, 30 * day);
  });

  it("answers the newest change's state while it is kept", () => {
    assert.deepEqual(reportStatus({ state: "pending", acceptedAt: 1_000, settledAt: null }, 2_000, retention), {
      ok: true,
      value: "pending",
    });
    assert.deepEqual(
      reportStatus({ state: "completed", acceptedAt: 1_000, settledAt: 5_000 }, 5_000 + retention - 1, retention),
      { ok: true, value: "completed" },
    );
    assert.deepEqual(reportStatus({ state: "failed", acceptedAt: 1_000, settledAt: 5_000 }, 6_000, retention), {
      ok: true,
      value: "failed",
    });
  });

  it("is 404 'Status unavailable' for an unknown dl_id and 30 days after the last change", () => {
    assert.deepEqual(reportStatus(null, 0, retention), unavailable);
    assert.deepEqual(
      reportStatus({ state: "completed", acceptedAt: 1_000, settledAt: 5_000 }, 5_000 + retention, retention),
      unavailable,
    );
    assert.deepEqual(
      reportStatus({ state: "pending", acceptedAt: 1_000, settledAt: null }, 1_000 + retention, retention),
      unavailable,
    );
  });
});

describe("the served script (DEC-DLE-07)", () => {
  function run(script: string, window: Record<string, unknown>): Record<string, unknown> {
    new Function("window", script)(window);
    return window;
  }

  it("assigns the object to window.utag.globals.dle.enrichments[dl_id], creating the path", () => {
    const window = run(dataLayerScript("prod_1", '{"a":[1,{"b":"c"}]}'), {});
    assert.deepEqual(window, { utag: { globals: { dle: { enrichments: { prod_1: { a: [1, { b: "c" }] } } } } } });
  });

  it("keeps what the page already has under window.utag", () => {
    const window = run(dataLayerScript("second", '{"n":2}'), {
      utag: { id: "u", globals: { dle: { enrichments: { first: { n: 1 } } } } },
    });
    assert.deepEqual(window, {
      utag: { id: "u", globals: { dle: { enrichments: { first: { n: 1 }, second: { n: 2 } } } } },
    });
  });

  it("keeps __proto__ as data and cannot be broken out of by the content", () => {
    const text = '{"__proto__":{"polluted":true},"html":"</script><script>alert(1)</script>","line":"\u2028\u2029"}';
    const script = dataLayerScript("x", text);
    assert.ok(!script.includes("</script>"));
    const enrichments = (
      run(script, {}) as { utag: { globals: { dle: { enrichments: Record<string, Record<string, unknown>> } } } }
    ).utag.globals.dle.enrichments;
    const value = enrichments.x as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.ok(Object.hasOwn(value, "__proto__"));
    assert.deepEqual(JSON.stringify(value), JSON.stringify(JSON.parse(text)));
  });

  it("serves any JSON object back unchanged", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })), (object) => {
        const text = JSON.stringify(object);
        const window = run(dataLayerScript("id", text), {}) as {
          utag: { globals: { dle: { enrichments: Record<string, unknown> } } };
        };
        assert.equal(JSON.stringify(window.utag.globals.dle.enrichments.id), text);
      }),
    );
  });
});
