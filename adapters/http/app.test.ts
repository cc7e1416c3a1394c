import { afterEach, describe, expect, it } from "bun:test";
import { Elysia, t } from "elysia";
import {
  type InProcessService,
  openInProcessTarget,
} from "../../conformance/implementations/svc-hub/in-process-target.ts";
import { inProcessBase } from "../../harness/target.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import {
  errorStyleFor,
  isStorageUnavailable,
  loggedPathOf,
  mapUnhandledError,
  routeMethodsOf,
  StorageUnavailableError,
  unavailableResponse,
} from "./error-mapping.ts";

let opened: InProcessService | null = null;
afterEach(async () => {
  await opened?.close();
  opened = null;
});

async function app() {
  opened = await openInProcessTarget();
  return opened.service;
}

const get = (path: string, headers: Record<string, string> = {}) => new Request(`${inProcessBase}${path}`, { headers });

describe("the host part of a request URL (DEC-OPS-01)", () => {
  // Elysia finds the path from a fixed offset in the URL unless told otherwise: with a host of three
  // characters or fewer it routed `http://x/aaa/admin/users` to /admin/users, while the admin check read
  // /aaa/admin/users and let the request through without the token.
  const at = (url: string, init: RequestInit = {}) => new Request(url, init);

  it("[DEC-OPS-01] a request whose URL is not http:// (Bun's bare path for an invalid Host) is 400 before anything, the admin API included", async () => {
    const service = await app();
    for (const url of ["/admin/users", "/a/bbbb/admin/users", "/healthz", "http://a:b/admin/users"]) {
      // What Bun hands over for `Host: a/b`: the URL is the bare path.
      const answer = await service.app.handle(
        Object.defineProperty(new Request(`http://placeholder${url}`), "url", { value: url }),
      );
      expect(answer.status).toBe(400);
      expect(await answer.json()).toEqual({
        returnCode: 1400,
        message: "Invalid request submission. Invalid Host header.",
      });
    }
  });

  it("[DEC-GEN-01, COL-04, DEC-MOM-02] the invalid-Host refusal is answered in the style of its path: X-Error and CORS on /event, {message} on the moments API", async () => {
    const service = await app();
    const bare = (url: string, headers: Record<string, string> = {}) =>
      Object.defineProperty(new Request(`http://placeholder${url}`, { headers }), "url", { value: url });
    const event = await service.app.handle(bare("/event?svc_account=acme", { origin: "https://shop.example.com" }));
    expect(event.status).toBe(400);
    expect(event.headers.get("x-error")).toBe("Invalid Host header");
    expect(event.headers.get("cache-control")).toBe("no-store");
    expect(event.headers.get("access-control-allow-origin")).toBe("https://shop.example.com");
    expect(await event.text()).toBe("");
    const moments = await service.app.handle(
      bare("/personalization/accounts/acme/profiles/main/engines/demo-engine/visitors/v"),
    );
    expect(moments.status).toBe(400);
    expect(await moments.json()).toEqual({ message: "Bad request: invalid Host header" });
  });

  it("[DEC-OPS-01] the admin API needs its token whatever the Host header, and a short host is routed by its real path", async () => {
    const service = await app();
    for (const host of ["x", "ab", "abc", "api", "svc-hub.example"]) {
      expect((await service.app.handle(at(`http://${host}/admin/users`))).status).toBe(401);
      expect((await service.app.handle(at(`http://${host}/aaa/admin/users`))).status).toBe(404);
      expect((await service.app.handle(at(`http://${host}/a/admin/clock`))).status).toBe(404);
      const reset = at(`http://${host}/aaa/admin/users/ops@example.com/password`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ password: "attacker-password-1" }),
      });
      expect((await service.app.handle(reset)).status).not.toBe(200);
      expect((await service.app.handle(at(`http://${host}/healthz`))).status).toBe(200);
      expect((await service.app.handle(at(`http://${host}:8080/healthz`))).status).toBe(200);
    }
  });
});

