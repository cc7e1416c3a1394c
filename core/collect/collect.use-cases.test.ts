import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import { profileWith, seedProfile } from "../../testing/fixtures.ts";
import { defaultLimits } from "../config/config.model.ts";
import { type CollectError, collectError } from "../errors/collect.errors.ts";
import type { CollectMethod, EventLoop, IdSource, IncomingCollectRequest, Logger, Stores } from "../ports/index.ts";
import { ok, type Result } from "../result.ts";
import { CollectService } from "./collect.use-cases.ts";

const ids: IdSource = { randomHex: () => "0".repeat(32), randomToken: () => "token", randomUnit: () => 0.5 };
const now = Date.UTC(2024, 0, 2, 3, 4, 5);
const eventLoop: EventLoop = {
  monotonicMs: () => 0,
  nextTurn: () => new Promise((resolve) => setTimeout(resolve, 0)),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** What the use case read of the request and asked of its ports, so that a test can say what it did not read. */
interface Asked {
  readonly queries: string[];
  readonly bodies: number[];
  readonly warnings: string[];
  readonly debug: Array<{ message: string; fields: Record<string, unknown> | undefined }>;
}

async function openCollect(
  options: { stores?: Stores; bots?: readonly string[]; observeCommit?: (events: number, ms: number) => void } = {},
) {
  const stores = options.stores ?? createMemoryStores();
  await seedProfile(stores, profileWith());
  const asked: Asked = { queries: [], bodies: [], warnings: [], debug: [] };
  const logger: Logger = {
    debug: (message, fields) => void asked.debug.push({ message, fields }),
    info() {},
    warn: (message) => asked.warnings.push(message),
    error() {},
  };
  const bots = new Set(options.bots ?? []);
  const collector = new CollectService({
    stores,
    clock: { now: () => now },
    ids,
    logger,
    limits: defaultLimits,
    bots: { isBot: (userAgent) => userAgent !== null && bots.has(userAgent) },
    eventLoop,
    ...(options.observeCommit ? { observeCommit: options.observeCommit } : {}),
  });
  /** A request as the HTTP adapter hands it over; `body` is the body reader's answer. */
  const request = (
    method: CollectMethod,
    query: string,
    headers: Record<string, string> = {},
    body: Result<Uint8Array, CollectError> = ok(new Uint8Array(0)),
  ): IncomingCollectRequest => ({
    method,
    /** The URL holds the query string: a read of it is a read of the query. */
    get url() {
      const url = `http://collect.test/event${query}`;
      asked.queries.push(url);
      return url;
    },
    headers: { get: (name) => headers[name] ?? null },
    address: "192.0.2.1",
    readBody: async (maxBytes) => {
      asked.bodies.push(maxBytes);
      return body;
    },
  });
  return { stores, collector, asked, request };
}

const utf8 = (text: string) => new TextEncoder().encode(text);

/** Memory stores whose event append fails, as a full disk makes it. */
function storesWhoseAppendFails(): Stores {
  const base = createMemoryStores();
  return {
    ...base,
    events: {
      ...base.events,
      append: async () => {
        throw new Error("disk full");
      },
    },
  };
}

describe("the collection use case (COL-*, DEC-COL-*)", () => {
  it("stores a GET event of a known profile, answers its TAPID cookie and counts it as accepted", async () => {
    const { stores, collector, request } = await openCollect();
    const outcome = await collector.collect(request("GET", "?svc_account=acme&svc_event=view&colour=blue"));
    assert.equal(outcome.ok, true);
    assert.equal(outcome.ok && outcome.value.stored, true);
    assert.match((outcome.ok && outcome.value.setCookie) || "", /^TAPID=acme\/main>/);
    const events = await stores.events.query({ account: "acme", limit: 10 });
    assert.deepEqual(
      events.map(({ account, profile, event, receivedAt, data }) => ({
        account,
        profile,
        event,
        receivedAt,
        colour: data.colour,
      })),
      [{ account: "acme", profile: "main", event: "view", receivedAt: now, colour: "blue" }],
    );
    assert.equal(collector.stats.view().accepted, 1);
    assert.deepEqual(collector.commitStats(), {
      batches: 1,
      committed: 1,
      failedBatches: 0,
      largestBatch: 1,
      pending: 0,
    });
  });

  it("tells the service's metrics of each group commit, its size and duration (issue 33)", async () => {
    const commits: Array<[number, number]> = [];
    const { collector, request } = await openCollect({
      observeCommit: (events, ms) => void commits.push([events, ms]),
    });
    await Promise.all([
      collector.collect(request("GET", "?svc_account=acme&svc_event=a")),
      collector.collect(request("GET", "?svc_account=acme&svc_event=b")),
    ]);
    assert.deepEqual(commits, [[2, 0]]);
  });

  it("logs each group commit at the debug level: how many events and how long (SVC_LOG_LEVEL=debug)", async () => {
    const { collector, request, asked } = await openCollect();
    await Promise.all([
      collector.collect(request("GET", "?svc_account=acme&svc_event=a")),
      collector.collect(request("GET", "?svc_account=acme&svc_event=b")),
    ]);
    assert.deepEqual(asked.debug, [{ message: "events committed", fields: { events: 2, ms: 0 } }]);
  });

  it("[DEC-COL-06] answers a bot as a success without storing it, reading its query string (the journal's hints) but never its body", async () => {
    const { stores, collector, asked, request } = await openCollect({ bots: ["ExampleCrawler/1.0"] });
    const outcome = await collector.collect(
      request("POST", "?svc_account=acme", { "user-agent": "ExampleCrawler/1.0" }, ok(utf8('{"a":1}'))),
    );
    assert.deepEqual(outcome, ok({ stored: false, setCookie: null }));
    assert.deepEqual(asked, {
      queries: ["http://collect.test/event?svc_account=acme"],
      bodies: [],
      warnings: [],
      debug: [],
    });
    assert.deepEqual(await stores.events.query({ limit: 10 }), []);
    assert.equal(collector.stats.view().filteredBots, 1);
  });

  it("[DEC-COL-04] reads a POST body within the body limit and merges it with the query string", async () => {
    const { stores, collector, asked, request } = await openCollect();
    const body = ok(utf8('{"svc_event":"buy","total":12}'));
    const outcome = await collector.collect(
      request("POST", "?svc_account=acme", { "content-type": "text/plain;charset=UTF-8" }, body),
    );
    assert.equal(outcome.ok, true);
    assert.deepEqual(asked.bodies, [defaultLimits.maxBodyBytes]);
    const [event] = await stores.events.query({ account: "acme", limit: 10 });
    assert.deepEqual([event?.event, event?.data.total], ["buy", 12]);
  });

  it("[DEC-COL-04] refuses a body that is not UTF-8 as invalid JSON, before looking at its media type", async () => {
    const { collector, request } = await openCollect();
    const outcome = await collector.collect(
      request("POST", "?svc_account=acme", { "content-type": "image/png" }, ok(new Uint8Array([0x7b, 0xff, 0x7d]))),
    );
    assert.deepEqual(outcome, { ok: false, error: collectError("invalidJson") });
  });

  it("[DEC-COL-04] refuses a JSON body of another media type; a blank body of any type is an empty one", async () => {
    const { stores, collector, request } = await openCollect();
    const refused = await collector.collect(
      request("POST", "?svc_account=acme", { "content-type": "application/xml" }, ok(utf8('{"a":1}'))),
    );
    assert.deepEqual(refused, { ok: false, error: collectError("unsupportedContentType") });
    const blank = await collector.collect(
      request("POST", "?svc_account=acme", { "content-type": "application/xml" }, ok(utf8(" \n"))),
    );
    assert.equal(blank.ok, true);
    assert.equal((await stores.events.query({ account: "acme", limit: 10 })).length, 1);
  });

  it("passes the body reader's refusal on and records it with what the query string said", async () => {
    const { collector, request } = await openCollect();
    const outcome = await collector.collect(
      request(
        "POST",
        "?svc_account=acme&svc_trace_id=t-1",
        { "user-agent": "curl/8.0" },
        { ok: false, error: collectError("bodyTooLarge") },
      ),
    );
    assert.deepEqual(outcome, { ok: false, error: collectError("bodyTooLarge") });
    const stats = collector.stats.view();
    assert.deepEqual(stats.rejected, { bodyTooLarge: 1 });
    assert.deepEqual(stats.recentRejections, [
      {
        at: new Date(now).toISOString(),
        method: "POST",
        status: 400,
        reason: "bodyTooLarge",
        xError: collectError("bodyTooLarge").xError,
        account: "acme",
        profile: null,
        traceId: "t-1",
        userAgent: "curl/8.0",
      },
    ]);
  });

  it("[DEC-COL-08] answers 503 when the commit fails, and logs the failure", async () => {
    const failing = storesWhoseAppendFails();
    const { collector, asked, request } = await openCollect({ stores: failing });
    const outcome = await collector.collect(request("GET", "?svc_account=acme"));
    assert.deepEqual(outcome, { ok: false, error: collectError("storageUnavailable") });
    assert.deepEqual(asked.warnings, ["event commit failed"]);
    assert.equal(collector.stats.view().storageUnavailable, 1);
  });

  describe("the journal (issue 32)", () => {
    it("[COL-16, DEC-COL-09] records a stored event once committed: its data and how its visitor ID was chosen", async () => {
      const { stores, collector, request } = await openCollect();
      const outcome = await collector.collect(
        request("GET", "?svc_account=acme&svc_event=view&svc_trace_id=t-9&svc_visitor_id=v-1&colour=blue", {
          "user-agent": "Mozilla/5.0",
          cookie: "TAPID=acme/main>t-1|",
        }),
      );
      assert.equal(outcome.ok, true);
      const [stored] = await stores.events.query({ account: "acme", limit: 1 });
      const [entry] = collector.journal.entriesAfter(0);
      // The journal holds the event's own parameters object (no prototype); the store answers a copy.
      assert.deepEqual({ ...(entry?.outcome === "stored" ? entry.data : {}) }, stored?.data);
      assert.deepEqual(
        { ...entry, data: stored?.data },
        {
          id: 1,
          at: now,
          outcome: "stored",
          method: "GET",
          account: "acme",
          profile: "main",
          event: "view",
          traceId: "t-9",
          visitorId: "t-1",
          userAgent: "Mozilla/5.0",
          data: stored?.data,
          decision: {
            source: "tapid",
            precedence: [
              { source: "override", clauses: ["VID-04"], value: null, chosen: false, known: true },
              { source: "tapid", clauses: ["VID-03", "VID-05", "VID-06"], value: "t-1", chosen: true, known: true },
              { source: "visitor_id", clauses: ["VID-01", "VID-03"], value: "v-1", chosen: false, known: true },
              { source: "first_party", clauses: ["VID-03"], value: null, chosen: false, known: true },
              { source: "new", clauses: ["VID-09"], value: null, chosen: false, known: true },
            ],
            skipTapid: false,
            deleteTapid: false,
            tapidCookie: null,
          },
          request: {
            method: "GET",
            query: "svc_account=acme&svc_event=view&svc_trace_id=t-9&svc_visitor_id=v-1&colour=blue",
            contentType: null,
            body: null,
            cookie: "TAPID=acme/main>t-1|",
            referer: null,
            userAgent: "Mozilla/5.0",
          },
        },
      );
    });

    it("[issue 43] a stored POST keeps its request as received: body, content type, the cookies collection reads", async () => {
      const { collector, request } = await openCollect();
      const body = '{"svc_account":"acme","note":"it\'s \\"quoted\\""}';
      const outcome = await collector.collect(
        request(
          "POST",
          "?svc_trace_id=p-1#fragment",
          {
            "content-type": "text/plain;charset=UTF-8",
            cookie: "JSESSIONID=secret; utag_main=v_id:abc$_sn:1; other=x",
            referer: "https://shop.example/cart",
          },
          ok(new TextEncoder().encode(body)),
        ),
      );
      assert.equal(outcome.ok, true);
      const [entry] = collector.journal.entriesAfter(0);
      assert.deepEqual(entry?.outcome === "stored" ? entry.request : null, {
        method: "POST",
        query: "svc_trace_id=p-1",
        contentType: "text/plain;charset=UTF-8",
        body,
        cookie: "utag_main=v_id:abc$_sn:1",
        referer: "https://shop.example/cart",
        userAgent: null,
      });
    });

    it("[DEC-COL-10] a stored entry's decision carries the Set-Cookie the answer carried", async () => {
      const { collector, request } = await openCollect();
      const outcome = await collector.collect(request("GET", "?svc_account=acme&svc_visitor_id=v-2"));
      const [entry] = collector.journal.entriesAfter(0);
      assert.equal(entry?.outcome, "stored");
      assert.equal(entry?.outcome === "stored" && entry.decision.tapidCookie, outcome.ok && outcome.value.setCookie);
      assert.match((entry?.outcome === "stored" && entry.decision.tapidCookie) || "", /^TAPID=acme\/main>v-2/);
    });

    it("[COL-04] records a refusal with its status, reason, X-Error and the event name it hinted", async () => {
      const { collector, request } = await openCollect();
      await collector.collect(request("GET", "?svc_profile=main&svc_event=view&svc_trace_id=t-2"));
      assert.deepEqual(collector.journal.entriesAfter(0), [
        {
          id: 1,
          at: now,
          outcome: "refused",
          method: "GET",
          status: 400,
          reason: "missingAccountOrProfile",
          xError: collectError("missingAccountOrProfile").xError,
          account: null,
          profile: "main",
          event: "view",
          traceId: "t-2",
          userAgent: null,
        },
      ]);
    });

    it("[DEC-COL-08] a commit that fails is recorded as refused (503), never as stored", async () => {
      const failing = storesWhoseAppendFails();
      const { collector, request } = await openCollect({ stores: failing });
      await collector.collect(request("GET", "?svc_account=acme"));
      assert.deepEqual(
        collector.journal.entriesAfter(0).map((entry) => [entry.outcome, "reason" in entry ? entry.reason : null]),
        [["refused", "storageUnavailable"]],
      );
    });

    it("[DEC-COL-06] records a filtered bot with the hints of its query string", async () => {
      const { collector, request } = await openCollect({ bots: ["ExampleCrawler/1.0"] });
      await collector.collect(
        request("GET", "?svc_account=acme&svc_event=view&svc_trace_id=t-3", { "user-agent": "ExampleCrawler/1.0" }),
      );
      assert.deepEqual(collector.journal.entriesAfter(0), [
        {
          id: 1,
          at: now,
          outcome: "bot",
          method: "GET",
          account: "acme",
          profile: null,
          event: "view",
          traceId: "t-3",
          userAgent: "ExampleCrawler/1.0",
        },
      ]);
    });

    it("tells a listener of each outcome as it is recorded, and a reset (forget) empties the journal", async () => {
      const { collector, request } = await openCollect();
      const seen: string[] = [];
      collector.journal.subscribe((entry) => seen.push(entry.outcome));
      await collector.collect(request("GET", "?svc_account=acme"));
      await collector.collect(request("GET", "?svc_account=nobody"));
      assert.deepEqual(seen, ["stored", "refused"]);
      collector.forget();
      assert.deepEqual(collector.journal.entriesAfter(0), []);
    });
  });
});
