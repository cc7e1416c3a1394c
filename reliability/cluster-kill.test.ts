/**
 * Several nodes on one PostgreSQL database (docs/several-nodes.md): one of three nodes is killed with SIGKILL
 * while clients collect events, upload data layers and request visitor deletions on all three. The node killed
 * is the one holding the profiles lease, so the survivors must take the folding of profiles and the deletions
 * over. Afterwards every event answered 200 is stored, every upload answered 201 and every deletion answered
 * 202 finishes on the survivors, no event is counted twice in a profile, and the killed node starts again into
 * the cluster. Loopback only, bounded in requests and time.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import postgres from "postgres";
import { demoConfigPath } from "../adapters/config/demo-config.ts";
import { type PostgresServer, startPostgresServer } from "../tools/postgres-server.ts";
import { type SpawnedServer, spawnServer } from "../tools/spawn-server.ts";

const root = resolve(import.meta.dir, "..");
const adminToken = `cluster-kill-${crypto.randomUUID()}`;
const clientsPerNode = 3;
const killAfterAcks = 150;
const maxStreamMs = 10_000;
const visitors = Array.from({ length: 12 }, (_, index) => `cluster-kill-visitor-${index}`);
const dle = "/v1/dle/accounts/acme/profiles/main/datalayers";
const prv = "/v2/visitor/accounts/acme/profiles/main";
const formHeaders = { "content-type": "application/x-www-form-urlencoded" };

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * The demo tenants with the collection limit raised: the test is about what a kill loses, and the clients
 * send acme more than its 100 events a second (which the nodes now count together).
 */
function writeConfig(): string {
  const folder = mkdtempSync(join(tmpdir(), "svc-hub-cluster-config-"));
  cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
  const demo = JSON.parse(readFileSync(demoConfigPath, "utf8")) as { limits?: Record<string, unknown> };
  const path = join(folder, "svc.config.json");
  writeFileSync(path, JSON.stringify({ ...demo, limits: { ...demo.limits, collectEventsPerSecond: 100_000 } }));
  return path;
}

async function startNode(env: Record<string, string>): Promise<SpawnedServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-cluster-node-"));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const server = await spawnServer({ root, dataDir, adminToken, env: { ...env, SVC_TIMING: "fast" } });
  cleanups.push(() => server.stop());
  return server;
}

interface Credentials {
  readonly cookie: string;
  readonly utk: string;
  readonly bearer: string;
}

async function login(url: string): Promise<Credentials> {
  const v1 = await fetch(`${url}/v1/login`, {
    method: "POST",
    headers: formHeaders,
    body: new URLSearchParams({ username: "demo@example.com", password: "demo-password-1" }),
  });
  expect(v1.status).toBe(200);
  const utk = ((await v1.json()) as { utk: string }).utk;
  const cookie = /JSESSIONID=([^;]*)/.exec(v1.headers.get("set-cookie") ?? "")?.[1] ?? "";
  const v2 = await fetch(`${url}/v2/auth`, {
    method: "POST",
    headers: formHeaders,
    body: new URLSearchParams({ username: "demo@example.com", key: "demo-key-0001-acme" }),
  });
  expect(v2.status).toBe(200);
  return { cookie, utk, bearer: ((await v2.json()) as { token: string }).token };
}

function admin(url: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: body === undefined ? null : JSON.stringify(body),
  });
}

interface Acked {
  readonly events: Array<{ traceId: string; visitor: string }>;
  readonly uploads: string[];
  readonly deletions: string[];
}

/** The node whose process holds the profiles lease (`holder|pid@host|expiresAt`). */
async function leaseHolder(databaseUrl: string, nodes: readonly SpawnedServer[]): Promise<SpawnedServer> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => undefined });
  try {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const [row] = await sql`select value from settings where key = 'lease.profiles'`;
      const pid = Number(/\|(\d+)@/.exec(String(row?.value ?? ""))?.[1]);
      const holder = nodes.find((node) => node.pid === pid);
      if (holder) return holder;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await sql.end();
  }
  throw new Error("no node holds the profiles lease");
}

