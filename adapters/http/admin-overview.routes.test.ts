/**
 * The console's overview of a profile (issue 32) in-process: the admin API's lists of data layers, revisions,
 * file imports and privacy transactions, and a revision's bundle, on the demo tenants (memory store).
 */

import { afterEach, describe, expect, it } from "bun:test";
import { inProcessBase } from "../../harness/target.ts";
import { openDemoService } from "../server/demo-service.ts";
import type { Service } from "../server/service.ts";

const adminToken = "test-admin-token";
const admin = { authorization: `Bearer ${adminToken}` };
const profilePath = "/admin/accounts/acme/profiles/main";
const lists = ["/datalayers", "/revisions", "/files", "/privacy/transactions"] as const;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function open() {
  const service: Service = await openDemoService({ timing: "instant", adminToken });
  cleanups.push(() => service.close());
  const call = (path: string, init: RequestInit = {}) =>
    service.app.handle(new Request(`${inProcessBase}${path}`, init));
  return {
    service,
    call,
    async get<T = Record<string, unknown>>(path: string): Promise<T> {
      const answer = await call(path, { headers: admin });
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toStartWith("application/json");
      return (await answer.json()) as T;
    },
    async wait() {
      expect((await call("/admin/wait", { method: "POST", headers: admin })).status).toBe(200);
    },
  };
}

interface ListedLayer {
  dlId: string;
  exists: boolean;
  newest: Record<string, unknown>;
  served: { seq: number; bytes: number; preview: string; truncated: boolean; publishedAt: string } | null;
  servedUrl: string | null;
  servedJsonUrl: string | null;
}

describe("GET /admin/accounts/:account/profiles/:profile/datalayers (issue 32)", () => {
  it("lists every data layer with a change by dl_id: its newest change, what is served and where", async () => {
    const { service, call, get, wait } = await open();
    const key = (dlId: string) => ({ account: "acme", profile: "main", dlId });
    const body = '{"name":"<b>Ann</b> \\"q\\"","n":1}';
    expect((await service.deps.dataLayers.upload(key("prod_b"), body)).ok).toBe(true);
    expect((await service.deps.dataLayers.upload(key("prod_a"), '{"gone":true}')).ok).toBe(true);
    await wait();
    expect((await service.deps.dataLayers.remove(key("prod_a"))).ok).toBe(true);

    const { dataLayers } = await get<{ dataLayers: ListedLayer[] }>(`${profilePath}/datalayers`);
    expect(dataLayers.map((layer) => [layer.dlId, layer.exists, layer.newest.kind, layer.newest.state])).toEqual([
      ["prod_a", false, "delete", "pending"],
      ["prod_b", true, "upload", "completed"],
    ]);
    const [deleting, served] = dataLayers as [ListedLayer, ListedLayer];
    // Still served until the delete completes.
    expect(deleting.served?.preview).toBe('{"gone":true}');
    expect(served.served).toMatchObject({ seq: 1, bytes: body.length, preview: body, truncated: false });
    expect(served.newest).toMatchObject({ seq: 1, attempts: 0, nextTryAt: null, nextTryAtMs: null });
    expect(new Date(served.newest.acceptedAt as string).getTime()).toBe(served.newest.acceptedAtMs as number);
    expect(served.servedUrl).toBe("/dle/acme/main/prod_b.js");
    expect(served.servedJsonUrl).toBe("/dle/acme/main/prod_b.json");
    expect(await (await call(served.servedJsonUrl ?? "")).text()).toBe(body);
    expect((await call(served.servedUrl ?? "")).status).toBe(200);

    await wait();
    const after = await get<{ dataLayers: ListedLayer[] }>(`${profilePath}/datalayers`);
    expect(after.dataLayers[0]).toMatchObject({
      dlId: "prod_a",
      exists: false,
      served: null,
      servedUrl: null,
      servedJsonUrl: null,
    });
    expect(after.dataLayers[0]?.newest.state).toBe("completed");
  });

  it("previews a served body by its first 16 KiB of text and gives its whole size", async () => {
    const { service, get, wait } = await open();
    const body = `{"text":"${"é".repeat(20_000)}"}`;
    expect((await service.deps.dataLayers.upload({ account: "acme", profile: "main", dlId: "big" }, body)).ok).toBe(
      true,
    );
    await wait();
    const { dataLayers } = await get<{ dataLayers: ListedLayer[] }>(`${profilePath}/datalayers`);
    const served = dataLayers[0]?.served;
    expect(served?.bytes).toBe(new TextEncoder().encode(body).byteLength);
    expect(served?.truncated).toBe(true);
    // '{"text":"' is 9 bytes, then é (2 bytes) as many as fit in 16384.
    expect(served?.preview).toBe(`{"text":"${"é".repeat((16_384 - 9 - 1) / 2)}`);
  });
});

