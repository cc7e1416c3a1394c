/**
 * The file routes in-process (FIL-*, DEC-FIL-*, DEC-OPS-04): what the conformance scenarios do not reach
 * over HTTP alone. The scenarios themselves also run in-process
 * (`bun harness/cli.ts --in-process conformance/implementations/svc-hub/in-process.ts`).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import {
  type InProcessService,
  openInProcessTarget,
} from "../../conformance/implementations/svc-hub/in-process-target.ts";
import { inProcessBase } from "../../harness/target.ts";
import { loadConfigFile } from "../config/config.loader.ts";
import { demoConfigPath } from "../config/demo-config.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import { openService } from "../server/service.ts";

let opened: InProcessService;
let token: string;

beforeAll(async () => {
  opened = await openInProcessTarget();
  const answer = await handle("/v2/auth", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username: "demo@example.com", key: "demo-key-0001-acme" }),
  });
  token = ((await answer.json()) as { token: string }).token;
});
afterAll(() => opened.close());

function handle(path: string, init?: RequestInit): Promise<Response> {
  return opened.service.app.handle(new Request(`${inProcessBase}${path}`, init));
}

function v2(path: string): Promise<Response> {
  return handle(`/v2/omnichannel/accounts/acme/profiles/main/files${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
}

function upload(name: string, body: BodyInit): Promise<Response> {
  return handle(`/admin/accounts/acme/profiles/main/files/${name}`, {
    method: "POST",
    headers: { authorization: `Bearer ${opened.service.deps.adminToken}` },
    body,
  });
}

async function drain(): Promise<void> {
  expect(
    (
      await handle("/admin/wait", {
        method: "POST",
        headers: { authorization: `Bearer ${opened.service.deps.adminToken}` },
      })
    ).status,
  ).toBe(200);
}

describe("file routes", () => {
  it("an upload arriving as a stream of chunks is stored whole, and its record is read back after the import", async () => {
    const parts = [
      "email,amount,purchased_at\n",
      "ann@example.com,1",
      "2.5,2024-01-31 09:30\n",
      "bob@example.com,3,2024-01-31 09:31\n",
    ];
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
        controller.close();
      },
    });
    expect((await upload("purchases_stream-1.csv", stream)).status).toBe(202);
    await drain();
    const record = (await (await v2("/purchases_stream-1.csv")).json()) as {
      file: { size: number; line_count: number };
      status: Array<Record<string, unknown>>;
    };
    expect(record.file).toMatchObject({ size: parts.join("").length, line_count: 3 });
    expect(record.status.at(-1)).toMatchObject({ state: "PROCESSED", lines_successfully_processed: 2 });
  });

  it("a query parameter given twice keeps its first value; an unencoded + in an offset arrives as a space and still reads as +", async () => {
    expect((await upload("purchases_query-1.csv", "email\n")).status).toBe(202);
    const count = async (query: string) => ((await (await v2(`/count?${query}`)).json()) as { count: number }).count;
    expect(
      await count("filePrefix=purchases&filePrefix=other&startDate=2000-01-01T00:00Z&endDate=2100-01-01T00:00Z"),
    ).toBeGreaterThan(0);
    expect(
      await count("filePrefix=other&filePrefix=purchases&startDate=2000-01-01T00:00Z&endDate=2100-01-01T00:00Z"),
    ).toBe(0);
    expect(
      await count("filePrefix=purchases&startDate=2000-01-01T00:00+0100&endDate=2100-01-01T00:00+01:00"),
    ).toBeGreaterThan(0);
  });

  it('[DEC-FIL-06, FIL-03, FIL-05] a file of an unknown prefix holding "_" is counted and found by its whole prefix', async () => {
    expect((await upload("web_orders_2024-03-01.csv", "email\nann@example.com\n")).status).toBe(202);
    await drain();
    const record = (await (await v2("/web_orders_2024-03-01.csv")).json()) as {
      status: Array<Record<string, unknown>>;
    };
    expect(record.status.at(-1)).toMatchObject({ last_failure: expect.stringContaining("Unknown file prefix") });
    const range = "startDate=2000-01-01T00:00Z&endDate=2100-01-01T00:00Z";
    const count = async (prefix: string) =>
      ((await (await v2(`/count?filePrefix=${prefix}&${range}`)).json()) as { count: number }).count;
    expect(await count("web_orders")).toBe(1);
    expect(await count("web_order")).toBe(0);
    const found = (await (await v2(`/search?filePrefix=web_orders&${range}`)).json()) as Array<{
      file: { name: string };
    }>;
    expect(found.map((each) => each.file.name)).toEqual(["web_orders_2024-03-01.csv"]);
  });

  it("[DEC-FIL-06] a profile without file definitions counts 0 and finds none, even for a file received for it; its status is still read by name", async () => {
    const dev = (path: string) =>
      handle(`/v2/omnichannel/accounts/acme/profiles/dev/files${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
    const answer = await handle("/admin/accounts/acme/profiles/dev/files/purchases_dev-1.csv", {
      method: "POST",
      headers: { authorization: `Bearer ${opened.service.deps.adminToken}` },
      body: "email\nann@example.com\n",
    });
    expect(answer.status).toBe(202);
    await drain();
    const range = "startDate=2000-01-01T00:00Z&endDate=2100-01-01T00:00Z";
    expect(await (await dev(`/count?filePrefix=purchases&${range}`)).json()).toEqual({ count: 0 });
    expect(await (await dev(`/search?filePrefix=purchases&${range}`)).json()).toEqual([]);
    const record = (await (await dev("/purchases_dev-1.csv")).json()) as { status: Array<Record<string, unknown>> };
    expect(record.status.at(-1)).toMatchObject({ last_failure: expect.stringContaining("Unknown file prefix") });
  });

  it("the OpenAPI document lists the v1, v2 and admin file routes", async () => {
    const document = (await (
      await handle("/openapi.json", { headers: { authorization: `Bearer ${opened.service.deps.adminToken}` } })
    ).json()) as { paths: Record<string, unknown> };
    const paths = Object.keys(document.paths);
    for (const version of ["v1", "v2"]) {
      for (const operation of ["count", "search", "{fileName}"])
        expect(paths).toContain(`/${version}/omnichannel/accounts/{account}/profiles/{profile}/files/${operation}`);
    }
    expect(paths).toContain("/admin/accounts/{account}/profiles/{profile}/files/{fileName}");
  });

  it("[DEC-OPS-04, DEC-FIL-02] a compressed upload (Content-Encoding gzip, or any coding but identity) is 400 1400 naming Content-Encoding, and nothing is stored", async () => {
    const csv = "email,amount,purchased_at\nann@example.com,1,2024-01-31 09:30\n";
    for (const [coding, name] of [
      ["gzip", "purchases_gzip-1.csv"],
      ["br", "purchases_br-1.csv"],
      ["gzip, identity", "purchases_gzip-2.csv"],
    ] as const) {
      const answer = await handle(`/admin/accounts/acme/profiles/main/files/${name}`, {
        method: "POST",
        headers: { authorization: `Bearer ${opened.service.deps.adminToken}`, "content-encoding": coding },
        body: coding.startsWith("gzip") ? Bun.gzipSync(new TextEncoder().encode(csv)) : csv,
      });
      expect(answer.status).toBe(400);
      expect(await answer.json()).toEqual({
        returnCode: 1400,
        message:
          "Invalid request submission. Invalid Content-Encoding: only identity is accepted, send the CSV uncompressed.",
      });
      expect((await v2(`/${name}`)).status).toBe(404);
    }
  });

  it("[DEC-OPS-04] an upload with Content-Encoding identity is the CSV as sent", async () => {
    const answer = await handle("/admin/accounts/acme/profiles/main/files/purchases_identity-1.csv", {
      method: "POST",
      headers: { authorization: `Bearer ${opened.service.deps.adminToken}`, "content-encoding": "Identity" },
      body: "email\n",
    });
    expect(answer.status).toBe(202);
  });

  it("the admin upload needs the admin token", async () => {
    const answer = await handle("/admin/accounts/acme/profiles/main/files/purchases_noauth-1.csv", {
      method: "POST",
      body: "email\n",
    });
    expect(answer.status).toBe(401);
    expect(await answer.json()).toEqual({ returnCode: 1401, message: "Authentication Failed" });
    expect((await v2("/purchases_noauth-1.csv")).status).toBe(404);
  });
});

describe("the admin upload's size limit (DEC-OPS-04, limits.maxUploadBytes)", () => {
  it("a declared length over the limit is 400 1400 naming the body, nothing stored; a body sent without one is cut at the limit and recorded as a failed download", async () => {
    const demo = await loadConfigFile(demoConfigPath);
    if (!demo.ok) throw new Error(demo.error.format());
    const opened = await openService({
      store: { kind: "memory" },
      config: { ...demo.value, limits: { ...demo.value.limits, maxUploadBytes: 100 } },
      logger: createMemoryLogger(),
      env: {},
      adminToken: "upload-limit-admin-token",
    });
    if (!opened.ok) throw new Error(opened.error.format());
    const service = opened.value;
    try {
      const admin = { authorization: "Bearer upload-limit-admin-token" };
      const call = (path: string, init?: RequestInit) =>
        service.app.handle(new Request(`${inProcessBase}${path}`, init));
      const csv = `email,amount,purchased_at\n${"ann@example.com,1,2024-01-31 09:30\n".repeat(4)}`;
      expect(csv.length).toBeGreaterThan(100);

      const declared = await call("/admin/accounts/acme/profiles/main/files/purchases_big-1.csv", {
        method: "POST",
        headers: { ...admin, "content-length": String(csv.length) },
        body: csv,
      });
      expect(declared.status).toBe(400);
      expect(await declared.json()).toEqual({
        returnCode: 1400,
        message: "Invalid request submission. Invalid body: larger than 100 bytes (limits.maxUploadBytes).",
      });
      expect(await service.stores.files.find("acme", "main", "purchases_big-1.csv")).toBeNull();

      const bytes = new TextEncoder().encode(csv);
      const streamed = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 40) controller.enqueue(bytes.slice(at, at + 40));
          controller.close();
        },
      });
      const cut = await call("/admin/accounts/acme/profiles/main/files/purchases_big-2.csv", {
        method: "POST",
        headers: admin,
        body: streamed,
      });
      expect(cut.status).toBe(202);
      const record = (await cut.json()) as { status: Array<{ state: string; last_failure?: string }> };
      expect(record.status.at(-1)).toMatchObject({
        state: "DOWNLOADING",
        last_failure: "Failed to download (FTP, SFTP, S3) file",
      });

      const within = await call("/admin/accounts/acme/profiles/main/files/purchases_small-1.csv", {
        method: "POST",
        headers: admin,
        body: "email,amount,purchased_at\n",
      });
      expect(within.status).toBe(202);
    } finally {
      await service.close();
    }
  });
});
