/**
 * Issue 33 in-process: fault injection (POST/GET/DELETE /admin/faults) and the request journal
 * (GET/DELETE /admin/requests) in front of the interface routes, on the demo tenants (memory store).
 */

import { afterEach, describe, expect, it } from "bun:test";
import { inProcessBase } from "../../harness/target.ts";
import { openDemoService } from "../server/demo-service.ts";
import type { Service } from "../server/service.ts";

const adminToken = "test-admin-token";
const admin = { authorization: `Bearer ${adminToken}` };
const event = "/event?svc_account=acme&svc_profile=main&tapid=1";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function open(options: { requestJournalBytes?: number } = {}) {
  const service: Service = await openDemoService({ timing: "instant", adminToken, ...options });
  cleanups.push(() => service.close());
  const call = (path: string, init: RequestInit = {}) =>
    service.app.handle(new Request(`${inProcessBase}${path}`, init));
  const addFault = async (fault: Record<string, unknown>) =>
    call("/admin/faults", {
      method: "POST",
      headers: { ...admin, "content-type": "application/json" },
      body: JSON.stringify(fault),
    });
  const journal = async (query = "") => {
    const answer = await call(`/admin/requests${query}`, { headers: admin });
    expect(answer.status).toBe(200);
    return (await answer.json()) as {
      maxBytes: number;
      bytes: number;
      kept: number;
      requests: Array<Record<string, unknown>>;
    };
  };
  return { service, call, addFault, journal };
}

describe("issue 33: fault injection through /admin/faults", () => {
  it("answers the next N matching requests with the fault's status, body and headers, then normally", async () => {
    const { call, addFault } = await open();
    const added = await addFault({
      method: "POST",
      path: "/v1/login",
      times: 2,
      status: 503,
      body: { returnCode: 1503, message: "try later" },
      headers: { "retry-after": "1" },
    });
    expect(added.status).toBe(201);
    const fault = (await added.json()) as Record<string, unknown>;
    expect(fault).toMatchObject({ id: "f1", method: "POST", path: "/v1/login", times: 2, remaining: 2, status: 503 });

    const login = () =>
      call("/v1/login", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "username=demo@example.com&password=demo-password-1",
      });
    for (const remaining of [1, 0]) {
      const answer = await login();
      expect(answer.status).toBe(503);
      expect(answer.headers.get("content-type")).toBe("application/json");
      expect(answer.headers.get("retry-after")).toBe("1");
      expect(answer.headers.get("x-svc-hub-fault")).toBe("f1");
      expect(await answer.json()).toEqual({ returnCode: 1503, message: "try later" });
      const listed = (await (await call("/admin/faults", { headers: admin })).json()) as { faults: unknown[] };
      expect(listed.faults.length).toBe(remaining);
    }
    expect((await login()).status).toBe(200);
  });

  it("matches a {param} template and an account only", async () => {
    const { call, addFault } = await open();
    await addFault({ path: "/dle/:account/:profile/:file", account: "globex", status: 418, body: "teapot" });
    expect((await call("/dle/acme/main/x.json")).status).toBe(404);
    const answer = await call("/dle/globex/main/x.json");
    expect(answer.status).toBe(418);
    expect(answer.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await answer.text()).toBe("teapot");
  });

  it("delays a request by delayMs, then lets svc-hub answer it", async () => {
    const { call, addFault } = await open();
    await addFault({ method: "GET", path: "/event", delayMs: 150 });
    const started = performance.now();
    const answer = await call(event);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-svc-hub-fault")).toBeNull();
  });

  it("drops the connection: the answer's body fails", async () => {
    const { call, addFault, journal } = await open();
    await addFault({ path: "/event", drop: true });
    const answer = await call(event);
    const read = await answer.text().then(
      () => "read",
      () => "failed",
    );
    expect(read).toBe("failed");
    expect((await journal()).requests[0]).toMatchObject({ path: "/event", status: null, fault: "f1" });
  });

  it("never faults the admin API: refused when asked, not matched by *", async () => {
    const { call, addFault } = await open();
    const refused = await addFault({ path: "/admin/reset", status: 500 });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ returnCode: 1400, message: expect.stringContaining("Invalid path") });
    expect((await addFault({ path: "*", status: 500, times: 5 })).status).toBe(201);
    expect((await call("/admin/faults", { headers: admin })).status).toBe(200);
    expect((await call("/healthz")).status).toBe(200);
    expect((await call(event)).status).toBe(500);
  });

  it("refuses a bad field with 400 1400 naming it", async () => {
    const { addFault, call } = await open();
    for (const [fault, field] of [
      [{ path: "/event", status: 99 }, "status"],
      [{ path: "/event", status: 500, drop: true }, "drop"],
      [{ path: "/event", delayMs: -1 }, "delayMs"],
      [{ path: "/event", status: 500, extra: 1 }, "extra"],
    ] as const) {
      const answer = await addFault(fault);
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { message: string }).message).toContain(`Invalid ${field}:`);
    }
    const notJson = await call("/admin/faults", { method: "POST", headers: admin, body: "{" });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { returnCode: number }).returnCode).toBe(1400);
  });

  it("removes one fault, clears all, and POST /admin/reset clears them", async () => {
    const { call, addFault } = await open();
    await addFault({ path: "/event", status: 500 });
    await addFault({ path: "/v2/auth", status: 500 });
    await addFault({ path: "/v1/login", status: 500 });
    expect(await (await call("/admin/faults/f1", { method: "DELETE", headers: admin })).json()).toEqual({ removed: 1 });
    expect((await call("/admin/faults/f1", { method: "DELETE", headers: admin })).status).toBe(404);
    expect(await (await call("/admin/faults", { method: "DELETE", headers: admin })).json()).toEqual({ removed: 2 });
    await addFault({ path: "/event", status: 500 });
    expect((await call("/admin/reset", { method: "POST", headers: admin })).status).toBe(200);
    expect(await (await call("/admin/faults", { headers: admin })).json()).toEqual({ faults: [] });
    expect((await call(event)).status).toBe(200);
  });

  it("needs the admin token", async () => {
    const { call } = await open();
    expect((await call("/admin/faults")).status).toBe(401);
    expect((await call("/admin/requests")).status).toBe(401);
  });
});