/**
 * Clients on every node collect events, upload data layers and request deletions until `killAfterAcks` writes
 * were acknowledged; then `victim` is killed while requests are on the wire, and the clients of the others
 * carry on briefly. Requests to the killed node after the kill fail and were never acknowledged.
 */
async function streamAndKill(
  nodes: readonly SpawnedServer[],
  credentials: Credentials,
  victim: SpawnedServer,
  acked: Acked,
): Promise<void> {
  let acks = 0;
  let killed: Promise<number> | null = null;
  let afterKill = 0;
  const deadline = Date.now() + maxStreamMs;
  const client = async (node: SpawnedServer, clientId: number) => {
    for (let n = 0; afterKill < 60 && Date.now() < deadline; n += 1) {
      if (killed !== null && node === victim) return;
      const id = `ck-${node.pid}-${clientId}-${n}`;
      const kind = n % 5;
      try {
        if (kind === 3) {
          const response = await fetch(`${node.url}${dle}/${id}?utk=${encodeURIComponent(credentials.utk)}`, {
            method: "POST",
            headers: { cookie: `JSESSIONID=${credentials.cookie}`, "content-type": "application/json" },
            body: JSON.stringify({ id }),
          });
          if (response.status === 201) acked.uploads.push(id);
          else expect(response.status).toBe(503);
        } else if (kind === 4) {
          const response = await fetch(`${node.url}${prv}`, {
            method: "DELETE",
            headers: { authorization: `Bearer ${credentials.bearer}`, ...formHeaders },
            body: new URLSearchParams({ attributeId: "5120", attributeValue: `${id}@example.com` }),
          });
          if (response.status === 202)
            acked.deletions.push(((await response.json()) as { transactionId: string }).transactionId);
          else expect(response.status).toBe(503);
        } else {
          const visitor = visitors[(clientId + n) % visitors.length] as string;
          const response = await fetch(
            `${node.url}/event?svc_account=acme&svc_profile=main&svc_visitor_id=${visitor}&svc_event=view&svc_trace_id=${id}`,
          );
          if (response.status === 200) acked.events.push({ traceId: id, visitor });
          else expect(response.status).toBe(503);
        }
      } catch (error) {
        if (killed === null || node !== victim) throw error;
        return;
      }
      acks += 1;
      if (killed !== null) afterKill += 1;
      if (acks >= killAfterAcks && killed === null) killed = victim.kill();
    }
  };
  await Promise.all(
    nodes.flatMap((node) => Array.from({ length: clientsPerNode }, (_, clientId) => client(node, clientId))),
  );
  expect(killed).not.toBeNull();
  expect(await (killed as unknown as Promise<number>)).not.toBe(0);
}

/** The stored events of acme/main with a trace id of this test, by trace id. */
async function storedEvents(url: string): Promise<Map<string, string>> {
  const stored = new Map<string, string>();
  let afterSeq = 0;
  for (;;) {
    const page = await admin(url, "GET", `/admin/events?account=acme&profile=main&afterSeq=${afterSeq}&limit=1000`);
    expect(page.status).toBe(200);
    const { events } = (await page.json()) as {
      events: Array<{ seq: number; traceId: string | null; visitorId: string }>;
    };
    for (const event of events) if (event.traceId?.startsWith("ck-")) stored.set(event.traceId, event.visitorId);
    if (events.length < 1000) return stored;
    afterSeq = (events.at(-1) as { seq: number }).seq;
  }
}

