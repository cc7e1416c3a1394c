/**
 * Issue 43, points 1 and 4: the request journal whole against a real server, through the client's helpers
 * (findRequests, countRequests, verifyRequests) and POST /admin/requests/find and /count: headers and bodies of
 * the request and its answer, secrets redacted, binary as base64, near misses, the byte bound, reset, and a
 * privacy deletion's erasure.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type SpawnedServer, spawnServer } from "../tools/spawn-server.ts";
import {
  countRequests,
  createSvcHubClient,
  findRequests,
  RequestVerificationError,
  type SvcHubClient,
  verifyRequests,
} from "./index.ts";

const root = resolve(import.meta.dir, "..");
const adminToken = "requests-test-admin-token-0123456789";
const dataDirs: string[] = [];
const servers: SpawnedServer[] = [];
let server: SpawnedServer;
let hub: SvcHubClient;

async function start(env: Record<string, string> = {}): Promise<SpawnedServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-requests-"));
  dataDirs.push(dataDir);
  const started = await spawnServer({ root, dataDir, adminToken, env: { SVC_LOG_LEVEL: "warn", ...env } });
  servers.push(started);
  return started;
}

beforeAll(async () => {
  server = await start({ SVC_STORE: "memory", SVC_TIMING: "instant" });
  hub = createSvcHubClient({ baseUrl: server.url, adminToken });
});

afterAll(async () => {
  for (const each of servers) await each.stop();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

const unique = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

/** An event POSTed to /event as JSON, as a site's tag sends one. */
function postEvent(base: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${base}/event`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(fields),
  });
}

describe("issue 43: finding and counting requests on a real server", () => {
  it("finds a request by method, path, query, header and body, with its headers and body and its answer's", async () => {
    const trace = unique("trace");
    expect(
      (
        await postEvent(
          server.url,
          { svc_account: "acme", svc_profile: "main", svc_event: "view", trace },
          { "x-trace": trace },
        )
      ).status,
    ).toBe(200);
    const pattern = {
      method: "POST",
      path: "/event",
      headers: { "X-Trace": trace },
      body: [
        { path: "$.svc_event", equals: "view" },
        { path: "$.trace", contains: trace.slice(0, 8) },
      ],
    };
    const { count, requests, nearMisses } = await findRequests(hub, pattern);
    expect([count, requests.length, nearMisses]).toEqual([1, 1, []]);
    const [found] = requests;
    expect(found).toMatchObject({ method: "POST", path: "/event", url: "/event", status: 200, account: "acme" });
    expect(found?.request.headers["x-trace"]).toBe(trace);
    const sent = JSON.stringify({ svc_account: "acme", svc_profile: "main", svc_event: "view", trace });
    expect(found?.request.body).toEqual({ text: sent, bytes: sent.length, truncated: false });
    expect(found?.response?.headers).toBeObject();
    expect(await countRequests(hub, pattern)).toBe(1);
    expect(await countRequests(hub, { ...pattern, method: "GET" })).toBe(0);
    // A GET's query parameters, by pattern and value.
    await fetch(`${server.url}/event?svc_account=acme&svc_profile=main&svc_event=click&trace=${trace}`);
    expect(await countRequests(hub, { path: "/ev*", query: { trace, svc_event: "click" } })).toBe(1);
    expect(await countRequests(hub, { query: { trace } })).toBe(1);
  });

  it("answers near misses when nothing matched, and verifyRequests lists them in its failure", async () => {
    const trace = unique("near");
    await postEvent(server.url, { svc_account: "acme", svc_profile: "main", svc_event: "view", trace });
    const pattern = {
      method: "POST",
      path: "/event",
      body: [
        { path: "$.trace", equals: trace },
        { path: "$.svc_event", equals: "purchase" },
      ],
    };
    const { count, nearMisses } = await findRequests(hub, pattern);
    expect(count).toBe(0);
    expect(nearMisses[0]?.differences).toEqual([
      { field: "body $.svc_event", expected: '"purchase"', actual: '"view"' },
    ]);
    expect(nearMisses[0]?.request.request.body).toMatchObject({ text: expect.stringContaining(trace) });
    const failure = await verifyRequests(hub, pattern).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RequestVerificationError);
    const message = (failure as Error).message;
    expect(message).toStartWith(`Expected at least 1 request(s) matching ${JSON.stringify(pattern)}, found 0.`);
    expect(message).toContain("The closest requests:\n  1. #");
    expect(message).toContain(' POST /event -> 200\n       body $.svc_event: expected "purchase", was "view"');
    // Matched, verify answers the requests; a wrong count fails.
    const matched = await verifyRequests(hub, { body: { path: "$.trace", equals: trace } }, 1);
    expect(matched.map((entry) => entry.method)).toEqual(["POST"]);
    await expect(verifyRequests(hub, { body: { path: "$.trace", equals: trace } }, { atLeast: 2 })).rejects.toThrow(
      "Expected at least 2 request(s)",
    );
  });

  it("refuses a matcher that is not one with 400 1400 naming the field", async () => {
    const answer = await fetch(`${server.url}/admin/requests/count`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ body: { path: "$..x", equals: 1 } }),
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ returnCode: 1400, message: expect.stringContaining("body") });
  });
});

describe("issue 43: what the journal keeps of a request, on a real server", () => {
  it("redacts passwords, tokens, keys and cookies in the query, the headers and both bodies", async () => {
    const login = await fetch(`${server.url}/v1/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "username=demo%40example.com&password=demo-password-1",
    });
    const { utk } = (await login.json()) as { utk: string };
    const cookie = login.headers.getSetCookie()[0]?.split(";")[0] ?? "";
    await fetch(`${server.url}/v1/dle/accounts/acme/profiles/main/datalayers?utk=${utk}`, { headers: { cookie } });
    const [listed] = (await findRequests(hub, { path: "/v1/dle/*", method: "GET" }, { limit: 1 })).requests;
    expect(listed?.url).toBe("/v1/dle/accounts/acme/profiles/main/datalayers?utk=[redacted]");
    expect(listed?.request.headers.cookie).toBe("[redacted]");
    const [loggedIn] = (await findRequests(hub, { path: "/v1/login" }, { limit: 1 })).requests;
    expect(loggedIn?.request.body).toMatchObject({ text: "username=demo%40example.com&password=[redacted]" });
    expect(loggedIn?.response?.headers["set-cookie"]).toMatch(/^\[redacted\](, \[redacted\])*$/);
    const answered = loggedIn?.response?.body;
    expect(answered && "text" in answered ? JSON.parse(answered.text) : null).toMatchObject({ utk: "[redacted]" });
    const everything = JSON.stringify(await findRequests(hub, {}, { limit: 1000 }));
    expect(everything).not.toContain(utk);
    expect(everything).not.toContain("demo-password-1");
  });

  it("keeps a binary body as base64", async () => {
    const bytes = new Uint8Array([0, 255, 128, 7, 71, 73, 70]);
    const trace = unique("bin");
    await fetch(`${server.url}/event?svc_account=acme&svc_profile=main&trace=${trace}`, {
      method: "POST",
      headers: { "content-type": "application/octet-stream" },
      body: bytes,
    });
    const [found] = (await findRequests(hub, { query: { trace } })).requests;
    expect(found?.request.body).toEqual({ base64: Buffer.from(bytes).toString("base64"), bytes: 7, truncated: false });
    // The pixel's answer is a GIF: base64 too.
    await fetch(`${server.url}/event?svc_account=acme&svc_profile=main&svc_event=view&trace=${trace}`);
    const [pixel] = (await findRequests(hub, { method: "GET", query: { trace } })).requests;
    expect(pixel?.response?.body).toMatchObject({ base64: expect.stringMatching(/^R0lGOD/) });
  });

  it("a privacy deletion erases the requests that carry the visitor's value, in their path, query or body", async () => {
    const email = `${unique("erased")}@example.com`;
    await fetch(
      `${server.url}/event?svc_account=acme&svc_profile=main&svc_event=view&email_address=${encodeURIComponent(email)}`,
    );
    await postEvent(server.url, { svc_account: "acme", svc_profile: "main", svc_event: "buy", email_address: email });
    await fetch(
      `${server.url}/personalization/accounts/acme/profiles/main/engines/demo-engine/visitors/${encodeURIComponent(email)}`,
    );
    const holding = () =>
      findRequests(hub, {}, { limit: 1000 }).then((found) =>
        found.requests.filter(
          (entry) => JSON.stringify(entry).includes(encodeURIComponent(email)) || JSON.stringify(entry).includes(email),
        ),
      );
    expect((await holding()).length).toBe(3);
    const bearer = await hub.authorize("demo@example.com", "demo-key-0001-acme");
    const deletion = await bearer.api.DELETE("/v2/visitor/accounts/{account}/profiles/{profile}", {
      params: { path: { account: "acme", profile: "main" } },
      body: { attributeId: "5120", attributeValue: email },
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(deletion.response.status).toBe(202);
    // DEC-PRV-05: none is left holding it, the deletion's own request included: journaled once it was answered,
    // it is kept without its body.
    expect(await holding()).toEqual([]);
    const [own] = await findRequests(hub, { method: "DELETE", path: "/v2/visitor/*" }, { limit: 1 }).then(
      (found) => found.requests,
    );
    expect([own?.url, own?.status, own?.request.body]).toEqual(["/v2/visitor/accounts/acme/profiles/main", 202, null]);
  });

  it("POST /admin/reset empties it", async () => {
    await fetch(`${server.url}/event?svc_account=acme&svc_profile=main`);
    expect(await countRequests(hub)).toBeGreaterThan(0);
    expect((await hub.admin.POST("/admin/reset", { body: {} })).response.status).toBe(200);
    expect(await countRequests(hub)).toBe(0);
  });
});

describe("issue 43: the journal is bounded by bytes, on a real server", () => {
  it("keeps the newest requests whose headers and bodies fit in SVC_REQUEST_JOURNAL_BYTES", async () => {
    const small = await start({ SVC_STORE: "memory", SVC_TIMING: "instant", SVC_REQUEST_JOURNAL_BYTES: "40000" });
    const smallHub = createSvcHubClient({ baseUrl: small.url, adminToken });
    const filler = "x".repeat(6000);
    for (let n = 1; n <= 10; n += 1)
      await postEvent(small.url, { svc_account: "acme", svc_profile: "main", svc_event: "view", n: String(n), filler });
    const { data } = await smallHub.admin.GET("/admin/requests", { params: { query: {} } });
    expect(Number(data?.maxBytes)).toBe(40000);
    expect(Number(data?.bytes)).toBeLessThanOrEqual(40000);
    const kept = Number(data?.kept);
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(10);
    // The newest are kept: the last one sent is there, the first is gone.
    expect(await countRequests(smallHub, { body: { path: "$.n", equals: "10" } })).toBe(1);
    expect(await countRequests(smallHub, { body: { path: "$.n", equals: "1" } })).toBe(0);
  });
});