describe("GET /admin/accounts/:account/profiles/:profile/revisions and a revision's bundle (issue 32)", () => {
  it("lists the revisions newest first with the revisions API's details, their files and where their bundle is", async () => {
    const { service, call, get } = await open();
    // The POST of the same path publishes (admin-revisions.routes.ts): both methods are served.
    const form = new FormData();
    form.set("name", "Console release");
    form.set("created_by", "demo@example.com");
    form.set("targets", "qa");
    form.set("utag.js", new File(["/* loader */"], "utag.js"));
    form.set("utag.1.js", new File(["/* tag 1 */"], "utag.1.js"));
    await service.deps.clock.advance(120_000);
    const published = await call(`${profilePath}/revisions`, { method: "POST", headers: admin, body: form });
    expect(published.status).toBe(201);
    const { revision_id: newestId } = (await published.json()) as { revision_id: string };

    const { revisions } = await get<{ revisions: Array<Record<string, unknown>> }>(`${profilePath}/revisions`);
    expect(revisions).toHaveLength(2);
    const [newest, demo] = revisions as [Record<string, unknown>, Record<string, unknown>];
    const details = await service.deps.revisions.details("acme", "main", newestId);
    expect(details.ok).toBe(true);
    expect(newest).toEqual({
      revisionId: newestId,
      ...(details.ok ? details.value : {}),
      createdAt: expect.any(String),
      createdAtMs: expect.any(Number),
      files: ["utag.js", "utag.1.js", "manifest.json"],
      downloadUrl: `${profilePath}/revisions/${newestId}/bundle`,
    });
    expect(demo.name).toBe("Demo release");
    expect(demo.revisionId).toBe(demo.revision_id);
    expect(String(demo.revisionId) < newestId).toBe(true);

    const bundle = await call(newest.downloadUrl as string, { headers: admin });
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toBe("application/zip");
    expect(bundle.headers.get("content-disposition")).toBe(`attachment; filename="acme_main_${newestId}.zip"`);
    const stored = await service.stores.revisions.readBundle("acme", "main", newestId);
    expect(stored).not.toBeNull();
    expect(Array.from(new Uint8Array(await bundle.arrayBuffer()))).toEqual(Array.from(stored ?? []));

    const limited = await get<{ revisions: Array<Record<string, unknown>> }>(`${profilePath}/revisions?limit=1`);
    expect(limited.revisions.map((revision) => revision.revisionId)).toEqual([newestId]);
  });

  it("the bundle of an unknown or malformed revision id is 404 1260", async () => {
    const { call } = await open();
    for (const id of ["209901010000", "nope"]) {
      const answer = await call(`${profilePath}/revisions/${id}/bundle`, { headers: admin });
      expect(answer.status).toBe(404);
      expect(await answer.json()).toEqual({ returnCode: 1260, message: "Revision details do not exist" });
    }
  });
});

