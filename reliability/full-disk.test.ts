/**
 * DEC-GEN-07, DEC-COL-08: a full disk answers 503 with Retry-After and loses nothing once space returns, on
 * a real server process. The disk is filled honestly without mounting anything: the server opens its store
 * with `SVC_TEST_MAX_PAGE_COUNT` (a test-only hook: SQLite's `PRAGMA max_page_count` on the server's own
 * connection), so a write that needs a page past the cap fails with SQLITE_FULL exactly as on a full disk.
 * Before that start, the test puts a "ballast" table into the database file from its own connection, and
 * sets the cap a few pages above the file's size; to give the space back it deletes the ballast (as an
 * operator deletes files), which frees pages the server then reuses, without a restart.
 * Loopback only, bounded in requests and time.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createClient } from "@libsql/client";
import { databaseUrlForDataDir } from "../adapters/store-libsql/libsql.stores.ts";
import { type SpawnedServer, spawnServer } from "../tools/spawn-server.ts";
import { writeLoadTestConfig } from "./support.ts";

const root = resolve(import.meta.dir, "..");
const adminToken = "full-disk-test-admin-token";
const slackPages = 96; // about 384 KiB of room above the file's size at the start
const ballastPages = 1_000;
const clients = 8;
const maxStreamMs = 15_000;
const maxRequests = 20_000;

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function prepare(): { dataDir: string; configPath: string } {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-full-disk-"));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const configPath = writeLoadTestConfig(dataDir);
  return { dataDir, configPath };
}

async function start(dataDir: string, configPath: string, env: Record<string, string> = {}): Promise<SpawnedServer> {
  const server = await spawnServer({ root, dataDir, adminToken, env: { SVC_CONFIG: configPath, ...env } });
  cleanups.push(() => server.stop());
  return server;
}

async function admin<T>(url: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

async function storedTraceIds(url: string, eventName: string): Promise<Set<string>> {
  const found = new Set<string>();
  let afterSeq = 0;
  for (;;) {
    const page = await admin<{ events: Array<{ traceId: string }>; nextAfterSeq: number | null }>(
      url,
      "GET",
      `/admin/events?event=${eventName}&limit=1000&afterSeq=${afterSeq}`,
    );
    for (const event of page.events) found.add(event.traceId);
    if (page.nextAfterSeq === null) return found;
    afterSeq = page.nextAfterSeq;
  }
}

async function login(url: string): Promise<{ cookie: string; utk: string }> {
  const answer = await fetch(`${url}/v1/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username: "demo@example.com", password: "demo-password-1" }).toString(),
  });
  expect(answer.status).toBe(200);
  const utk = ((await answer.json()) as { utk: string }).utk;
  const cookie = /JSESSIONID=([^;]*)/.exec(answer.headers.get("set-cookie") ?? "")?.[1];
  expect(cookie).toBeTruthy();
  return { cookie: `JSESSIONID=${cookie}`, utk };
}

const postEvent = (url: string, eventName: string, traceId: string) =>
  fetch(`${url}/event`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ svc_account: "acme", svc_event: eventName, svc_trace_id: traceId, filler: "x".repeat(200) }),
  });

const dataLayerUrl = (url: string, session: { utk: string }, name: string) =>
  `${url}/v1/dle/accounts/acme/profiles/main/datalayers/${name}?utk=${encodeURIComponent(session.utk)}`;

const uploadDataLayer = (url: string, session: { cookie: string; utk: string }, name: string, size: number) =>
  fetch(dataLayerUrl(url, session, name), {
    method: "POST",
    headers: { "content-type": "application/json", cookie: session.cookie },
    body: JSON.stringify({ name, blob: "d".repeat(size) }),
  });

/** The test's own connection to the server's database file (WAL: it shares the file with the server). */
function openFile(dataDir: string) {
  return createClient({ url: databaseUrlForDataDir(dataDir), timeout: 5_000 });
}

