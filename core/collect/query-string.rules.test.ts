import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { readQueryString } from "./query-string.rules.ts";

const queryPairsOf = (url: string) => readQueryString(url).pairs;

/** What the platform's URL reads of a request's URL (its searchParams), and that URL as a request carries it. */
function asRequestUrl(text: string): { readonly href: string; readonly pairs: Array<readonly [string, string]> } {
  const url = new URL(`/event?${text}`, "http://svc.test");
  return { href: url.href, pairs: [...url.searchParams] };
}

/** Query text made of what makes parsing hard: separators, `+`, `%` with and without hex digits, escapes. */
const queryText = fc
  .array(
    fc.oneof(
      fc.constantFrom("&", "=", "+", "%", "#", "?", "a", "B", "0", "f", "G", "%2", "%zz", "%25", "%2B", "%26", "%3D"),
      fc.integer({ min: 0, max: 255 }).map((byte) => `%${byte.toString(16).padStart(2, "0")}`),
      fc.integer({ min: 0, max: 255 }).map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`),
      fc.string({ maxLength: 4 }),
      fc.string({ unit: "binary", maxLength: 3 }),
    ),
    { maxLength: 24 },
  )
  .map((parts) => parts.join(""));

describe("queryPairsOf: a URL's query string as URLSearchParams reads it (COL-03)", () => {
  it("reads names and values in order, skips empty pairs and keeps a name without '='", () => {
    assert.deepEqual(queryPairsOf("/event?svc_account=acme&&svc_profile=main&flag&=v&a=1=2"), [
      ["svc_account", "acme"],
      ["svc_profile", "main"],
      ["flag", ""],
      ["", "v"],
      ["a", "1=2"],
    ]);
    assert.deepEqual(queryPairsOf("/event"), []);
    assert.deepEqual(queryPairsOf("/event?"), []);
    // Only the first "?" starts the query; a second one is part of the first name, as in URL's searchParams.
    assert.deepEqual(queryPairsOf("/event??a=1"), [["?a", "1"]]);
  });

  it("decodes '+' as a space and percent-escapes as UTF-8; what is not UTF-8 becomes U+FFFD, a bare '%' stays", () => {
    assert.deepEqual(queryPairsOf("/e?q=a+b%20c&name=%C3%A9t%C3%A9&bad=%FF%zz%4&bom=%EF%BB%BFx"), [
      ["q", "a b c"],
      ["name", "été"],
      ["bad", "\uFFFD%zz%4"],
      ["bom", "\uFEFFx"],
    ]);
  });

  it("stops at a fragment, which a URL made in-process may carry", () => {
    assert.deepEqual(queryPairsOf("/e?a=1&b=2#c=3"), [
      ["a", "1"],
      ["b", "2"],
    ]);
  });

  it("agrees with URL's searchParams on the URL of any request", () => {
    fc.assert(
      fc.property(queryText, (text) => {
        const { href, pairs } = asRequestUrl(text);
        assert.deepEqual(queryPairsOf(href), pairs);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("readQueryString: the pairs and the length in one pass (a collected request enters this file once)", () => {
  it("counts the query string from its '?' to the URL's end, as the byte budget does", () => {
    assert.deepEqual(readQueryString("/event?a=1&b=2"), {
      pairs: [
        ["a", "1"],
        ["b", "2"],
      ],
      length: 8,
    });
    assert.deepEqual(readQueryString("/event?a=1#frag"), { pairs: [["a", "1"]], length: 9 });
    assert.deepEqual(readQueryString("/event"), { pairs: [], length: 0 });
    assert.deepEqual(readQueryString("/event?"), { pairs: [], length: 1 });
  });
});