describe("the virtual clock through the admin API (DEC-OPS-02)", () => {
  it("[DEC-OPS-02] is set forward, and refuses a time before its own with 400 1400 naming now", async () => {
    const service = await app();
    const admin = { authorization: `Bearer ${service.deps.adminToken}`, "content-type": "application/json" };
    const put = (now: string | number) =>
      service.app.handle(
        new Request(`${inProcessBase}/admin/clock`, { method: "PUT", headers: admin, body: JSON.stringify({ now }) }),
      );
    const current = service.deps.clock.now();
    const forward = await put(new Date(current + 3_600_000).toISOString());
    expect(forward.status).toBe(200);
    const back = await put(new Date(current).toISOString());
    expect(back.status).toBe(400);
    const body = (await back.json()) as { returnCode: number; message: string };
    expect(body.returnCode).toBe(1400);
    expect(body.message).toContain("now");
    expect(body.message).toContain("only moves forward");
    expect(service.deps.clock.now()).toBeGreaterThanOrEqual(current + 3_600_000);
  });
});

describe("HEAD (RFC 9110)", () => {
  it("is the GET of the same route without its body: status and headers", async () => {
    const service = await app();
    for (const path of ["/healthz", "/readyz", "/openapi.json"]) {
      const [head, get] = await Promise.all([
        service.app.handle(new Request(`${inProcessBase}${path}`, { method: "HEAD" })),
        service.app.handle(new Request(`${inProcessBase}${path}`)),
      ]);
      expect(head.status).toBe(get.status);
      expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"));
      expect(await head.text()).toBe("");
    }
  });
});

