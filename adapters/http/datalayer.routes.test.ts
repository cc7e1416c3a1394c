/**
 * The hosted data layer API in-process, beyond what the black-box conformance scenarios can see: exact
 * delays of the realistic timing preset, durability across a restart on a libSQL file, concurrent changes
 * of one data layer, and the OpenAPI document.
 */

import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TimingPresetName } from "../../core/timing/index.ts";
import { inProcessBase } from "../../harness/target.ts";
import { openDemoService } from "../server/demo-service.ts";
import type { Service, StoreChoice } from "../server/service.ts";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function freshDatabaseUrl(): string {
  const dir = mkdtempSync(join(tmpdir(), "svc-hub-dle-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return `file:${join(dir, "svc-hub.db")}`;
}

async function open(options: { store?: StoreChoice; timing?: TimingPresetName } = {}): Promise<Service> {
  const service = await openDemoService({
    store: options.store,
    timing: options.timing ?? "realistic",
    adminToken: "test-admin-token",
  });
  let closed = false;
  cleanups.push(() => (closed ? undefined : service.close()));
  return {
    ...service,
    close: async () => {
      closed = true;
      return service.close();
    },
  };
}

/** A client of one service: logs in as the demo user and calls the data layer API and the admin API. */
async function clientOf(service: Service) {
  const call = (path: string, init: RequestInit = {}) =>
    service.app.handle(new Request(`${inProcessBase}${path}`, init));
  const login = await call("/v1/login", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username: "demo@example.com", password: "demo-password-1" }),
  });
  expect(login.status).toBe(200);
  const { utk } = (await login.json()) as { utk: string };
  const cookie = login.headers.getSetCookie()[0]?.split(";")[0] ?? "";
  const base = "/v1/dle/accounts/acme/profiles/main/datalayers";
  const admin = { authorization: `Bearer ${service.deps.adminToken}`, "content-type": "application/json" };
  return {
    utk,
    cookie,
    async send(method: string, dlId: string, json?: unknown) {
      const response = await call(`${base}/${dlId}?utk=${utk}`, {
        method,
        headers: { cookie, "content-type": "application/json" },
        body: json === undefined ? undefined : JSON.stringify(json),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    /** The list call with a query string of the caller's, `UTK` standing for the session's utk. */
    list(query: string): Promise<Response> {
      return call(`${base}?${query.replaceAll("UTK", utk)}`, { headers: { cookie } });
    },
    raw(method: string, dlId: string): Promise<Response> {
      return call(`${base}/${dlId}?utk=${utk}`, {
        method,
        headers: { cookie, "content-type": "application/json" },
        body: method === "PUT" ? "{}" : undefined,
      });
    },
    async status(dlId: string) {
      return (await this.send("GET", dlId)).body.status;
    },
    async served(dlId: string) {
      const response = await call(`/dle/acme/main/${dlId}.json`);
      return response.status === 200 ? await response.text() : response.status;
    },
    async advance(by: string) {
      expect(
        (await call("/admin/clock/advance", { method: "POST", headers: admin, body: JSON.stringify({ by }) })).status,
      ).toBe(200);
      // Only what is due at the clock's new time: these tests step through the delays.
      expect(
        (await call("/admin/wait", { method: "POST", headers: admin, body: JSON.stringify({ scheduled: false }) }))
          .status,
      ).toBe(200);
    },
  };
}

describe("hosted data layer: publishing (DEC-DLE-06, LIM-03)", () => {
  it("with realistic timing an upload stays pending under 5 minutes and is completed after 10", async () => {
    const client = await clientOf(await open());
    expect((await client.send("POST", "slow", { a: 1 })).status).toBe(201);
    await client.advance("4m50s");
    expect(await client.status("slow")).toBe("pending");
    expect(await client.served("slow")).toBe(404);
    await client.advance("5m20s");
    expect(await client.status("slow")).toBe("completed");
    expect(await client.served("slow")).toBe('{"a":1}');
  });

  it("an update is published within the hour, never before the upload it follows", async () => {
    const client = await clientOf(await open());
    await client.send("POST", "ordered", { v: 1 });
    await client.send("PUT", "ordered", { v: 2 });
    await client.advance("4m50s");
    expect(await client.status("ordered")).toBe("pending");
    await client.advance("20m");
    // Whatever the random delays, the upload is published by now; the served content is never v2 before v1.
    expect(await client.served("ordered")).toMatch(/^\{"v":[12]\}$/);
    // Steps of 20 minutes, each with a call: a session ends after 30 minutes without use.
    expect(["pending", "completed"]).toContain(String(await client.status("ordered")));
    await client.advance("20m");
    expect(["pending", "completed"]).toContain(String(await client.status("ordered")));
    await client.advance("20m");
    expect(await client.status("ordered")).toBe("completed");
    expect(await client.served("ordered")).toBe('{"v":2}');
  });

  it("[DEC-OPS-04] POST /admin/wait returns once the changes accepted before it are published, their delay included; scheduled:false runs only what is due", async () => {
    const service = await open({ timing: "fast" });
    const client = await clientOf(service);
    const wait = async (body?: unknown) => {
      const init: RequestInit = {
        method: "POST",
        headers: { authorization: `Bearer ${service.deps.adminToken}`, "content-type": "application/json" },
      };
      if (body !== undefined) init.body = JSON.stringify(body);
      const answer = await service.app.handle(new Request(`${inProcessBase}/admin/wait`, init));
      return { status: answer.status, body: (await answer.json()) as { complete: boolean; nextDueAt: string | null } };
    };
    expect((await client.send("POST", "waited", { a: 1 })).status).toBe(201);
    const onlyDue = await wait({ scheduled: false });
    expect([onlyDue.status, onlyDue.body.complete, onlyDue.body.nextDueAt === null]).toEqual([200, false, false]);
    expect(await client.status("waited")).toBe("pending");
    const all = await wait();
    expect([all.status, all.body.complete, all.body.nextDueAt]).toEqual([200, true, null]);
    expect(await client.status("waited")).toBe("completed");
    expect(await client.served("waited")).toBe('{"a":1}');
  });
});

describe("hosted data layer: a wait that moves the virtual clock (advanceClock)", () => {
  async function waitOf(service: Service, body: unknown) {
    const answer = await service.app.handle(
      new Request(`${inProcessBase}/admin/wait`, {
        method: "POST",
        headers: { authorization: `Bearer ${service.deps.adminToken}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    );
    return {
      status: answer.status,
      body: (await answer.json()) as {
        complete: boolean;
        nextDueAt: string | null;
        advancedMs?: number;
        processed: Record<string, number>;
        message?: string;
      },
    };
  }

  it("with realistic timing publishes an upload at once in real time, moving the clock only to the time it fell due", async () => {
    const service = await open();
    const client = await clientOf(service);
    expect((await client.send("POST", "forwarded", { a: 1 })).status).toBe(201);
    const started = Date.now();
    const before = service.deps.clock.offsetMs();
    const waited = await waitOf(service, { advanceClock: "1h" });
    expect([waited.status, waited.body.complete, waited.body.nextDueAt]).toEqual([200, true, null]);
    // The realistic delay of an upload is 5 to 10 minutes: the clock moved that far, not the hour allowed.
    expect(waited.body.advancedMs).toBeGreaterThanOrEqual(5 * 60_000 - 1_000);
    expect(waited.body.advancedMs).toBeLessThanOrEqual(10 * 60_000);
    expect(service.deps.clock.offsetMs() - before).toBe(waited.body.advancedMs as number);
    expect(waited.body.processed["datalayer-publisher"]).toBe(1);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await client.status("forwarded")).toBe("completed");
    expect(await client.served("forwarded")).toBe('{"a":1}');
  });

  it("moves the clock again for each change that falls due later: an upload, then its update within the hour", async () => {
    const service = await open();
    const client = await clientOf(service);
    await client.send("POST", "twice", { v: 1 });
    await client.send("PUT", "twice", { v: 2 });
    const waited = await waitOf(service, { advanceClock: "2h" });
    expect([waited.status, waited.body.complete]).toEqual([200, true]);
    expect(waited.body.processed["datalayer-publisher"]).toBe(2);
    expect(waited.body.advancedMs).toBeLessThanOrEqual(70 * 60_000);
    expect(await client.served("twice")).toBe('{"v":2}');
  });

  it("leaves the clock where it is when the next work is further than advanceClock allows, saying when it is due", async () => {
    const service = await open();
    const client = await clientOf(service);
    await client.send("POST", "later", { a: 1 });
    const waited = await waitOf(service, { advanceClock: "1m", timeoutMs: 200 });
    expect([waited.status, waited.body.complete, waited.body.advancedMs]).toEqual([200, false, 0]);
    expect(Date.parse(waited.body.nextDueAt ?? "")).toBeGreaterThan(service.deps.clock.now() + 4 * 60_000);
    expect(await client.status("later")).toBe("pending");
  });

  it("refuses an advanceClock that is not a duration, and one with scheduled: false, naming them (400 1400)", async () => {
    const service = await open();
    expect((await waitOf(service, { advanceClock: "soon" })).body.message).toBe(
      "Invalid request submission. Invalid advanceClock: must be a non-negative duration such as 1500, 90s, 10m, 3d.",
    );
    expect((await waitOf(service, { advanceClock: true })).status).toBe(400);
    const contradicting = await waitOf(service, { advanceClock: "1h", scheduled: false });
    expect([contradicting.status, contradicting.body.message]).toEqual([
      400,
      "Invalid request submission. Invalid scheduled: cannot be false with advanceClock, which runs the work scheduled later.",
    ]);
  });
});

describe("hosted data layer: durability (DEC-DLE-05, DEC-DLE-06)", () => {
  it("a pending change survives a restart on the same libSQL file and completes after it", async () => {
    const store: StoreChoice = { kind: "libsql", url: freshDatabaseUrl() };
    const first = await open({ store });
    const before = await clientOf(first);
    expect((await before.send("POST", "durable", { kept: "across restarts" })).status).toBe(201);
    expect(await before.status("durable")).toBe("pending");
    await first.close();

    const second = await open({ store });
    second.start();
    const after = await clientOf(second);
    expect(await after.status("durable")).toBe("pending");
    await after.advance("11m");
    expect(await after.status("durable")).toBe("completed");
    expect(await after.served("durable")).toBe('{"kept":"across restarts"}');
  });

  it("concurrent updates of one data layer are each recorded once, and the last recorded is what is served", async () => {
    const service = await open({ store: { kind: "libsql", url: freshDatabaseUrl() }, timing: "instant" });
    const client = await clientOf(service);
    await client.send("POST", "busy", { n: 0 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) => client.send("PUT", "busy", { n: index + 1 })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    const recorded = await service.stores.dataLayers.read({ account: "acme", profile: "main", dlId: "busy" });
    expect(recorded?.layer.lastSeq).toBe(21);
    await client.advance("1s");
    expect(await client.served("busy")).toBe(recorded?.newest.body ?? "missing");
    expect(await client.status("busy")).toBe("completed");
  });
});

describe("hosted data layer: the session's utk (SES-07)", () => {
  it("a repeated utk is read by its first value, as every query parameter is", async () => {
    const client = await clientOf(await open({ timing: "instant" }));
    for (const [query, status] of [
      ["utk=UTK", 200],
      ["utk=UTK&utk=other", 200],
      ["utk=other&utk=UTK", 401],
      ["utk=&utk=UTK", 401],
      ["utk=UTK&utk=UTK", 200],
    ] as const) {
      expect([query, (await client.list(query)).status]).toEqual([query, status]);
    }
  });
});

describe("hosted data layer: serving (DEC-DLE-07)", () => {
  it("lets caches keep a copy but revalidate it: public, no-cache with an ETag, 304 for a match, a new ETag after a change", async () => {
    const service = await open({ timing: "instant" });
    const client = await clientOf(service);
    await client.send("POST", "cached", { v: 1 });
    await client.advance("1s");
    const get = (headers: Record<string, string> = {}) =>
      service.app.handle(new Request(`${inProcessBase}/dle/acme/main/cached.js`, { headers }));
    const first = await get();
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("public, no-cache");
    expect(first.headers.get("access-control-allow-origin")).toBe("*");
    const etag = first.headers.get("etag") ?? "";
    expect(etag).toMatch(/^"js-1-\d+"$/);
    const revalidated = await get({ "if-none-match": etag });
    expect(revalidated.status).toBe(304);
    expect(await revalidated.text()).toBe("");
    await client.send("PUT", "cached", { v: 2 });
    await client.advance("1s");
    const changed = await get({ "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect(await changed.text()).toContain('{\\"v\\":2}');
  });

  it("every refusal under /dle is readable from any origin, as what it serves is: 404, 405 with Allow, a path no route takes", async () => {
    const service = await open({ timing: "instant" });
    for (const [method, path, status] of [
      ["GET", "/dle/acme/main/missing.js", 404],
      ["POST", "/dle/acme/main/missing.js", 405],
      ["DELETE", "/dle/acme/main/missing.json", 405],
      ["GET", "/dle/acme/main", 404],
      ["GET", "/dle/acme/main/a/b.js", 404],
    ] as const) {
      const answer = await service.app.handle(
        new Request(`${inProcessBase}${path}`, { method, headers: { origin: "https://shop.example" } }),
      );
      expect([method, path, answer.status, answer.headers.get("access-control-allow-origin")]).toEqual([
        method,
        path,
        status,
        "*",
      ]);
      if (status === 405) expect(answer.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    }
  });
});

describe("hosted data layer: why a 400 1400 was refused", () => {
  /** The contract's body, the same for every refusal, and the reason header that tells them apart. */
  async function refusal(service: Service, path: string, init: RequestInit): Promise<string | null> {
    const client = await clientOf(service);
    const response = await service.app.handle(
      new Request(`${inProcessBase}${path.replace("UTK", client.utk)}`, {
        ...init,
        headers: { cookie: client.cookie, ...init.headers },
      }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      returnCode: 1400,
      message: "Invalid request submission. Please check supplied parameters or request body.",
    });
    return response.headers.get("x-svc-hub-reason");
  }

  it("says in a header of its own which refusal it was, the body staying the contract's", async () => {
    const service = await open();
    const base = "/v1/dle/accounts/acme/profiles/main/datalayers";
    const json = { "content-type": "application/json" };
    const cases: Array<[string, RequestInit, string]> = [
      [
        `${base}/home?utk=UTK`,
        { method: "POST", headers: json, body: '{"page":{"type.name":"x"}}' },
        "no key may hold a period (.), and /page/type.name does",
      ],
      [
        `${base}/home?utk=UTK`,
        { method: "POST", headers: json, body: "[1]" },
        "the body must be a JSON object, not an array",
      ],
      [`${base}/home?utk=UTK`, { method: "POST", headers: json, body: "{" }, "the body is not valid JSON"],
      [
        `${base}/home?utk=UTK`,
        { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" },
        'the Content-Type must be application/json, not "text/plain"',
      ],
      [
        `${base}/home?utk=UTK`,
        { method: "POST", headers: { ...json, "content-encoding": "br" }, body: "{}" },
        'the Content-Encoding "br" is not taken: gzip, or none',
      ],
      [
        `${base}/home?utk=UTK`,
        { method: "POST", headers: { ...json, "content-encoding": "gzip" }, body: "{}" },
        "the body is not valid gzip",
      ],
      [
        `${base}/home%20page?utk=UTK`,
        { method: "POST", headers: json, body: "{}" },
        'the data layer id "home page" holds a character names may not: only A-Z a-z 0-9 _ - ~',
      ],
      [
        `${base}/a/b?utk=UTK`,
        { method: "POST", headers: json, body: "{}" },
        'the data layer id "a/b" holds a "/", which names may not',
      ],
      [
        `/v1/dle/accounts/acne/profiles/main/datalayers/home?utk=UTK`,
        { method: "POST", headers: json, body: "{}" },
        'there is no account "acne"',
      ],
      [
        `/v1/dle/accounts/acme/profiles/mian/datalayers?utk=UTK`,
        { method: "GET" },
        'the account "acme" has no profile "mian"',
      ],
    ];
    for (const [path, init, reason] of cases) expect(await refusal(service, path, init)).toBe(reason);
  });

  it("spells a name outside printable ASCII as \\u escapes, so the header is always a valid one", async () => {
    const service = await open();
    const reason = await refusal(service, "/v1/dle/accounts/acme/profiles/main/datalayers/caf%C3%A9%0A?utk=UTK", {
      method: "DELETE",
    });
    expect(reason).toBe('the data layer id "caf\\u00e9\\n" holds a character names may not: only A-Z a-z 0-9 _ - ~');
  });
});

describe("hosted data layer: the OpenAPI document", () => {
  it("[DEC-GEN-06] another method on a data layer is 405 with Allow; a path the routes do not take (two trailing slashes) is 404, not 405", async () => {
    const service = await open({ timing: "instant" });
    const client = await clientOf(service);
    expect((await client.send("POST", "home", { page: "home" })).status).toBe(201);
    const patch = await client.raw("PATCH", "home");
    expect(patch.status).toBe(405);
    expect(patch.headers.get("allow")).toBe("GET, HEAD, POST, PUT, DELETE");
    expect(await patch.json()).toEqual({ returnCode: 1405, message: "Method not allowed" });
    for (const method of ["GET", "PUT", "DELETE"]) {
      const doubled = await client.raw(method, "home//");
      expect([method, doubled.status]).toEqual([method, 404]);
      expect(await doubled.json()).toEqual({ returnCode: 1404, message: "Resource not found" });
    }
    expect((await client.send("GET", "home/")).status).toBe(200);
  });

  it("lists the five operations and the served forms with their statuses", async () => {
    const service = await open();
    const response = await service.app.handle(new Request(`${inProcessBase}/openapi.json`));
    const document = (await response.json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const one = document.paths["/v1/dle/accounts/{account}/profiles/{profile}/datalayers/{dl_id}"];
    expect(Object.keys(one?.post?.responses ?? {})).toEqual(expect.arrayContaining(["201", "400", "401", "405"]));
    expect(Object.keys(one?.put?.responses ?? {})).toEqual(expect.arrayContaining(["200", "400", "401", "404"]));
    expect(Object.keys(one?.delete?.responses ?? {})).toEqual(expect.arrayContaining(["200", "400", "401", "404"]));
    expect(Object.keys(one?.get?.responses ?? {})).toEqual(expect.arrayContaining(["200", "400", "401", "404"]));
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        "/v1/dle/accounts/{account}/profiles/{profile}/datalayers",
        "/dle/{account}/{profile}/{file}",
      ]),
    );
    // The interface's paths, as a generated client would call them: none ends in a slash.
    expect(Object.keys(document.paths).filter((path) => path.endsWith("/"))).toEqual([]);
  });
});
