import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type InProcessService,
  openInProcessTarget,
} from "../../conformance/implementations/svc-hub/in-process-target.ts";
import type { StoredEvent } from "../../core/ports/index.ts";
import { inProcessBase } from "../../harness/target.ts";
import { databaseUrlForDataDir } from "../store-libsql/libsql.stores.ts";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function open(store: "memory" | "libsql" = "memory"): Promise<InProcessService> {
  let opened: InProcessService;
  if (store === "libsql") {
    const dir = mkdtempSync(join(tmpdir(), "svc-hub-collect-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    opened = await openInProcessTarget({ store: { kind: "libsql", url: databaseUrlForDataDir(dir) } });
  } else {
    opened = await openInProcessTarget();
  }
  cleanups.push(() => opened.close());
  return opened;
}

function send(service: InProcessService, path: string, init: RequestInit = {}): Promise<Response> {
  return Promise.resolve(service.service.app.handle(new Request(`${inProcessBase}${path}`, init)));
}

function admin(service: InProcessService, path: string): Promise<Response> {
  return send(service, path, { headers: { authorization: `Bearer ${service.service.deps.adminToken}` } });
}

async function storedEvents(service: InProcessService, query: string): Promise<StoredEvent[]> {
  const response = await admin(service, `/admin/events?${query}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { events: StoredEvent[] }).events;
}

function adminPost(service: InProcessService, path: string): Promise<Response> {
  return send(service, path, {
    method: "POST",
    headers: { authorization: `Bearer ${service.service.deps.adminToken}` },
  });
}

function postEvent(service: InProcessService, body: unknown): Promise<Response> {
  return send(service, "/event", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("the collection endpoint in-process", () => {
  it("GET /admin/events?search= finds the events whose parameter names or values hold the text", async () => {
    for (const store of ["memory", "libsql"] as const) {
      const service = await open(store);
      await postEvent(service, { svc_account: "acme", svc_trace_id: "s-1", product: 'Shoes "Blue"' });
      await send(service, "/event?svc_account=acme&svc_trace_id=s-2&coupon_code=SAVE10");
      await send(service, "/event?svc_account=acme&svc_trace_id=s-3&note=other");
      const traces = async (query: string) => (await storedEvents(service, query)).map((event) => event.traceId);
      expect(await traces(`search=${encodeURIComponent('"Blue"')}`)).toEqual(["s-1"]);
      expect(await traces("search=coupon")).toEqual(["s-2"]);
      expect(await traces("search=SAVE10&order=desc")).toEqual(["s-2"]);
      expect(await traces("search=s-&order=desc")).toEqual(["s-3", "s-2", "s-1"]);
      expect(await traces("search=")).toEqual(["s-1", "s-2", "s-3"]);
    }
  });

  it("[DEC-COL-03] the pixel is a 43-byte 1x1 GIF89a", async () => {
    const service = await open();
    const response = await send(service, "/event?svc_account=acme");
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(bytes.byteLength).toBe(43);
    expect(new TextDecoder().decode(bytes.subarray(0, 6))).toBe("GIF89a");
    expect([bytes[6]! | (bytes[7]! << 8), bytes[8]! | (bytes[9]! << 8)]).toEqual([1, 1]);
    expect(bytes.at(-1)).toBe(0x3b);
  });

  it("[DEC-COL-08] a store that cannot commit answers 503 with Retry-After and X-Error, never 200, and stores nothing", async () => {
    const service = await open();
    const events = service.service.stores.events;
    const append = events.append.bind(events);
    events.append = async () => {
      throw new Error("SQLITE_IOERR: disk I/O error");
    };
    const refused = await postEvent(service, { svc_account: "acme", svc_trace_id: "down-1" });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.headers.get("x-error")).toBe("Storage unavailable");
    expect(await refused.text()).toBe("");
    const pixel = await send(service, "/event?svc_account=acme&svc_trace_id=down-2");
    expect(pixel.status).toBe(503);

    events.append = append;
    expect((await postEvent(service, { svc_account: "acme", svc_trace_id: "up-1" })).status).toBe(200);
    expect((await storedEvents(service, "traceId=down-1")).length).toBe(0);
    expect((await storedEvents(service, "traceId=up-1")).length).toBe(1);
    const stats = (await (await admin(service, "/admin/collect/stats")).json()) as {
      storageUnavailable: number;
      commits: { failedBatches: number };
    };
    expect(stats.storageUnavailable).toBe(2);
    expect(stats.commits.failedBatches).toBe(2);
  });

  it("[COL-16, DEC-COL-08] concurrent events share commits (group commit) and every one answered 200 is stored", async () => {
    const service = await open("libsql");
    const count = 90; // under the rate limit of 100 per second
    const answers = await Promise.all(
      Array.from({ length: count }, (_, index) =>
        postEvent(service, { svc_account: "acme", svc_trace_id: `gc-${index}`, svc_event: "group" }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: count }, () => 200));
    const stored = await storedEvents(service, "event=group&limit=1000");
    expect(stored.map((event) => event.traceId).sort()).toEqual(
      Array.from({ length: count }, (_, index) => `gc-${index}`).sort(),
    );
    const stats = (await (await admin(service, "/admin/collect/stats")).json()) as {
      commits: { batches: number; largestBatch: number };
    };
    expect(stats.commits.largestBatch).toBeGreaterThan(1);
    expect(stats.commits.batches).toBeLessThan(count);
  });

  it("the event query refuses a bad time or limit with 400 1400 naming the field, and a missing token with 401", async () => {
    const service = await open();
    const badTime = await admin(service, "/admin/events?from=yesterday");
    expect(badTime.status).toBe(400);
    expect(((await badTime.json()) as { message: string }).message).toContain("from");
    const refusals: Array<[string, string]> = [
      ["limit=5000", 'Invalid request submission. Invalid limit: must be a whole number from 1 to 1000, not "5000".'],
      ["limit=0", 'Invalid request submission. Invalid limit: must be a whole number from 1 to 1000, not "0".'],
      ["limit=2.5", 'Invalid request submission. Invalid limit: must be a whole number from 1 to 1000, not "2.5".'],
      ["limit=abc", 'Invalid request submission. Invalid limit: must be a whole number from 1 to 1000, not "abc".'],
      ["afterSeq=-1", 'Invalid request submission. Invalid afterSeq: must be a whole number from 0, not "-1".'],
      ["beforeSeq=0.5", 'Invalid request submission. Invalid beforeSeq: must be a whole number from 0, not "0.5".'],
      ["order=newest", 'Invalid request submission. Invalid order: must be asc or desc, not "newest".'],
    ];
    for (const [query, message] of refusals) {
      const refused = await admin(service, `/admin/events?${query}`);
      expect([query, refused.status, await refused.json()]).toEqual([query, 400, { returnCode: 1400, message }]);
    }
    expect((await admin(service, "/admin/events?limit=&afterSeq=&order=")).status).toBe(200);
    expect((await send(service, "/admin/events")).status).toBe(401);
    expect((await send(service, "/admin/collect/stats")).status).toBe(401);
  });

  it("the event query pages by sequence number and filters by time", async () => {
    const service = await open();
    for (let index = 0; index < 5; index += 1)
      await postEvent(service, { svc_account: "acme", svc_event: "paged", svc_trace_id: `p${index}` });
    const firstPage = (await (await admin(service, "/admin/events?event=paged&limit=2")).json()) as {
      events: StoredEvent[];
      nextAfterSeq: number;
    };
    expect(firstPage.events.map((event) => event.traceId)).toEqual(["p0", "p1"]);
    const secondPage = await storedEvents(service, `event=paged&limit=2&afterSeq=${firstPage.nextAfterSeq}`);
    expect(secondPage.map((event) => event.traceId)).toEqual(["p2", "p3"]);
    const newest = await storedEvents(service, "event=paged&limit=1&order=desc");
    expect(newest.map((event) => event.traceId)).toEqual(["p4"]);
    // A repeated parameter keeps its first value, as the privacy and moments APIs read one.
    expect(
      (await storedEvents(service, "event=paged&event=other&limit=1&limit=3&order=desc&order=asc")).map(
        (event) => event.traceId,
      ),
    ).toEqual(["p4"]);
    const future = new Date(service.service.deps.clock.now() + 60_000).toISOString();
    expect(await storedEvents(service, `event=paged&from=${future}`)).toEqual([]);
    expect((await storedEvents(service, `event=paged&to=${future}`)).length).toBe(5);
  });

  it("stats count refusals by reason and keep the latest with their X-Error and trace id", async () => {
    const service = await open();
    await send(service, "/event?svc_account=nobody&svc_trace_id=why-1");
    await send(service, "/event?svc_account=acme", { headers: { "user-agent": "Googlebot/2.1" } });
    const stats = (await (await admin(service, "/admin/collect/stats")).json()) as {
      filteredBots: number;
      rejected: Record<string, number>;
      recentRejections: Array<{ reason: string; xError: string; traceId: string | null; account: string | null }>;
    };
    expect(stats.filteredBots).toBe(1);
    expect(stats.rejected.unknownAccountOrProfile).toBe(1);
    expect(stats.recentRejections[0]).toMatchObject({
      reason: "unknownAccountOrProfile",
      xError: "Unknown svc_account or svc_profile param value",
      traceId: "why-1",
      account: "nobody",
    });
  });

  it("a refusal on /event still carries the CORS headers, so a browser can read X-Error", async () => {
    const service = await open();
    const response = await send(service, "/event?svc_profile=main", {
      headers: { origin: "https://shop.example.com" },
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("access-control-allow-origin")).toBe("https://shop.example.com");
    expect(response.headers.get("access-control-expose-headers")).toContain("X-Error");
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  it("another method on /event is 405 with Allow and X-Error, and stores nothing", async () => {
    const service = await open();
    for (const method of ["PUT", "DELETE", "PATCH"]) {
      const response = await send(service, "/event?svc_account=acme&svc_trace_id=put-1", { method, body: "{}" });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("GET, HEAD, POST, OPTIONS");
      expect(response.headers.get("x-error")).toBe("Method not allowed, events are collected with GET or POST");
      expect(await response.text()).toBe("");
    }
    expect(await storedEvents(service, "traceId=put-1")).toEqual([]);
    const elsewhere = await send(service, "/events", { method: "PUT", body: "{}" });
    expect(elsewhere.status).toBe(404);
  });

  it("[DEC-COL-03, DEC-COL-12] the router's own refusals under /event (405, 404) are never cached and readable cross-origin, as every /event answer", async () => {
    const service = await open();
    const origin = { origin: "https://shop.example.com" };
    for (const [path, method, status] of [
      ["/event", "PUT", 405],
      ["/event/foo", "GET", 404],
    ] as const) {
      const response = await send(service, path, { method, headers: origin });
      expect(response.status).toBe(status);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("access-control-allow-origin")).toBe("https://shop.example.com");
      expect(response.headers.get("access-control-expose-headers")).toContain("X-Error");
      expect(response.headers.get("vary")).toBe("Origin");
    }
  });

  it("[DEC-COL-03] HEAD /event answers the pixel's headers without a body, and collects nothing", async () => {
    const service = await open();
    const head = await send(service, "/event?svc_account=acme&svc_trace_id=head-1", {
      method: "HEAD",
      headers: { origin: "https://shop.example.com" },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("image/gif");
    expect(head.headers.get("cache-control")).toBe("no-store");
    expect(head.headers.get("content-length")).toBe("43");
    expect(head.headers.get("access-control-allow-origin")).toBe("https://shop.example.com");
    expect(head.headers.get("set-cookie")).toBeNull();
    expect(await head.text()).toBe("");
    expect(await storedEvents(service, "traceId=head-1")).toEqual([]);
    const stats = (await (await admin(service, "/admin/collect/stats")).json()) as { accepted: number };
    expect(stats.accepted).toBe(0);
  });

  it("[DEC-COL-09] a visitor ID with a NUL is refused with 400 and X-Error, and nothing is stored", async () => {
    const service = await open("libsql");
    const pixel = await send(service, "/event?svc_account=acme&svc_trace_id=nul-1&svc_visitor_id=alice%00mallory");
    expect(pixel.status).toBe(400);
    expect(pixel.headers.get("x-error")).toBe(
      "Unusable svc_visitor_id param value: a visitor ID has at most 1024 characters (2048 bytes of UTF-8) and no control characters",
    );
    expect(await pixel.text()).toBe("");
    const override = await postEvent(service, {
      svc_account: "acme",
      svc_trace_id: "nul-2",
      svc_override_tapid: "alice\u0000mallory",
    });
    expect(override.status).toBe(400);
    expect(override.headers.get("x-error")).toStartWith("Unusable svc_override_tapid param value");
    const cookie = await send(service, "/event?svc_account=acme&svc_trace_id=nul-3", {
      headers: { cookie: "utag_main=v_id:alice%00mallory$_sn:1" },
    });
    expect(cookie.status).toBe(400);
    expect(cookie.headers.get("x-error")).toStartWith("Unusable v_id of the utag_main cookie");
    expect(await storedEvents(service, "visitor=alice")).toEqual([]);
    for (const traceId of ["nul-1", "nul-2", "nul-3"])
      expect(await storedEvents(service, `traceId=${traceId}`)).toEqual([]);
  });

  it("[DEC-COL-09] a 200,000-character visitor ID is refused, without a Set-Cookie", async () => {
    const service = await open();
    const response = await send(service, `/event?svc_account=acme&svc_visitor_id=${"v".repeat(200_000)}`);
    expect(response.status).toBe(400);
    expect(response.headers.get("x-error")).toStartWith("Unusable svc_visitor_id param value");
    expect(response.headers.get("set-cookie")).toBeNull();
  });

  it("[DEC-COL-09] a TAPID entry that is not a usable visitor ID is ignored and replaced", async () => {
    const service = await open();
    const response = await send(service, "/event?svc_account=acme&svc_trace_id=tapid-nul&svc_visitor_id=v-1", {
      headers: { cookie: "TAPID=acme/main>alice%00mallory|" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("set-cookie")).toStartWith("TAPID=acme/main>v-1|;");
    expect((await storedEvents(service, "traceId=tapid-nul")).map((event) => event.visitorId)).toEqual(["v-1"]);
  });

  it("[DEC-COL-09] a JSON number as svc_visitor_id is that visitor; a boolean or an object is refused", async () => {
    const service = await open();
    expect(
      (await postEvent(service, { svc_account: "acme", svc_trace_id: "num-1", svc_visitor_id: 12345 })).status,
    ).toBe(200);
    expect(
      (await storedEvents(service, "traceId=num-1")).map((event) => [event.visitorId, event.data.svc_visitor_id]),
    ).toEqual([["12345", "12345"]]);
    for (const value of [true, { id: 1 }]) {
      const refused = await postEvent(service, { svc_account: "acme", svc_visitor_id: value });
      expect(refused.status).toBe(400);
      expect(refused.headers.get("x-error")).toBe("svc_visitor_id param value must be a string");
    }
    const account = await postEvent(service, { svc_account: 123 });
    expect(account.status).toBe(400);
    expect(account.headers.get("x-error")).toBe("svc_account param value must be a string");
  });

  it("[DEC-COL-05] a client-sent svc_referrer_host is not stored", async () => {
    const service = await open();
    await send(service, "/event?svc_account=acme&svc_trace_id=ref-1&svc_referrer_host=fake", {
      headers: { referer: "not a url" },
    });
    const [event] = await storedEvents(service, "traceId=ref-1");
    expect(event?.data.svc_referrer_host).toBeUndefined();
  });

  it("[DEC-COL-11, VID-02, VID-08] a known svc_visitor_id that loses to the TAPID still stitches the visitor", async () => {
    const service = await open();
    const collected = await send(
      service,
      "/event?svc_account=acme&svc_event=view&svc_visitor_id=__acme_main__5121_cust-9__",
      { headers: { cookie: "TAPID=acme/main>anon-z|" } },
    );
    expect(collected.status).toBe(200);
    const [event] = await storedEvents(service, "visitor=anon-z");
    expect(event?.data.svc_visitor_id).toBe("anon-z");
    expect((await adminPost(service, "/admin/wait")).status).toBe(200);
    const page = { referer: "https://shop.example.com/p", origin: "https://shop.example.com" };
    const byAttribute = await send(
      service,
      "/personalization/accounts/acme/profiles/main/engines/demo-engine?attributeId=5121&attributeValue=cust-9",
      { headers: page },
    );
    expect(byAttribute.status).toBe(200);
    const known = (await byAttribute.json()) as { properties: Record<string, string> };
    expect(known.properties["Last event name"]).toBe("view");
    const byAnonymousId = await send(
      service,
      "/personalization/accounts/acme/profiles/main/engines/demo-engine/visitors/anon-z?ignoreTapid=true",
      { headers: page },
    );
    expect(await byAnonymousId.json()).toEqual(known);
  });

  it("[MOM-09, DEC-COL-09] the moments API finds no visitor under an id that cannot be one (a NUL would cut it short in the store), and ignores such a TAPID entry", async () => {
    const service = await open("libsql");
    expect((await send(service, "/event?svc_account=acme&svc_event=purchase&svc_visitor_id=alice")).status).toBe(200);
    expect((await adminPost(service, "/admin/wait")).status).toBe(200);
    const page = { referer: "https://shop.example.com/p" };
    const base = "/personalization/accounts/acme/profiles/main/engines/demo-engine";
    expect((await send(service, `${base}/visitors/alice`, { headers: page })).status).toBe(200);
    const cut = await send(service, `${base}/visitors/alice%00mallory`, { headers: page });
    expect(cut.status).toBe(404);
    expect(await cut.json()).toEqual({ message: "Visitor not found" });
    expect((await send(service, `${base}/visitors/${"a".repeat(1025)}`, { headers: page })).status).toBe(404);
    // A TAPID entry that cannot be a visitor id does not replace the path's.
    const withCookie = await send(service, `${base}/visitors/alice`, {
      headers: { ...page, cookie: "TAPID=acme/main>alice%00mallory|" },
    });
    expect(withCookie.status).toBe(200);
    expect((await send(service, `${base}?attributeId=5120&attributeValue=ann%00x`, { headers: page })).status).toBe(
      404,
    );
  });

  it("[MOM-12, DEC-MOM-02, DEC-MOM-04] the moments paths: another method is 405 with Allow, an empty visitor identifier 400; both readable cross-origin", async () => {
    const service = await open();
    const base = "/personalization/accounts/acme/profiles/main/engines/demo-engine";
    const origin = { origin: "https://shop.example.com", referer: "https://shop.example.com/p" };
    for (const path of [`${base}/visitors/v-1`, base]) {
      const post = await send(service, path, { method: "POST", headers: origin, body: "{}" });
      expect(post.status).toBe(405);
      expect(post.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
      expect(await post.json()).toEqual({ message: "Method not allowed: the visitor data is read with GET" });
      expect(post.headers.get("access-control-allow-origin")).toBe("https://shop.example.com");
    }
    const empty = await send(service, `${base}/visitors/`, { headers: origin });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ message: "Bad request: the visitor identifier is empty" });
    expect(empty.headers.get("access-control-allow-origin")).toBe("https://shop.example.com");
    const unknown = await send(service, "/personalization/nothing", { headers: origin });
    expect(unknown.status).toBe(404);
  });

  it("the OpenAPI document lists /event and the admin views of collection", async () => {
    const service = await open();
    const document = (await (await admin(service, "/openapi.json")).json()) as {
      paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
    };
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(["/event", "/admin/events", "/admin/collect/stats"]),
    );
    expect(Object.keys(document.paths["/event"] ?? {})).toEqual(expect.arrayContaining(["get", "post"]));
    expect(Object.keys(document.paths["/event"]?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(["200", "400", "429", "503"]),
    );
  });
});