describe("issue 33: the request journal through /admin/requests", () => {
  it("records the interface routes' requests, newest first, secrets redacted; not admin, console or health", async () => {
    const { call, addFault, journal } = await open();
    await call("/healthz");
    await call("/console");
    const login = await call("/v1/login", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "username=demo@example.com&password=demo-password-1",
    });
    const { utk } = (await login.json()) as { utk: string };
    await call(`/v1/dle/accounts/acme/profiles/main/datalayers?utk=${utk}`, {
      headers: { cookie: login.headers.get("set-cookie")?.split(";")[0] ?? "" },
    });
    await addFault({ path: "/event", status: 503 });
    await call(event);

    const { maxBytes, bytes, kept, requests } = await journal();
    expect(maxBytes).toBe(4 * 1024 * 1024);
    expect(bytes).toBeGreaterThan(0);
    expect(kept).toBe(3);
    expect(requests.map((entry) => [entry.method, entry.path, entry.status, entry.account, entry.fault])).toEqual([
      ["GET", "/event", 503, "acme", "f1"],
      ["GET", "/v1/dle/accounts/:account/profiles/:profile/datalayers", 200, "acme", undefined],
      ["POST", "/v1/login", 200, null, undefined],
    ]);
    expect(requests[1]?.query).toEqual({ utk: "[redacted]" });
    expect(JSON.stringify(requests)).not.toContain(utk);
    expect(typeof requests[0]?.durationMs).toBe("number");
    expect(Date.parse(String(requests[0]?.at))).toBeGreaterThan(Date.now() - 60_000);
  });

  it("filters by method, path, status and account, limits, clears, and is cleared by a reset", async () => {
    const { call, journal } = await open();
    for (let i = 0; i < 3; i += 1) await call(event);
    await call("/event?svc_account=globex&svc_profile=main");
    await call("/v2/auth", { method: "POST" });
    expect((await journal("?account=acme")).requests.length).toBe(3);
    expect((await journal("?method=post")).requests.map((entry) => entry.path)).toEqual(["/v2/auth"]);
    expect((await journal("?path=/ev*&limit=2")).requests.length).toBe(2);
    expect((await journal("?path=/v2/*&account=acme")).requests.length).toBe(0);
    expect((await journal("?status=200")).requests.length).toBe(4);
    const badLimit = await call("/admin/requests?limit=1001", { headers: admin });
    expect(badLimit.status).toBe(400);
    expect(await (await call("/admin/requests", { method: "DELETE", headers: admin })).json()).toEqual({ removed: 5 });
    expect((await journal()).requests).toEqual([]);
    await call(event);
    expect((await call("/admin/reset", { method: "POST", headers: admin })).status).toBe(200);
    expect((await journal()).kept).toBe(0);
  });

  it("keeps the route's template, the query's first whole parameters, and (issue 43) the url as sent", async () => {
    const { call, addFault, journal } = await open();
    const filler = "x".repeat(16_200);
    await call(`/nope-1?q=${filler}`);
    await call(`/dle/acme/main/nope-2.js?v=1&q=${filler}`);
    // A fault answers before the router: the journal still names the route it would have matched.
    await addFault({ path: "/v1/omnichannel/*", status: 503 });
    await call("/v1/omnichannel/accounts/acme/profiles/main/files/count");
    const { requests } = await journal();
    expect(
      requests.map((entry) => [entry.path, entry.status, entry.account, entry.query, entry.queryTruncated]),
    ).toEqual([
      ["/v1/omnichannel/accounts/:account/profiles/:profile/files/count", 503, "acme", {}, false],
      ["/dle/:account/:profile/:file", 404, "acme", { v: "1" }, true],
      [null, 404, null, {}, true],
    ]);
    expect(requests.map((entry) => entry.url)).toEqual([
      "/v1/omnichannel/accounts/acme/profiles/main/files/count",
      `/dle/acme/main/nope-2.js?v=1&q=${filler}`,
      `/nope-1?q=${filler}`,
    ]);
  });

  it("second probe, finding 1: a path filter that matches no route's template is 400 1400, naming account=", async () => {
    const { call, journal } = await open();
    const login = await call("/v1/login", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "username=demo@example.com&password=demo-password-1",
    });
    const { utk } = (await login.json()) as { utk: string };
    await call(`/v1/dle/accounts/acme/profiles/main/datalayers?utk=${utk}`);
    // A filter written for the paths as sent would find nothing, silently: it is refused instead.
    for (const path of ["/v1/dle/accounts/acme/*", "/v1/dle/accounts/acme/profiles/main/datalayers", "/nope*"]) {
      const refused = await call(`/admin/requests?path=${encodeURIComponent(path)}`, { headers: admin });
      expect(refused.status).toBe(400);
      const body = (await refused.json()) as { returnCode: number; message: string };
      expect(body.returnCode).toBe(1400);
      expect(body.message).toStartWith("Invalid request submission. Invalid path: matches no route: ");
      expect(body.message).toContain("route's template (/v1/dle/accounts/:account/*)");
      expect(body.message).toContain("account=");
    }
    // The admin API is never journaled, so its routes are none a filter can match.
    expect((await call("/admin/requests?path=/admin/*", { headers: admin })).status).toBe(400);
    // The route's template, with the account given apart, finds the request.
    const found = await journal(`?path=${encodeURIComponent("/v1/dle/accounts/:account/*")}&account=acme`);
    expect(found.requests.map((entry) => entry.path)).toEqual([
      "/v1/dle/accounts/:account/profiles/:profile/datalayers",
    ]);
    expect((await journal("?path=/v1/dle/accounts/:a/profiles/:p/datalayers")).requests.length).toBe(1);
    // {account}, the spelling before URLPattern's, still means one segment.
    expect((await journal(`?path=${encodeURIComponent("/v1/dle/accounts/{account}/*")}`)).requests.length).toBe(1);
    // A pattern that matches a route still answers 200 when no request of it is kept.
    expect((await journal("?path=/v2/*")).requests).toEqual([]);
  });

  it("issue 43: a moments lookup's path is kept as sent, its visitor for a privacy deletion to erase", async () => {
    const { call, journal } = await open();
    const lookup = "/personalization/accounts/acme/profiles/main/engines/e1/visitors";
    for (const path of [`${lookup}/ann%40example.com`, `${lookup}//ann%40example.com`, `${lookup}//ann@example.com`])
      await call(path);
    const { requests } = await journal();
    expect(requests.map((entry) => entry.url)).toEqual([
      `${lookup}//ann@example.com`,
      `${lookup}//ann%40example.com`,
      `${lookup}/ann%40example.com`,
    ]);
    expect(requests.map((entry) => entry.account)).toEqual(["acme", "acme", "acme"]);
    expect(requests.map((entry) => entry.path)).toEqual([
      null,
      null,
      "/personalization/accounts/:account/profiles/:profile/engines/:engine/visitors/:visitor",
    ]);
  });

  it("SVC_REQUEST_JOURNAL_BYTES=0 turns the journal off: nothing is recorded", async () => {
    const { call, journal } = await open({ requestJournalBytes: 0 });
    await call(event);
    await call("/nope");
    expect(await journal()).toEqual({ maxBytes: 0, bytes: 0, kept: 0, requests: [] });
  });
});