describe("GET /admin/accounts/:account/profiles/:profile/files (issue 32)", () => {
  it("lists the imports newest first: the file status API v2 record, its state, counters and failure", async () => {
    const { service, call, get, wait } = await open();
    const upload = (name: string, csv: string) =>
      call(`${profilePath}/files/${name}`, { method: "POST", headers: admin, body: csv });
    const csv = "email,amount,purchased_at\nann@example.com,1,2024-01-31 09:30\nbob@example.com,x,2024-01-31 09:30\n";
    expect((await upload("purchases_1.csv", csv)).status).toBe(202);
    await wait();
    await service.deps.clock.advance(1_000);
    expect((await upload("purchases_2.csv", "wrong,header\n1,2\n")).status).toBe(202);
    await wait();

    const { files } = await get<{ files: Array<Record<string, unknown>> }>(`${profilePath}/files`);
    expect(files.map((file) => [file.name, (file.file as { name: string }).name])).toEqual([
      ["purchases_2.csv", "purchases_2.csv"],
      ["purchases_1.csv", "purchases_1.csv"],
    ]);
    const [failed, processed] = files as [Record<string, unknown>, Record<string, unknown>];
    // Every field of the file status API v2 (the same use case answers it), and the console's own.
    const v2 = await service.deps.fileStatus.find("acme", "main", "purchases_1.csv");
    expect(v2.ok).toBe(true);
    expect(processed).toMatchObject(v2.ok ? (v2.value as unknown as Record<string, unknown>) : {});
    expect(processed).toMatchObject({
      state: "PROCESSED",
      finished: true,
      failed: false,
      rowsRead: 2,
      counts: { skipped: 0, failed: 1, succeeded: 1 },
    });
    expect(processed.failureMessage).toEqual(expect.any(String));
    expect(failed).toMatchObject({ finished: true, failed: true, counts: null });
    expect(failed.failureMessage).toEqual(expect.any(String));
    expect(new Date(processed.createdAt as string).getTime()).toBe(processed.createdAtMs as number);

    const limited = await get<{ files: unknown[] }>(`${profilePath}/files?limit=1`);
    expect(limited.files).toHaveLength(1);
  });
});

describe("GET /admin/accounts/:account/profiles/:profile/privacy/transactions (issue 32)", () => {
  it("lists gets and deletions newest first, the pending value as stored, and what a deletion removed", async () => {
    const { service, get, wait } = await open();
    const request = {
      account: "acme",
      profile: "main",
      attributeId: "5120",
      attributeValue: "ann@example.com",
      requestedBy: "demo@example.com",
    };
    const read = await service.deps.privacy.getVisitor({ ...request, prettyName: undefined });
    expect(read.ok).toBe(false); // no such visitor: 404 with its transaction, recorded all the same
    await service.deps.clock.advance(1_000);
    const deletion = await service.deps.privacy.requestDeletion({ ...request, attributeValue: "<script>x</script>" });
    expect(deletion.ok).toBe(true);
    const transactionId = deletion.ok ? deletion.value.transactionId : "";

    const before = await get<{ transactions: Array<Record<string, unknown>> }>(`${profilePath}/privacy/transactions`);
    expect(before.transactions).toHaveLength(2);
    expect(before.transactions[0]).toEqual({
      transactionId,
      kind: "delete",
      state: "PENDING",
      attributeId: 5120,
      attributeName: "email_address",
      value: "<script>x</script>",
      valueHash: expect.any(String),
      requestedBy: "demo@example.com",
      createdAt: expect.any(String),
      createdAtMs: expect.any(Number),
      settledAt: null,
      settledAtMs: null,
      nextTryAt: expect.any(String),
      nextTryAtMs: expect.any(Number),
      attempts: 0,
      counts: null,
    });
    expect(before.transactions[1]).toMatchObject({ kind: "get", state: "SUCCESS", value: null, counts: null });

    await wait();
    const after = await get<{ transactions: Array<Record<string, unknown>> }>(`${profilePath}/privacy/transactions`);
    expect(after.transactions[0]).toMatchObject({
      transactionId,
      state: "SUCCESS",
      value: null,
      nextTryAt: null,
      counts: { visitorIds: 0, events: 0, profiles: 0, eventsRewritten: 0, profilesRewritten: 0 },
    });
    expect(after.transactions[0]?.settledAt).toEqual(expect.any(String));

    const limited = await get<{ transactions: unknown[] }>(`${profilePath}/privacy/transactions?limit=1`);
    expect(limited.transactions).toHaveLength(1);
  });
});

