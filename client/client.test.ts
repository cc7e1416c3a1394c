/**
 * Issue 33, part 1: the typed client (svc-hub/client) against a real server, one API after another, with the
 * session (cookie + utk), bearer and admin flows handled by the client.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type SpawnedServer, spawnServer } from "../tools/spawn-server.ts";
import { createSvcHubClient, type SvcHubClient, SvcHubClientError } from "./index.ts";

const root = resolve(import.meta.dir, "..");
const adminToken = "client-test-admin-token-0123456789abcdef";
const acmeMain = { account: "acme", profile: "main" };
const demoUser = "demo@example.com";
let dataDir = "";
let server: SpawnedServer;
let hub: SvcHubClient;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "svc-hub-client-"));
  server = await spawnServer({ root, dataDir, adminToken, env: { SVC_LOG_LEVEL: "warn" } });
  hub = createSvcHubClient({ baseUrl: server.url, adminToken });
});

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const unique = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

describe("the typed client: the v1 session flow", () => {
  it("logs in with form fields, then sends the JSESSIONID cookie and utk with every v1 call; logout ends it", async () => {
    const session = await hub.login(demoUser, "demo-password-1");
    expect(session.utk).not.toBe("");
    expect(session.sessionId).not.toBe("");
    const listed = await session.api.GET("/v1/dle/accounts/{account}/profiles/{profile}/datalayers", {
      params: { path: acmeMain },
    });
    expect(listed.response.status).toBe(200);
    await session.logout();
    const after = await session.api.GET("/v1/dle/accounts/{account}/profiles/{profile}/datalayers", {
      params: { path: acmeMain },
    });
    expect(after.response.status).toBe(401);
    expect(after.error).toMatchObject({ returnCode: 1401 });
  });

  it("a wrong password is a SvcHubClientError carrying the status and the 1401 body", async () => {
    const refused = await hub.login(demoUser, "not-the-password").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SvcHubClientError);
    expect(refused).toMatchObject({ status: 401, body: { returnCode: 1401 } });
  });

  it("hosted data layer v1: upload a data layer, read its status and find it listed", async () => {
    const session = await hub.login(demoUser, "demo-password-1");
    const dlId = unique("dl");
    const path = { ...acmeMain, dl_id: dlId };
    const uploaded = await session.api.POST("/v1/dle/accounts/{account}/profiles/{profile}/datalayers/{dl_id}", {
      params: { path },
      body: { page: { name: "home" } },
    });
    expect(uploaded.response.status).toBe(201);
    await hub.admin.POST("/admin/wait", { body: {} });
    const status = await session.api.GET("/v1/dle/accounts/{account}/profiles/{profile}/datalayers/{dl_id}", {
      params: { path },
    });
    expect(status.data?.status).toBe("completed");
    const listed = await session.api.GET("/v1/dle/accounts/{account}/profiles/{profile}/datalayers", {
      params: { path: acmeMain },
    });
    expect(JSON.stringify(listed.data)).toContain(dlId);
  });

  it("revisions v1: the published revision is listed, its details read and a target's bundle downloaded", async () => {
    const session = await hub.login(demoUser, "demo-password-1");
    const listed = await session.api.GET("/v1/accounts/{account}/{profile}/revisions", { params: { path: acmeMain } });
    expect(listed.response.status).toBe(200);
    const revisionId = listed.data?.[0] ?? "";
    expect(revisionId).not.toBe("");
    const details = await session.api.GET("/v1/accounts/{account}/{profile}/revisions/{revisionId}/details", {
      params: { path: { ...acmeMain, revisionId } },
    });
    expect(details.response.status).toBe(200);
    expect(JSON.stringify(details.data)).toContain("utag.js");
    const bundle = await session.api.GET("/v1/accounts/{account}/{profile}/revisions/{revisionId}/{target}", {
      params: { path: { ...acmeMain, revisionId, target: "prod" } },
      parseAs: "arrayBuffer",
    });
    expect(bundle.response.status).toBe(200);
    // A zip archive starts with "PK".
    expect(new Uint8Array(bundle.data as ArrayBuffer).subarray(0, 2)).toEqual(new Uint8Array([0x50, 0x4b]));
  });
});

describe("the typed client: files v1 and v2 after an admin upload", () => {
  it("an uploaded file's status is read through the v1 session and the v2 bearer token", async () => {
    const fileName = `purchases_${unique("c")}.csv`;
    const uploaded = await hub.admin.POST("/admin/accounts/{account}/profiles/{profile}/files/{fileName}", {
      params: { path: { ...acmeMain, fileName } },
      body: "email,amount,purchased_at\nann@example.com,12,2024-01-02 10:00\n",
      headers: { "Content-Type": "text/csv" },
      bodySerializer: (body) => body,
    });
    expect(uploaded.response.status).toBe(202);
    await hub.admin.POST("/admin/wait", { body: {} });

    const session = await hub.login(demoUser, "demo-password-1");
    const v1 = await session.api.GET("/v1/omnichannel/accounts/{account}/profiles/{profile}/files/{fileName}", {
      params: { path: { ...acmeMain, fileName } },
    });
    expect(v1.response.status).toBe(200);
    expect(JSON.stringify(v1.data)).toContain(fileName);

    const bearer = await hub.authorize(demoUser, "demo-key-0001-acme");
    const v2 = await bearer.api.GET("/v2/omnichannel/accounts/{account}/profiles/{profile}/files/{fileName}", {
      params: { path: { ...acmeMain, fileName } },
    });
    expect(v2.response.status).toBe(200);
    expect(JSON.stringify(v2.data)).toContain(fileName);
    const minute = (ms: number) => `${new Date(ms).toISOString().slice(0, 16)}Z`;
    const window = {
      filePrefix: "purchases",
      startDate: minute(Date.now() - 120_000),
      endDate: minute(Date.now() + 120_000),
    };
    const count = await bearer.api.GET("/v2/omnichannel/accounts/{account}/profiles/{profile}/files/count", {
      params: { path: acmeMain, query: window },
    });
    expect(count.error).toBeUndefined();
    expect(JSON.stringify(count.data)).toMatch(/[1-9]/);
  });
});

describe("the typed client: collection, visitors, privacy v2 and moments", () => {
  it("/event by GET and POST is recorded, the visitor record is read, deleted and its transaction followed", async () => {
    const email = `${unique("ann")}@example.com`;
    const gif = await hub.api.GET("/event", {
      params: { query: { svc_account: "acme", svc_profile: "main", svc_event: "view", email_address: email } as never },
      parseAs: "arrayBuffer",
    });
    expect(gif.response.status).toBe(200);
    const posted = await hub.api.POST("/event", {
      body: { svc_account: "acme", svc_profile: "main", svc_event: "purchase", email_address: email },
      parseAs: "text",
    });
    expect(posted.response.status).toBe(200);
    await hub.admin.POST("/admin/wait", { body: {} });

    const events = await hub.admin.GET("/admin/events", { params: { query: { account: "acme", event: "purchase" } } });
    expect(events.response.status).toBe(200);
    expect(JSON.stringify(events.data)).toContain(email);

    const moments = await hub.api.GET("/personalization/accounts/{account}/profiles/{profile}/engines/{engine}", {
      params: { path: { ...acmeMain, engine: "demo-engine" }, query: { attributeId: "5120", attributeValue: email } },
      headers: { Referer: "http://localhost/" },
    });
    expect(moments.response.status).toBe(200);
    expect(JSON.stringify(moments.data)).toContain("Purchasers");

    const bearer = await hub.authorize(demoUser, "demo-key-0001-acme");
    const record = await bearer.api.GET("/v2/visitor/accounts/{account}/profiles/{profile}", {
      params: { path: acmeMain, query: { attributeId: "5120", attributeValue: email } },
    });
    expect(record.response.status).toBe(200);
    const ids = await bearer.api.GET("/v2/visitor/accounts/{account}/profiles/{profile}/ids", {
      params: { path: acmeMain },
    });
    expect(Object.keys(ids.data ?? {})).toContain("5120");
    const deletion = await bearer.api.DELETE("/v2/visitor/accounts/{account}/profiles/{profile}", {
      params: { path: acmeMain },
      body: { attributeId: "5120", attributeValue: email },
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(deletion.response.status).toBe(202);
    const transactionId = (deletion.data as { transactionId: string }).transactionId;
    const transaction = await bearer.api.GET(
      "/v2/visitor/accounts/{account}/profiles/{profile}/transactions/{transactionId}",
      { params: { path: { ...acmeMain, transactionId } } },
    );
    expect(transaction.response.status).toBe(200);
  });
});

describe("the typed client: the admin API with the admin token", () => {
  it("reads and moves the virtual clock, waits, lists events and resets", async () => {
    const clock = await hub.admin.GET("/admin/clock");
    expect(clock.response.status).toBe(200);
    const moved = await hub.admin.PUT("/admin/clock", { body: { now: "2030-01-01T00:00:00Z" } });
    expect(moved.data?.now).toStartWith("2030-01-01T00:00:00");
    const waited = await hub.admin.POST("/admin/wait", { body: { timeoutMs: 5000 } });
    expect(waited.data?.complete).toBe(true);
    const events = await hub.admin.GET("/admin/events", { params: { query: { limit: "1" } } });
    expect(events.response.status).toBe(200);
    const reset = await hub.admin.POST("/admin/reset", { body: {} });
    expect(reset.response.status).toBe(200);
    const after = await hub.admin.GET("/admin/clock");
    expect(after.data?.now).not.toStartWith("2030-01-01");
  });

  it("without an admin token, an admin call fails before it is sent", async () => {
    const anonymous = createSvcHubClient({ baseUrl: server.url });
    expect(anonymous.admin.GET("/admin/clock")).rejects.toThrow("adminToken");
  });
});