describe("three nodes on one PostgreSQL database, one killed under load", () => {
  let postgresServer: PostgresServer | null = null;

  it(
    "every acknowledged event, upload and deletion is kept and finishes on the survivors; the node starts again",
    async () => {
      postgresServer = await startPostgresServer();
      cleanups.push(() => postgresServer?.stop());
      const databaseUrl = await postgresServer.createDatabase("svc");
      const env = { SVC_STORE: "postgres", SVC_DATABASE_URL: databaseUrl, SVC_CONFIG: writeConfig() };
      const nodes = [await startNode(env), await startNode(env), await startNode(env)];
      const victim = await leaseHolder(databaseUrl, nodes);
      const survivor = nodes.find((node) => node !== victim) as SpawnedServer;
      const acked: Acked = { events: [], uploads: [], deletions: [] };

      await streamAndKill(nodes, await login(survivor.url), victim, acked);
      // About 130 events, 40 uploads and 40 deletions in a run here.
      expect(acked.events.length).toBeGreaterThan(50);
      expect(acked.uploads.length).toBeGreaterThan(10);
      expect(acked.deletions.length).toBeGreaterThan(10);

      // Every event answered 200 is stored, whichever node answered it.
      const stored = await storedEvents(survivor.url);
      expect(acked.events.filter((event) => !stored.has(event.traceId))).toEqual([]);

      // The survivors take the work over: the killed node's process is gone, so the lease is taken at once.
      expect((await admin(survivor.url, "POST", "/admin/clock/advance", { by: "2h" })).status).toBe(200);
      const waited = await admin(survivor.url, "POST", "/admin/wait", { timeoutMs: 30_000 });
      expect(waited.status).toBe(200);
      expect(((await waited.json()) as { complete: boolean }).complete).toBe(true);
      const credentials = await login(survivor.url);
      const unsettled: string[] = [];
      for (const id of acked.uploads) {
        const status = await fetch(`${survivor.url}${dle}/${id}?utk=${encodeURIComponent(credentials.utk)}`, {
          headers: { cookie: `JSESSIONID=${credentials.cookie}` },
        });
        const state = status.status === 200 ? ((await status.json()) as { status: string }).status : status.status;
        if (state !== "completed") unsettled.push(`upload ${id}: ${state}`);
      }
      for (const id of acked.deletions) {
        const answer = await fetch(`${survivor.url}${prv}/transactions/${id}`, {
          headers: { authorization: `Bearer ${credentials.bearer}` },
        });
        const body = answer.status === 200 ? ((await answer.json()) as Record<string, string>) : {};
        if (body[id] !== "SUCCESS") unsettled.push(`deletion ${id}: ${answer.status} ${JSON.stringify(body)}`);
      }
      expect(unsettled).toEqual([]);

      // No event counted twice (or left out): each visitor's event count is the number of its stored events,
      // those the killed node committed without answering included.
      const storedByVisitor = new Map<string, number>();
      for (const visitor of (await storedEvents(survivor.url)).values())
        storedByVisitor.set(visitor, (storedByVisitor.get(visitor) ?? 0) + 1);
      const counts: Record<string, [number, number]> = {};
      for (const [visitor, storedCount] of storedByVisitor) {
        const lookup = await fetch(
          `${survivor.url}/personalization/accounts/acme/profiles/main/engines/demo-engine/visitors/${visitor}`,
          { headers: { referer: "https://example.com/" } },
        );
        expect(lookup.status).toBe(200);
        const metrics = ((await lookup.json()) as { metrics: Record<string, number> }).metrics;
        counts[visitor] = [metrics["Lifetime event count"] ?? -1, storedCount];
      }
      for (const [visitor, [counted, storedCount]] of Object.entries(counts))
        expect({ visitor, counted }).toEqual({ visitor, counted: storedCount });

      // The killed node starts again into the cluster: it serves, and sees what the others did.
      const restarted = await startNode(env);
      expect((await fetch(`${restarted.url}/readyz`)).status).toBe(200);
      const event = await fetch(
        `${restarted.url}/event?svc_account=acme&svc_profile=main&svc_visitor_id=${visitors[0]}&svc_event=view&svc_trace_id=ck-restarted`,
      );
      expect(event.status).toBe(200);
      expect((await admin(restarted.url, "POST", "/admin/wait", { timeoutMs: 30_000 })).status).toBe(200);
      const after = await fetch(
        `${restarted.url}/personalization/accounts/acme/profiles/main/engines/demo-engine/visitors/${visitors[0]}`,
        { headers: { referer: "https://example.com/" } },
      );
      const metrics = ((await after.json()) as { metrics: Record<string, number> }).metrics;
      expect(metrics["Lifetime event count"]).toBe((storedByVisitor.get(visitors[0] as string) ?? 0) + 1);
    },
    { timeout: 120_000 },
  );
});