describe("the overview's refusals (issue 32, DEC-GEN-04, DEC-OPS-01)", () => {
  const everyPath = (profile: string) => [
    ...lists.map((list) => `${profile}${list}`),
    `${profile}/revisions/202501021953/bundle`,
  ];

  it("an unknown account is 404 1240 and an unknown profile 404 1250, on every route", async () => {
    const { call } = await open();
    for (const path of everyPath("/admin/accounts/nobody/profiles/main")) {
      const answer = await call(path, { headers: admin });
      expect([path, answer.status, await answer.json()]).toEqual([
        path,
        404,
        { returnCode: 1240, message: "Account was not found" },
      ]);
    }
    for (const path of everyPath("/admin/accounts/acme/profiles/nobody")) {
      const answer = await call(path, { headers: admin });
      expect([path, answer.status, await answer.json()]).toEqual([
        path,
        404,
        { returnCode: 1250, message: "Profile was not found" },
      ]);
    }
  });

  it("a limit that is not a whole number from 1 to 1000 is 400 1400 naming it; 1 and 1000 are taken, empty is the default", async () => {
    const { call } = await open();
    for (const list of lists) {
      for (const limit of ["0", "1001", "abc", "-1", "1.5", "1e3", "0x10"]) {
        const answer = await call(`${profilePath}${list}?limit=${limit}`, { headers: admin });
        const body = (await answer.json()) as { returnCode: number; message: string };
        expect([list, limit, answer.status, body.returnCode]).toEqual([list, limit, 400, 1400]);
        expect(body.message).toStartWith(
          "Invalid request submission. Invalid limit: must be a whole number from 1 to 1000",
        );
      }
      for (const limit of ["1", "1000", "", "%20"]) {
        const answer = await call(`${profilePath}${list}?limit=${limit}`, { headers: admin });
        expect([list, limit, answer.status]).toEqual([list, limit, 200]);
      }
      // A repeated limit counts by its first value, as the service's other queries; other parameters are left alone.
      for (const [query, status] of [
        ["limit=1&limit=abc", 200],
        ["limit=abc&limit=1", 400],
        ["_=123&limit=1", 200],
      ] as const) {
        const answer = await call(`${profilePath}${list}?${query}`, { headers: admin });
        expect([list, query, answer.status]).toEqual([list, query, status]);
      }
    }
  });

  it("without the admin token, or with another, every route is 401 1401", async () => {
    const { call } = await open();
    for (const path of everyPath(profilePath)) {
      for (const headers of [{}, { authorization: "Bearer not-the-token" }] as HeadersInit[]) {
        const answer = await call(path, { headers });
        expect([path, answer.status, await answer.json()]).toEqual([
          path,
          401,
          { returnCode: 1401, message: "Authentication Failed" },
        ]);
      }
    }
  });

  it("the OpenAPI document names every route under the admin and console tags, with its statuses", async () => {
    const { get } = await open();
    const document = await get<{
      paths: Record<string, Record<string, { tags?: string[]; responses?: Record<string, unknown> }>>;
    }>("/openapi.json");
    const base = "/admin/accounts/{account}/profiles/{profile}";
    for (const list of lists) {
      const operation = document.paths[`${base}${list}`]?.get;
      expect([list, operation?.tags]).toEqual([list, ["admin", "console"]]);
      expect(Object.keys(operation?.responses ?? {}).sort()).toEqual(["200", "400", "401", "404"]);
    }
    const bundle = document.paths[`${base}/revisions/{revisionId}/bundle`]?.get;
    expect(bundle?.tags).toEqual(["admin", "console"]);
    expect(Object.keys(bundle?.responses ?? {}).sort()).toEqual(["200", "401", "404"]);
    // The publication (POST) of the same path stays.
    expect(document.paths[`${base}/revisions`]?.post).toBeDefined();
  });
});
