/**
 * The request journal (issue 33; the second probe's findings 1 and 5; issue 43): what an entry keeps of a
 * request (the route's template, the path and query as sent, headers and bodies), the byte budget that bounds
 * it, the setting that turns it off, and forgetting a deleted value.
 */

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  type AnsweredRequest,
  defaultRequestJournalBytes,
  RequestJournal,
  requestJournalAccountChars,
  requestJournalBodyBytes,
  requestJournalQueryChars,
} from "./index.ts";
import { requestEntryOverheadBytes, requestHeaderOverheadBytes, truncateQuery } from "./request-journal.ts";

const dataLayersRoute = "/v1/dle/accounts/:account/profiles/:profile/datalayers";
const eventRoute = "/event";

function answered(overrides: Partial<AnsweredRequest> = {}): AnsweredRequest {
  return {
    method: "GET",
    path: "/event",
    query: "",
    route: eventRoute,
    atMs: 0,
    status: 200,
    durationMs: 1,
    fault: null,
    ...overrides,
  };
}

/** What the budget counts for an entry of these texts. */
function weightOf(texts: {
  method?: string;
  path?: string;
  query?: string;
  account?: string | null;
  fault?: string | null;
}): number {
  const chars = (texts.method ?? "GET").length + (texts.path ?? "/event").length + (texts.query ?? "").length;
  return requestEntryOverheadBytes + 2 * (chars + (texts.account ?? "").length + (texts.fault ?? "").length);
}

describe("issue 33: the request journal", () => {
  it("answers newest first: the route's template, the redacted query, the account and the fault", () => {
    const journal = new RequestJournal();
    journal.record(answered({ method: "POST", path: "/v1/login", query: "username=a&password=p", route: "/v1/login" }));
    journal.record(
      answered({
        path: "/v1/dle/accounts/acme/profiles/main/datalayers",
        query: "utk=abc&x=1",
        route: dataLayersRoute,
        atMs: 1000,
        status: 503,
        durationMs: 2,
        fault: "f1",
      }),
    );
    const [newest, oldest] = journal.query();
    assert.deepEqual(newest, {
      id: 2,
      at: "1970-01-01T00:00:01.000Z",
      method: "GET",
      path: dataLayersRoute,
      query: { utk: "[redacted]", x: "1" },
      queryTruncated: false,
      status: 503,
      durationMs: 2,
      account: "acme",
      fault: "f1",
      url: "/v1/dle/accounts/acme/profiles/main/datalayers?utk=[redacted]&x=1",
      request: { headers: {}, body: null },
      response: null,
    });
    assert.deepEqual(oldest?.query, { username: "a", password: "[redacted]" });
    assert.equal(oldest?.account, null);
    assert.equal("fault" in (oldest ?? {}), false);
  });

  it("filters by method, a pattern of the route, status and account, and limits", () => {
    const journal = new RequestJournal();
    for (let i = 0; i < 5; i += 1) journal.record(answered({ query: `svc_account=acme&n=${i}`, atMs: i, status: 204 }));
    journal.record(answered({ method: "POST", query: "svc_account=globex", status: 400 }));
    journal.record(
      answered({ path: "/v1/dle/accounts/acme/profiles/main/datalayers", route: dataLayersRoute, status: 401 }),
    );
    assert.equal(journal.query({ account: "acme" }).length, 6);
    assert.equal(journal.query({ method: "post" })[0]?.account, "globex");
    assert.equal(journal.query({ status: 400 }).length, 1);
    // The host compiles a `path` pattern into the test of the route (adapters/http/path-pattern.ts).
    const startsWith = (prefix: string) => (route: string) => route.startsWith(prefix);
    assert.equal(journal.query({ route: startsWith("/ev") }).length, 6);
    assert.equal(journal.query({ route: (route) => route === dataLayersRoute }).length, 1);
    assert.equal(journal.query({ route: startsWith("/v1/dle/"), account: "acme" }).length, 1);
    // The path as sent is not kept: a test of the path with the account in it matches no template.
    assert.equal(journal.query({ route: startsWith("/v1/dle/accounts/acme/") }).length, 0);
    assert.deepEqual(
      journal.query({ limit: 2 }).map((entry) => entry.id),
      [7, 6],
    );
  });

  it("issue 43: keeps the route's template as path, and the path as sent in url (a privacy deletion forgets it)", () => {
    const journal = new RequestJournal();
    const momentsRoute = "/personalization/accounts/:account/profiles/:profile/engines/:engine/visitors/:visitor";
    journal.record(
      answered({
        path: "/personalization/accounts/acme/profiles/main/engines/e1/visitors/ann@x.com",
        route: momentsRoute,
      }),
    );
    const [entry] = journal.query();
    assert.equal(entry?.path, momentsRoute);
    assert.equal(entry?.url, "/personalization/accounts/acme/profiles/main/engines/e1/visitors/ann@x.com");
    assert.equal(entry?.account, "acme");
  });

  it("issue 43: a request that matched no route is kept whole too, with the account its path names", () => {
    const journal = new RequestJournal();
    journal.record(
      answered({
        path: "/personalization/accounts/acme/profiles/main/engines/e1/visitors//ann@x.com",
        query: "email_address=ann%40x.com&q=xxxx",
        route: null,
        status: 404,
      }),
    );
    const [entry] = journal.query();
    assert.deepEqual(
      { path: entry?.path, query: entry?.query, queryTruncated: entry?.queryTruncated, account: entry?.account },
      { path: null, query: { email_address: "ann@x.com", q: "xxxx" }, queryTruncated: false, account: "acme" },
    );
    assert.equal(entry?.status, 404);
    assert.equal(
      journal.bytes,
      weightOf({
        path: "/personalization/accounts/acme/profiles/main/engines/e1/visitors//ann@x.com",
        query: "email_address=ann%40x.com&q=xxxx",
        account: "acme",
      }),
    );
    // A pattern never matches it; a status does.
    assert.equal(journal.query({ route: () => true }).length, 0);
    assert.equal(journal.query({ status: 404 }).length, 1);
  });

  it("keeps an account of at most 250 characters", () => {
    const journal = new RequestJournal();
    const long = "a".repeat(10_000);
    journal.record(answered({ path: `/v1/dle/accounts/${long}/profiles/main/datalayers`, route: dataLayersRoute }));
    assert.equal(journal.query()[0]?.account, long.slice(0, requestJournalAccountChars));
  });
});