describe("a full disk (DEC-GEN-07, DEC-COL-08)", () => {
  it(
    "answers 503 with Retry-After while full, never 500 or an unstored 200, and loses nothing once space returns",
    async () => {
      const { dataDir, configPath } = prepare();
      // First start: migrations and tenants. Then the ballast, and the file's size in pages.
      await (await start(dataDir, configPath)).stop();
      const file = openFile(dataDir);
      cleanups.push(() => file.close());
      await file.execute("PRAGMA busy_timeout=5000");
      await file.execute("CREATE TABLE test_ballast (b BLOB)");
      await file.execute({
        sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) INSERT INTO test_ballast SELECT randomblob(3900) FROM n",
        args: [ballastPages],
      });
      await file.execute("PRAGMA wal_checkpoint(TRUNCATE)");
      const pageCount = Number((await file.execute("PRAGMA page_count")).rows[0]?.[0]);
      expect(pageCount).toBeGreaterThan(ballastPages);

      const server = await start(dataDir, configPath, { SVC_TEST_MAX_PAGE_COUNT: String(pageCount + slackPages) });
      const session = await login(server.url);

      // Stream events and data layer uploads until both were refused for lack of space.
      const ackedEvents: string[] = [];
      const ackedLayers: string[] = [];
      const refused = { event: 0, dataLayer: 0 };
      const unexpected: string[] = [];
      let sent = 0;
      const deadline = Date.now() + maxStreamMs;
      const full = () => refused.event >= 50 && refused.dataLayer >= 10;
      await Promise.all(
        Array.from({ length: clients }, async (_, clientId) => {
          for (let n = 0; !full() && sent < maxRequests && Date.now() < deadline; n += 1) {
            sent += 1;
            if (n % 4 === 3) {
              const name = `dl_${clientId}_${n}`;
              const response = await uploadDataLayer(server.url, session, name, 20_000);
              if (response.status === 201) ackedLayers.push(name);
              else if (response.status === 503 && response.headers.get("retry-after")) refused.dataLayer += 1;
              else unexpected.push(`data layer ${response.status} ${await response.text()}`);
              await response.body?.cancel();
            } else {
              const traceId = `full-${clientId}-${n}`;
              const response = await postEvent(server.url, "full_disk", traceId);
              if (response.status === 200) ackedEvents.push(traceId);
              else if (
                response.status === 503 &&
                response.headers.get("retry-after") &&
                response.headers.get("x-error") === "Storage unavailable"
              )
                refused.event += 1;
              else unexpected.push(`event ${response.status} ${response.headers.get("x-error")}`);
              await response.body?.cancel();
            }
          }
        }),
      );
      expect(unexpected.slice(0, 10)).toEqual([]);
      expect(refused.event).toBeGreaterThanOrEqual(50);
      expect(refused.dataLayer).toBeGreaterThanOrEqual(10);
      expect(ackedEvents.length).toBeGreaterThan(0);
      expect(ackedLayers.length).toBeGreaterThan(0);
      expect(server.output()).not.toContain('"unexpected error"');

      // Give the space back: the ballast goes, its pages are free for the server's writes.
      await file.execute("DELETE FROM test_ballast");
      await file.execute("PRAGMA wal_checkpoint(PASSIVE)");

      // The service works again, without a restart.
      const after = Date.now() + 10_000;
      let eventStatus = 0;
      for (let n = 0; eventStatus !== 200 && Date.now() < after; n += 1) {
        const response = await postEvent(server.url, "full_disk", `after-${n}`);
        eventStatus = response.status;
        if (eventStatus === 200) ackedEvents.push(`after-${n}`);
        else await Bun.sleep(100);
      }
      expect(eventStatus).toBe(200);
      const upload = await uploadDataLayer(server.url, session, "dl_after", 20_000);
      expect(upload.status).toBe(201);
      ackedLayers.push("dl_after");

      // Every acknowledged write is there.
      const stored = await storedTraceIds(server.url, "full_disk");
      expect(ackedEvents.filter((traceId) => !stored.has(traceId))).toEqual([]);
      const one = await admin<{ events: Array<{ traceId: string }> }>(
        server.url,
        "GET",
        `/admin/events?account=acme&traceId=${ackedEvents[0]}`,
      );
      expect(one.events.map((event) => event.traceId)).toEqual([ackedEvents[0] as string]);
      // Every acknowledged data layer change is published (the publisher carries on after the full disk).
      await admin(server.url, "POST", "/admin/clock/advance", { by: "10s" });
      await admin(server.url, "POST", "/admin/wait");
      const statuses = await Promise.all(
        ackedLayers.map(async (name) => {
          const response = await fetch(dataLayerUrl(server.url, session, name), {
            headers: { cookie: session.cookie },
          });
          return `${name} ${response.status} ${response.status === 200 ? ((await response.json()) as { status: string }).status : await response.text()}`;
        }),
      );
      expect(statuses.filter((line) => !line.endsWith(" 200 completed"))).toEqual([]);
      console.log(
        `full disk: ${sent} requests, ${ackedEvents.length} events and ${ackedLayers.length} data layers acknowledged, ${refused.event} events and ${refused.dataLayer} uploads refused with 503`,
      );
    },
    { timeout: 60_000 },
  );
});
