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
}

async function openCollect(options: { stores?: Stores; bots?: readonly string[] } = {}) {
  const stores = options.stores ?? createMemoryStores();
  await seedProfile(stores, profileWith());
  const asked: Asked = { queries: [], bodies: [], warnings: [] };
  const logger: Logger = { info() {}, warn: (message) => asked.warnings.push(message), error() {} };
  const bots = new Set(options.bots ?? []);
  const collector = new CollectService({
    stores,
    clock: { now: () => now },
    ids,
    logger,
    limits: defaultLimits,
    bots: { isBot: (userAgent) => userAgent !== null && bots.has(userAgent) },
    eventLoop,
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

  it("[DEC-COL-06] answers a bot as a success without storing it, reading neither its query nor its body", async () => {
    const { stores, collector, asked, request } = await openCollect({ bots: ["ExampleCrawler/1.0"] });
    const outcome = await collector.collect(
      request("POST", "?svc_account=acme", { "user-agent": "ExampleCrawler/1.0" }, ok(utf8('{"a":1}'))),
    );
    assert.deepEqual(outcome, ok({ stored: false, setCookie: null }));
    assert.deepEqual(asked, { queries: [], bodies: [], warnings: [] });
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
    const base = createMemoryStores();
    const failing: Stores = {
      ...base,
      events: {
        ...base.events,
        append: async () => {
          throw new Error("disk full");
        },
      },
    };
    const { collector, asked, request } = await openCollect({ stores: failing });
    const outcome = await collector.collect(request("GET", "?svc_account=acme"));
    assert.deepEqual(outcome, { ok: false, error: collectError("storageUnavailable") });
    assert.deepEqual(asked.warnings, ["event commit failed"]);
    assert.equal(collector.stats.view().storageUnavailable, 1);
  });
});