describe("second probe, finding 1: the query field shows the query's first whole parameters", () => {
  it("keeps a query that fits, and of a longer one the parameters that fit whole", () => {
    const cases: Array<[string, number, { text: string; cut: boolean }]> = [
      ["a=1&b=2", 7, { text: "a=1&b=2", cut: false }],
      ["a=1&b=2", 6, { text: "a=1", cut: true }],
      ["a=1&b=2", 3, { text: "a=1", cut: true }],
      ["a=1&b=2", 4, { text: "a=1", cut: true }],
      ["a=1&b=2", 2, { text: "", cut: true }],
      [`q=${"x".repeat(16_200)}`, requestJournalQueryChars, { text: "", cut: true }],
    ];
    for (const [query, maxChars, expected] of cases) assert.deepEqual(truncateQuery(query, maxChars), expected, query);
  });

  it("never keeps more than the limit, and never a parameter cut in two (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.stringMatching(/^[a-z]{1,8}$/), fc.stringMatching(/^[a-z0-9%]{0,40}$/)), {
          maxLength: 30,
        }),
        fc.integer({ min: 0, max: 200 }),
        (pairs, maxChars) => {
          const query = pairs.map(([name, value]) => `${name}=${value}`).join("&");
          const { text, cut } = truncateQuery(query, maxChars);
          assert.ok(text.length <= maxChars);
          assert.equal(cut, text.length < query.length);
          const kept = text === "" ? [] : text.split("&");
          assert.deepEqual(kept, query.split("&").slice(0, kept.length));
        },
      ),
    );
  });

  it("an entry shows the query's first whole parameters, says parameters were left out, and keeps them in url", () => {
    const journal = new RequestJournal();
    const filler = "x".repeat(16_200);
    journal.record(answered({ query: `svc_account=acme&svc_event=view&q=${filler}&after=1` }));
    journal.record(answered({ query: `q=${filler}` }));
    const [alone, mixed] = journal.query();
    assert.deepEqual(mixed?.query, { svc_account: "acme", svc_event: "view" });
    assert.equal(mixed?.queryTruncated, true);
    assert.deepEqual(alone?.query, {});
    assert.equal(alone?.queryTruncated, true);
    assert.equal(mixed?.url, `/event?svc_account=acme&svc_event=view&q=${filler}&after=1`);
    assert.equal(
      journal.bytes,
      weightOf({ query: `svc_account=acme&svc_event=view&q=${filler}&after=1`, account: "acme" }) +
        weightOf({ query: `q=${filler}` }),
    );
  });
});