describe("the HTTP app", () => {
  it("[DEC-OPS-01] /readyz answers 503 with Retry-After when the store does not answer", async () => {
    const service = await app();
    await service.stores.close();
    const response = await service.app.handle(get("/readyz"));
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("1");
    expect(await response.json()).toEqual({ returnCode: 1503, message: "Storage unavailable. Please retry later." });
  });

  it("serves an OpenAPI document at /openapi.json listing the routes and their statuses", async () => {
    const service = await app();
    const response = await service.app.handle(
      get("/openapi.json", { authorization: `Bearer ${service.deps.adminToken}` }),
    );
    expect(response.status).toBe(200);
    const document = (await response.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    expect(document.openapi).toStartWith("3.");
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(["/healthz", "/readyz", "/admin/clock", "/admin/clock/advance", "/admin/wait"]),
    );
    expect(Object.keys(document.paths["/admin/wait"]?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(["200", "401", "504"]),
    );
  });

  it("the OpenAPI document says what each route asks for: the admin token, the session's cookie and utk, a bearer token", async () => {
    const service = await app();
    const document = (await (
      await service.app.handle(get("/openapi.json", { authorization: `Bearer ${service.deps.adminToken}` }))
    ).json()) as {
      paths: Record<string, Record<string, { security?: unknown }>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(document.components.securitySchemes.utk).toEqual(
      expect.objectContaining({ type: "apiKey", in: "query", name: "utk" }),
    );
    expect(document.components.securitySchemes.session).toEqual(
      expect.objectContaining({ type: "apiKey", in: "cookie", name: "JSESSIONID" }),
    );
    const open = new Set(["/v1/login", "/v1/logout", "/v2/auth"]);
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const expected =
          path.startsWith("/admin") || path === "/metrics"
            ? [{ admin: [] }]
            : path.startsWith("/v1/") && !open.has(path)
              ? [{ session: [], utk: [] }]
              : path.startsWith("/v2/") && !open.has(path)
                ? [{ bearer: [] }]
                : undefined;
        expect([method, path, operation.security]).toEqual([method, path, expected]);
      }
    }
  });

  it("the OpenAPI document describes every body a route reads and every answer's media type, forms and zips included", async () => {
    const service = await app();
    type Operation = {
      requestBody?: {
        required: boolean;
        content: Record<string, { schema?: { properties?: Record<string, unknown> } }>;
      };
      responses: Record<string, { content?: Record<string, unknown> }>;
    };
    const document = (await (
      await service.app.handle(get("/openapi.json", { authorization: `Bearer ${service.deps.adminToken}` }))
    ).json()) as { paths: Record<string, Record<string, Operation>> };
    const mediaType = /^[a-z]+\/[a-z0-9.+-]+(; charset=utf-8)?$/;
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const where = `${method.toUpperCase()} ${path}`;
        if (operation.requestBody)
          expect([where, Object.keys(operation.requestBody.content).length > 0]).toEqual([where, true]);
        const types = [
          ...Object.keys(operation.requestBody?.content ?? {}),
          ...Object.values(operation.responses).flatMap((answer) => Object.keys(answer.content ?? {})),
        ];
        for (const type of types) expect([where, type, mediaType.test(type)]).toEqual([where, type, true]);
      }
    }
    const { paths } = document;
    const formFields = (operation: Operation | undefined) =>
      Object.keys(operation?.requestBody?.content["application/x-www-form-urlencoded"]?.schema?.properties ?? {});
    expect(formFields(paths["/v1/login"]?.post)).toEqual(["username", "password"]);
    expect(formFields(paths["/v2/auth"]?.post)).toEqual(["username", "key"]);
    expect(formFields(paths["/v2/visitor/accounts/{account}/profiles/{profile}"]?.delete)).toEqual([
      "attributeId",
      "attributeValue",
    ]);
    expect(
      Object.keys(
        paths["/v1/accounts/{account}/{profile}/revisions/{revisionId}/{target}"]?.get?.responses["200"]?.content ?? {},
      ),
    ).toEqual(["application/zip"]);
    expect(
      Object.keys(paths["/v1/accounts/{account}/{profile}/revisions/{revisionId}/{target}"]?.get?.responses ?? {}),
    ).toEqual(["200", "400", "401", "404"]);
    expect(Object.keys(paths["/dle/{account}/{profile}/{file}"]?.get?.responses["200"]?.content ?? {})).toEqual([
      "application/json; charset=utf-8",
      "text/javascript; charset=utf-8",
    ]);
    expect(paths["/v1/logout"]?.post?.responses["200"]?.content).toBeUndefined();
    expect(Object.keys(paths["/event"]?.post?.requestBody?.content ?? {})).toEqual(["application/json", "text/plain"]);
    expect(
      Object.keys(
        paths["/v1/dle/accounts/{account}/profiles/{profile}/datalayers/{dl_id}"]?.put?.requestBody?.content ?? {},
      ),
    ).toEqual(["application/json"]);
    expect(
      Object.keys(paths["/admin/accounts/{account}/profiles/{profile}/revisions"]?.post?.requestBody?.content ?? {}),
    ).toEqual(["multipart/form-data"]);
    expect(paths["/admin/reset"]?.post?.requestBody?.required).toBe(false);
  });

  it("[DEC-OPS-04] /admin/wait leaves work due after its timeout (200, not complete), and answers 504 1504 for work it could not finish in time", async () => {
    const service = await app();
    const wait = () =>
      service.app.handle(
        new Request(`${inProcessBase}/admin/wait`, {
          method: "POST",
          headers: { authorization: `Bearer ${service.deps.adminToken}`, "content-type": "application/json" },
          body: JSON.stringify({ timeoutMs: 20 }),
        }),
      );
    const due = service.deps.clock.now() + 3_600_000;
    service.background?.scheduler.register({ name: "far-future", runDue: async () => 0, nextDueAt: async () => due });
    const left = await wait();
    expect(left.status).toBe(200);
    expect(await left.json()).toMatchObject({ complete: false, nextDueAt: new Date(due).toISOString() });

    // Work that keeps coming cannot be finished within 20 ms.
    service.background?.scheduler.register({ name: "endless", runDue: async () => 1, nextDueAt: async () => null });
    const response = await wait();
    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({ returnCode: 1504, message: "Background work did not finish within 20 ms" });
  });

  it("/admin/accounts lists the demo tenants once", async () => {
    const service = await app();
    const response = await service.app.handle(
      get("/admin/accounts", { authorization: `Bearer ${service.deps.adminToken}` }),
    );
    expect(await response.json()).toEqual([
      { name: "acme", profiles: ["dev", "main"] },
      { name: "globex", profiles: ["main"] },
    ]);
  });
});

