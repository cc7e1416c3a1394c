/**
 * Issue 43, point 1: the request journal whole (headers and bodies, secrets redacted, binary as base64), and
 * finding and counting its requests by a matcher, with near misses when nothing matched (as WireMock's).
 */

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { ok } from "../result.ts";
import { type AnsweredRequest, RequestJournal, validateRequestMatcher } from "./index.ts";
import { parseJsonPath } from "./request-matcher.rules.ts";

const encode = (text: string) => ({ bytes: new TextEncoder().encode(text), truncated: false });
/** A stand-in for the host's URLPattern: `*` any run of characters, the rest literal. */
const compileGlob = (pattern: string) => {
  const source = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*");
  const expression = new RegExp(`^${source}$`);
  return ok((path: string) => expression.test(path));
};
const matcherOf = (input: unknown) => {
  const checked = validateRequestMatcher(input, compileGlob);
  assert.ok(checked.ok, JSON.stringify(checked));
  return checked.value;
};

function answered(overrides: Partial<AnsweredRequest> = {}): AnsweredRequest {
  return {
    method: "GET",
    path: "/event",
    query: "",
    route: "/event",
    atMs: 0,
    status: 200,
    durationMs: 1,
    fault: null,
    ...overrides,
  };
}

function journalOfExamples(): RequestJournal {
  const journal = new RequestJournal();
  journal.record(
    answered({
      method: "POST",
      path: "/v1/login",
      route: "/v1/login",
      headers: [["content-type", "application/x-www-form-urlencoded"]],
      body: encode("username=demo%40example.com&password=demo-password-1"),
      response: {
        headers: [
          ["content-type", "application/json"],
          ["set-cookie", "JSESSIONID=s1; Path=/"],
        ],
        body: encode('{"utk":"u-1","user":{"name":"demo"}}'),
      },
    }),
  );
  journal.record(
    answered({
      method: "POST",
      query: "svc_account=acme&svc_profile=main",
      headers: [
        ["content-type", "application/json"],
        ["authorization", "Bearer abc"],
        ["x-trace", "t-1"],
      ],
      body: encode('{"events":[{"name":"view","value":3}],"apiKey":"k"}'),
      response: {
        headers: [["content-type", "image/gif"]],
        body: { bytes: new Uint8Array([71, 73, 70, 255]), truncated: false },
      },
    }),
  );
  journal.record(answered({ query: "svc_account=acme&svc_event=click&utk=secret", status: 204 }));
  return journal;
}

describe("issue 43: an entry keeps the request and its answer whole, secrets redacted", () => {
  it("shows headers, a form body and a JSON answer with secrets redacted, and a binary body as base64", () => {
    const [click, post, login] = journalOfExamples().query();
    assert.equal(click?.url, "/event?svc_account=acme&svc_event=click&utk=[redacted]");
    assert.deepEqual(login?.request, {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: { text: "username=demo%40example.com&password=[redacted]", bytes: 52, truncated: false },
    });
    assert.deepEqual(login?.response, {
      headers: { "content-type": "application/json", "set-cookie": "[redacted]" },
      body: { text: '{"utk":"[redacted]","user":{"name":"demo"}}', bytes: 36, truncated: false },
    });
    assert.deepEqual(post?.request.headers, {
      "content-type": "application/json",
      authorization: "[redacted]",
      "x-trace": "t-1",
    });
    assert.equal(
      post?.request.body && "text" in post.request.body && post.request.body.text,
      '{"events":[{"name":"view","value":3}],"apiKey":"[redacted]"}',
    );
    assert.deepEqual(post?.response?.body, { base64: "R0lG/w==", bytes: 4, truncated: false });
  });

  it("redacts a secret in JSON cut short by the limit, and shows a gzip body as base64", () => {
    const journal = new RequestJournal();
    journal.record(
      answered({
        headers: [["content-type", "application/json"]],
        body: { ...encode('{"a":1,"token":"abc'), truncated: true },
      }),
    );
    journal.record(answered({ headers: [["content-encoding", "gzip"]], body: encode("plain") }));
    const [gzip, cut] = journal.query();
    assert.deepEqual(cut?.request.body, { text: '{"a":1,"token":"[redacted]', bytes: 19, truncated: true });
    assert.deepEqual(gzip?.request.body, { base64: "cGxhaW4=", bytes: 5, truncated: false });
  });
});