describe("second probe, finding 1: the journal holds at most its byte budget", () => {
  it("counts what each entry holds: its texts at two bytes a character, and its overhead", () => {
    const journal = new RequestJournal();
    journal.record(answered({ query: "svc_account=acme&a=1", fault: "f12" }));
    assert.equal(journal.bytes, weightOf({ query: "svc_account=acme&a=1", account: "acme", fault: "f12" }));
    journal.record(answered({ method: "OPTIONS" }));
    assert.equal(
      journal.bytes,
      weightOf({ query: "svc_account=acme&a=1", account: "acme", fault: "f12" }) + weightOf({ method: "OPTIONS" }),
    );
  });

  it("forgets the oldest entries while it holds more than its budget", () => {
    const query = `q=${"x".repeat(300)}`;
    const weight = weightOf({ query });
    const journal = new RequestJournal({ maxBytes: 3 * weight + weight / 2 });
    for (let i = 1; i <= 10; i += 1) journal.record(answered({ query, atMs: i }));
    assert.equal(journal.size, 3);
    assert.equal(journal.bytes, 3 * weight);
    assert.deepEqual(
      journal.query().map((entry) => entry.id),
      [10, 9, 8],
    );
    // A small entry fits beside them; a larger one pushes out as many as it needs (two).
    journal.record(answered({ atMs: 11 }));
    assert.equal(journal.size, 4);
    const larger = `${query}&r=${"y".repeat(150)}`;
    journal.record(answered({ query: larger, atMs: 12 }));
    assert.equal(journal.bytes, weight + weightOf({}) + weightOf({ query: larger }));
    assert.deepEqual(
      journal.query().map((entry) => entry.id),
      [12, 11, 10],
    );
  });

  it("keeps the newest entries that fit, never more than the budget, whatever the requests (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20_000 }),
        fc.array(
          fc.record({
            queryChars: fc.integer({ min: 0, max: 2_000 }),
            accountChars: fc.integer({ min: 0, max: 400 }),
            matched: fc.boolean(),
          }),
          { maxLength: 200 },
        ),
        (maxBytes, requests) => {
          const journal = new RequestJournal({ maxBytes });
          const weights: number[] = [];
          for (const request of requests) {
            const account = "a".repeat(request.accountChars);
            const query = `svc_account=${account}&q=${"x".repeat(request.queryChars)}`;
            journal.record(answered({ query, route: request.matched ? eventRoute : null }));
            const keptAccount = account === "" ? "" : account.slice(0, requestJournalAccountChars);
            weights.push(weightOf({ query, account: keptAccount }));
            assert.ok(journal.bytes <= maxBytes);
          }
          // The newest entries whose weights fit together, and none older.
          let expected = 0;
          let total = 0;
          for (let index = weights.length - 1; index >= 0; index -= 1) {
            total += weights[index] as number;
            if (total > maxBytes) break;
            expected += 1;
          }
          assert.equal(journal.size, expected);
          assert.deepEqual(
            journal.query({ limit: 1000 }).map((entry) => entry.id),
            Array.from({ length: expected }, (_, back) => requests.length - back),
          );
        },
      ),
      { numRuns: 50 },
    );
  });

  it("has a default budget of 4 MiB, which long queries and bodies cannot pass", () => {
    const journal = new RequestJournal();
    assert.equal(journal.maxBytes, defaultRequestJournalBytes);
    assert.equal(defaultRequestJournalBytes, 4 * 1024 * 1024);
    const filler = "x".repeat(2_000);
    const body = { bytes: new Uint8Array(requestJournalBodyBytes), truncated: true };
    for (let n = 0; n < 2_000; n += 1) journal.record(answered({ query: `q=${filler}`, body }));
    assert.ok(journal.bytes <= defaultRequestJournalBytes);
    const weight = weightOf({ query: `q=${filler}` }) + requestJournalBodyBytes;
    assert.equal(journal.size, Math.floor(defaultRequestJournalBytes / weight));
  });

  it("issue 43: counts headers and bodies, of the request and of its answer", () => {
    const journal = new RequestJournal();
    journal.record(
      answered({
        headers: [["content-type", "application/json"]],
        body: { bytes: new Uint8Array(100), truncated: false },
        response: { headers: [["etag", "x"]], body: { bytes: new Uint8Array(40), truncated: false } },
      }),
    );
    const headers = 2 * requestHeaderOverheadBytes + 2 * ("content-type".length + "application/json".length + 5);
    assert.equal(journal.bytes, weightOf({}) + headers + 140);
  });

  it("is off with a budget of 0: records nothing", () => {
    const journal = new RequestJournal({ maxBytes: 0 });
    assert.equal(journal.enabled, false);
    journal.record(answered({ query: "svc_account=acme" }));
    assert.deepEqual([journal.size, journal.bytes, journal.query()], [0, 0, []]);
  });

  it("clears; the ids keep counting up", () => {
    const journal = new RequestJournal();
    for (let i = 1; i <= 3; i += 1) journal.record(answered());
    journal.clear();
    assert.deepEqual([journal.size, journal.bytes, journal.query()], [0, 0, []]);
    journal.record(answered());
    assert.equal(journal.query()[0]?.id, 4);
  });
});

describe("second probe, finding 5: forgetting a deleted value (DEC-PRV-05)", () => {
  it("forgets the entries the predicate names, from their decoded parameters, and keeps the others in order", () => {
    const journal = new RequestJournal();
    journal.record(answered({ query: "svc_account=acme&email_address=ann%40x.com" }));
    journal.record(answered({ query: "svc_account=acme&svc_event=view" }));
    journal.record(answered({ query: "svc_account=globex&email_address=ann%40x.com" }));
    journal.record(answered({ query: "svc_account=acme&utk=ann%40x.com" }));
    const forgotten = journal.forget(
      (request) => request.account === "acme" && request.parameters.some(([, value]) => value === "ann@x.com"),
    );
    assert.equal(forgotten, 2);
    assert.deepEqual(
      journal.query().map((entry) => entry.id),
      [3, 2],
    );
    assert.equal(
      journal.bytes,
      weightOf({ query: "svc_account=acme&svc_event=view", account: "acme" }) +
        weightOf({ query: "svc_account=globex&email_address=ann%40x.com", account: "globex" }),
    );
    assert.equal(
      journal.forget(() => false),
      0,
    );
  });
});