describe("error mapping (DEC-GEN-01, DEC-GEN-07)", () => {
  function appThatThrows(error: unknown, path = "/v1/boom") {
    const logger = createMemoryLogger();
    const app = new Elysia().onError(mapUnhandledError(logger)).get(path, () => {
      throw error;
    });
    return { app, logger };
  }

  it("[DEC-GEN-01] a management path that exists with other methods is 405 1405 with Allow; a path that does not exist stays 404", async () => {
    const service = await openInProcessTarget();
    try {
      const call = (method: string, path: string) =>
        service.service.app.handle(new Request(`${inProcessBase}${path}`, { method }));
      const cases: Array<[string, string, string]> = [
        ["GET", "/v1/login", "POST"],
        ["POST", "/v1/dle/accounts/acme/profiles/main/datalayers", "GET, HEAD"],
        ["POST", "/v2/visitor/accounts/acme/profiles/main/ids/", "GET, HEAD"],
      ];
      for (const [method, path, allow] of cases) {
        const answer = await call(method, path);
        expect([method, path, answer.status, answer.headers.get("allow")]).toEqual([method, path, 405, allow]);
        expect(await answer.json()).toEqual({ returnCode: 1405, message: "Method not allowed" });
      }
      const unknown = await call("GET", "/v1/nothing-here");
      expect([unknown.status, unknown.headers.get("allow")]).toEqual([404, null]);
    } finally {
      await service.close();
    }
  });

  it("routeMethodsOf: parameters match one segment, one trailing slash is forgiven, catch-alls are left out", () => {
    const allowed = routeMethodsOf([
      { method: "GET", path: "/a/:id" },
      { method: "PUT", path: "/a/:id" },
      { method: "POST", path: "/b/" },
      { method: "ALL", path: "/a/:id" },
      { method: "DELETE", path: "/c/*" },
    ]);
    expect(allowed("/a/x")).toEqual(["GET", "HEAD", "PUT"]);
    expect(allowed("/a/x/")).toEqual(["GET", "HEAD", "PUT"]);
    expect(allowed("/a/x/y")).toEqual([]);
    expect(allowed("/b")).toEqual(["POST"]);
    expect(allowed("/c/z")).toEqual([]);
  });

  it("every route a client without the admin token reaches reads its body itself, with its own limit: Elysia's parser would read up to the server's cap (limits.maxUploadBytes)", async () => {
    const service = await openInProcessTarget();
    try {
      const routes = (
        service.service.app as unknown as {
          routes: Array<{ method: string; path: string; hooks?: { parse?: unknown } }>;
        }
      ).routes;
      const parsing = routes
        .filter((route) => !["GET", "HEAD", "OPTIONS"].includes(route.method) && !route.path.startsWith("/admin"))
        .filter((route) => JSON.stringify(route.hooks?.parse ?? null) !== JSON.stringify([{ fn: "none" }]))
        .map((route) => `${route.method} ${route.path}`);
      expect(parsing).toEqual([]);
      expect(routes.some((route) => route.method === "POST" && route.path === "/event")).toBe(true);
    } finally {
      await service.close();
    }
  });

  it("[DEC-GEN-07] a request before the service is open is 503 with Retry-After, in the style of its path", async () => {
    const management = unavailableResponse(new Request(`${inProcessBase}/v1/login`));
    expect([management.status, management.headers.get("retry-after")]).toEqual([503, "1"]);
    expect(await management.json()).toEqual({ returnCode: 1503, message: "Storage unavailable. Please retry later." });
    const collect = unavailableResponse(new Request(`${inProcessBase}/event?svc_account=acme`));
    expect([
      collect.status,
      collect.headers.get("x-error"),
      collect.headers.get("retry-after"),
      await collect.text(),
    ]).toEqual([503, "Storage unavailable", "1", ""]);
    const moments = unavailableResponse(
      new Request(`${inProcessBase}/personalization/accounts/acme/profiles/main/engines/e/visitors/v`),
    );
    expect([moments.status, moments.headers.get("retry-after")]).toEqual([503, "1"]);
    expect(((await moments.json()) as { message: string }).message).toBeString();
    // DEC-GEN-05: the headers every answer carries, given by the server before the app can add them.
    const general = {
      "x-version": "1.2.3",
      "x-nodeid": "node-7",
      "cache-control": "no-cache, no-store, must-revalidate",
    };
    for (const path of [
      "/v1/login",
      "/admin/clock",
      "/event",
      "/personalization/accounts/acme/profiles/main/engines/e/visitors/v",
    ]) {
      const answer = unavailableResponse(new Request(`${inProcessBase}${path}`), general);
      expect([
        answer.headers.get("x-version"),
        answer.headers.get("x-nodeid"),
        answer.headers.get("retry-after"),
      ]).toEqual(["1.2.3", "node-7", "1"]);
      expect(answer.headers.get("cache-control")).toBe("no-cache, no-store, must-revalidate");
    }
  });

  it("[DEC-GEN-01] an admin body that fails its schema is 400 1400 naming the field and what is wrong with it", async () => {
    const service = await app();
    const admin = { authorization: `Bearer ${service.deps.adminToken}`, "content-type": "application/json" };
    const post = async (path: string, body: unknown) =>
      (
        await service.app.handle(
          new Request(`${inProcessBase}${path}`, { method: "POST", headers: admin, body: JSON.stringify(body) }),
        )
      ).json();
    expect(await post("/admin/clock/advance", {})).toEqual({
      returnCode: 1400,
      message: "Invalid request submission. Invalid by: missing.",
    });
    expect(await post("/admin/wait", { scheduled: "yes" })).toEqual({
      returnCode: 1400,
      message: "Invalid request submission. Invalid scheduled: must be true or false.",
    });
    // A field that takes one of several shapes says which, from its description.
    expect(await post("/admin/clock/advance", { by: true })).toEqual({
      returnCode: 1400,
      message:
        "Invalid request submission. Invalid by: expected milliseconds, or a duration such as 90s, 10m, 30d, 1d12h.",
    });
    expect(await post("/admin/wait", { timeoutMs: 700_000 })).toEqual({
      returnCode: 1400,
      message:
        "Invalid request submission. Invalid timeoutMs: must be a whole number of milliseconds from 0 to 600000.",
    });
  });

  it("[DEC-GEN-01] an admin body with a field its call does not take is 400 1400 naming it, at any depth, and changes nothing", async () => {
    const service = await app();
    const admin = { authorization: `Bearer ${service.deps.adminToken}`, "content-type": "application/json" };
    const send = async (method: string, path: string, body: string) => {
      const answer = await service.app.handle(new Request(`${inProcessBase}${path}`, { method, headers: admin, body }));
      return [answer.status, ((await answer.json()) as { message: string }).message];
    };
    const refused = (message: string) => [400, `Invalid request submission. ${message}`];
    const clockBefore = await (
      await service.app.handle(new Request(`${inProcessBase}/admin/clock`, { headers: admin }))
    ).json();
    expect(await send("POST", "/admin/clock/advance", '{"by":"1d","extra":1}')).toEqual(
      refused("Invalid extra: is not a field of this call (it takes only by)."),
    );
    expect(await send("PUT", "/admin/clock", '{"now":"2031-01-01T00:00:00Z","nw":1}')).toEqual(
      refused("Invalid nw: is not a field of this call (it takes only now)."),
    );
    expect(
      (
        (await (await service.app.handle(new Request(`${inProcessBase}/admin/clock`, { headers: admin }))).json()) as {
          offsetMs: number;
        }
      ).offsetMs,
    ).toBe((clockBefore as { offsetMs: number }).offsetMs);
    // A misspelled `grants` made a user without grants, answered 201.
    expect(
      await send("POST", "/admin/users", '{"email":"ops@example.com","password":"a-long-password","grant":[]}'),
    ).toEqual(refused("Invalid grant: is not a field of this call (it takes only email, password, grants, disabled)."));
    expect(
      await send(
        "POST",
        "/admin/users",
        '{"email":"ops@example.com","password":"a-long-password","grants":[{"account":"acme","profile":["main"]}]}',
      ),
    ).toEqual(refused("Invalid grants/0/profile: is not a field of this call (it takes only account, profiles)."));
    expect(
      (await service.app.handle(new Request(`${inProcessBase}/admin/users/ops@example.com`, { headers: admin })))
        .status,
    ).toBe(404);
    // The wait's body is optional, but when there is one it is a JSON object of its fields.
    for (const [body, message] of [
      [
        '{"timeout":5000}',
        "Invalid timeout: is not a field of this call (it takes only scheduled, timeoutMs, advanceClock).",
      ],
      ['{"timeoutMs":', "Invalid body: not JSON."],
      ["garbage", "Invalid body: not JSON."],
      ["[1]", "Invalid body: must be a JSON object."],
      ['{"timeoutMs":1.5}', "Invalid timeoutMs: must be a whole number of milliseconds from 0 to 600000."],
    ]) {
      expect([body, ...(await send("POST", "/admin/wait", body as string))]).toEqual([
        body,
        ...refused(message as string),
      ]);
    }
    for (const body of ["", "  ", "{}", '{"scheduled":false,"timeoutMs":1000}'])
      expect([body, (await send("POST", "/admin/wait", body))[0]]).toEqual([body, 200]);
  });

  it("[DEC-GEN-01] an admin body sent as the wrong type says what it came as and what the call takes", async () => {
    const service = await app();
    const send = async (path: string, contentType: string | null, body: string) => {
      const headers: Record<string, string> = { authorization: `Bearer ${service.deps.adminToken}` };
      if (contentType !== null) headers["content-type"] = contentType;
      const answer = await service.app.handle(
        new Request(`${inProcessBase}${path}`, { method: "POST", headers, body }),
      );
      return [answer.status, ((await answer.json()) as { message: string }).message];
    };
    const refused = (message: string) => [400, `Invalid request submission. ${message}`];
    // What `curl -d '{"by":"1h"}'` sends: a form whose one field is named by the JSON.
    expect(await send("/admin/clock/advance", "application/x-www-form-urlencoded", '{"by":"1h"}')).toEqual(
      refused(
        'Invalid {"by":"1h"}: is not a field of this call (it takes only by); a JSON body needs Content-Type: application/json.',
      ),
    );
    expect(await send("/admin/clock/advance", "text/plain", '{"by":"1h"}')).toEqual(
      refused(
        "Invalid body: must be a JSON object with Content-Type: application/json, or form fields (it came as text/plain).",
      ),
    );
    expect(await send("/admin/users", null, '{"email":"a@example.com"}')).toEqual(
      refused(
        "Invalid body: must be a JSON object with Content-Type: application/json, or form fields (it came without a Content-Type).",
      ),
    );
    expect(await send("/admin/clock/advance", "application/json", '{"by":"1h"')).toEqual(
      refused("Invalid body: not JSON."),
    );
    // Form fields are taken, as the message says.
    expect((await send("/admin/clock/advance", "application/x-www-form-urlencoded", "by=1m"))[0]).toBe(200);
  });

  it("an unexpected error is 500 1500 'Internal error', leaks nothing, and is logged in full", async () => {
    const { app, logger } = appThatThrows(new Error("SQLITE_ERROR: no such table: users at /srv/secret/path.ts"));
    const response = await app.handle(get("/v1/boom"));
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ returnCode: 1500, message: "Internal error" });
    expect(text).not.toContain("SQLITE");
    expect(logger.lines.find((line) => line.msg === "unexpected error")?.error).toContain("no such table");
  });

  it("a store that cannot be reached or written is 503 with Retry-After, never 200 or 500", async () => {
    const busy = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    const { app } = appThatThrows(new Error("query failed", { cause: busy }));
    const response = await app.handle(get("/v1/boom"));
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("1");
    expect(await response.json()).toEqual({ returnCode: 1503, message: "Storage unavailable. Please retry later." });
  });

  it("the collection endpoint answers its refusals with X-Error and an empty body", async () => {
    const { app } = appThatThrows(new StorageUnavailableError("down"), "/event");
    const response = await app.handle(get("/event"));
    expect(response.status).toBe(503);
    expect(response.headers.get("x-error")).toBe("Storage unavailable");
    expect(await response.text()).toBe("");
  });

  it("[DEC-GEN-07] an answer that fails its route's own response schema is the 500, not a 400, logged without the answer", async () => {
    const logger = createMemoryLogger();
    const Record = t.Object({ dates: t.Record(t.String(), t.Integer()), email: t.String() });
    const app = new Elysia()
      .onError(mapUnhandledError(logger))
      .get("/v1/record", () => ({ dates: { "5207": 12.5 }, email: "ann@example.com" }), {
        query: t.Object({ n: t.Optional(t.Numeric()) }),
        response: { 200: Record },
      })
      .get("/personalization/record", () => ({ dates: { "5207": 12.5 }, email: "ann@example.com" }), {
        response: { 200: Record },
      });

    const response = await app.handle(get("/v1/record"));
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ returnCode: 1500, message: "Internal error" });
    const logged = logger.lines.find((line) => line.msg === "response failed its schema");
    expect(logged).toMatchObject({
      level: "error",
      path: "/v1/record",
      problems: [expect.objectContaining({ path: "/dates/5207" })],
    });
    expect(JSON.stringify(logger.lines)).not.toContain("ann@example.com");

    const moments = await app.handle(get("/personalization/record"));
    expect(moments.status).toBe(500);
    expect(await moments.json()).toEqual({ message: "Internal error" });
    // The request's own validation stays the client's fault.
    const badQuery = await app.handle(get("/v1/record?n=abc"));
    expect(badQuery.status).toBe(400);
    expect(await badQuery.json()).toEqual({
      returnCode: 1400,
      message: "Invalid request submission. Please check supplied parameters or request body.",
    });
  });

  it("the moments API answers {message}", async () => {
    const { app } = appThatThrows(new Error("boom"), "/personalization/x");
    const response = await app.handle(get("/personalization/x"));
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ message: "Internal error" });
  });

  it("[PRV-09] the log's path of a moments lookup holds no visitor, whatever the account, profile or engine is named", () => {
    const logged = (path: string) => loggedPathOf(`${inProcessBase}${path}`);
    expect(
      logged(
        "/personalization/accounts/acme/profiles/main/engines/demo-engine/visitors/__acme_main__5120_ann@example.com__",
      ),
    ).toBe("/personalization/accounts/acme/profiles/main/engines/demo-engine/visitors/…");
    expect(
      logged("/personalization/accounts/visitors/profiles/visitors/engines/visitors/visitors/ann@example.com"),
    ).toBe("/personalization/accounts/visitors/profiles/visitors/engines/visitors/visitors/…");
    expect(logged("/personalization/accounts/a/profiles/p/engines/e/visitors/")).toBe(
      "/personalization/accounts/a/profiles/p/engines/e/visitors/",
    );
    expect(logged("/v1/login")).toBe("/v1/login");
  });

  it("knows which family of answers a path belongs to", () => {
    expect(errorStyleFor("/event")).toBe("collect");
    expect(errorStyleFor("/personalization/accounts/a/profiles/p/engines/e")).toBe("moments");
    expect(errorStyleFor("/admin/clock")).toBe("admin");
    expect(errorStyleFor("/v1/login")).toBe("management");
    expect(errorStyleFor("/eventually")).toBe("management");
  });

  it("recognises unavailable storage through a chain of causes and not otherwise", () => {
    expect(isStorageUnavailable(new Error("a", { cause: new Error("b", { cause: { code: "SQLITE_FULL" } }) }))).toBe(
      true,
    );
    expect(isStorageUnavailable(new Error("UNIQUE constraint failed"))).toBe(false);
    expect(isStorageUnavailable(null)).toBe(false);
  });
});