describe("issue 43: finding and counting by a matcher", () => {
  it("matches method, path, query, headers, a body's JSON path, status and account", () => {
    const journal = journalOfExamples();
    const find = (input: unknown) => journal.find(matcherOf(input));
    assert.equal(find({}).count, 3);
    assert.equal(find({ method: "post" }).count, 2);
    assert.equal(find({ path: "/v1/*" }).requests[0]?.path, "/v1/login");
    assert.equal(find({ query: { svc_event: "click" } }).count, 1);
    assert.equal(find({ query: { svc_event: { absent: true } } }).count, 2);
    assert.equal(find({ query: { svc_account: { contains: "cm" } } }).count, 2);
    assert.equal(find({ headers: { "X-Trace": "t-1" } }).count, 1);
    assert.equal(find({ body: { path: "$.events[0].name", equals: "view" } }).count, 1);
    assert.equal(find({ body: [{ path: "events[0]", equals: { name: "view", value: 3 } }] }).count, 1);
    assert.equal(find({ body: { path: "$.username", equals: "demo@example.com" } }).count, 1, "a form's fields");
    assert.equal(
      find({ body: { path: "$.password", equals: "demo-password-1" } }).count,
      0,
      "a secret reads [redacted]",
    );
    assert.equal(find({ status: 204, account: "acme" }).count, 1);
  });

  it("answers the count whole and the requests up to the limit, newest first", () => {
    const search = journalOfExamples().find(matcherOf({}), 2);
    assert.equal(search.count, 3);
    assert.deepEqual(
      search.requests.map((entry) => entry.id),
      [3, 2],
    );
    assert.deepEqual(search.nearMisses, []);
  });

  it("when nothing matched, answers the closest requests and what differed, closest first", () => {
    const search = journalOfExamples().find(
      matcherOf({ method: "POST", path: "/event", body: { path: "$.events[0].name", equals: "purchase" } }),
    );
    assert.equal(search.count, 0);
    assert.deepEqual(
      search.nearMisses.map((miss) => [miss.request.id, miss.differences]),
      [
        [2, [{ field: "body $.events[0].name", expected: '"purchase"', actual: '"view"' }]],
        [
          3,
          [
            { field: "method", expected: "POST", actual: "GET" },
            { field: "body $.events[0].name", expected: '"purchase"', actual: null },
          ],
        ],
        [
          1,
          [
            { field: "path", expected: "/event", actual: "/v1/login" },
            { field: "body $.events[0].name", expected: '"purchase"', actual: null },
          ],
        ],
      ],
    );
  });

  it("refuses a matcher that is not one, naming the field", () => {
    const refused = (input: unknown) => {
      const checked = validateRequestMatcher(input, compileGlob);
      return checked.ok ? null : checked.error;
    };
    assert.match(JSON.stringify(refused({ nope: 1 })), /nope/);
    assert.match(JSON.stringify(refused({ path: "event" })), /path/);
    assert.match(JSON.stringify(refused({ query: { a: 1 } })), /query/);
    assert.match(JSON.stringify(refused({ body: { path: "$..x", equals: 1 } })), /body/);
    assert.match(JSON.stringify(refused({ body: { path: "$.x" } })), /body/);
    assert.match(JSON.stringify(refused({ status: 42 })), /status/);
    assert.equal(refused(null), null, "no matcher: every request");
  });

  it("reads JSON paths of names, indexes and quoted names", () => {
    assert.deepEqual(parseJsonPath("$.a[0]['b c'][\"d\"]"), ["a", 0, "b c", "d"]);
    assert.deepEqual(parseJsonPath("a.b"), ["a", "b"]);
    assert.deepEqual(parseJsonPath("$"), []);
    assert.equal(parseJsonPath("$.a[x]"), null);
  });

  it("a request either matches or has differences, and a count never exceeds the journal (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("GET", "POST"),
        fc.constantFrom("/v1/*", "/event", "*"),
        fc.integer({ min: 1, max: 5 }),
        (method, path, limit) => {
          const journal = journalOfExamples();
          const search = journal.find(matcherOf({ method, path }), limit);
          assert.ok(search.count <= journal.size);
          assert.equal(search.requests.length, Math.min(search.count, limit));
          assert.equal(search.nearMisses.length, search.count === 0 ? Math.min(3, journal.size) : 0);
        },
      ),
    );
  });
});
