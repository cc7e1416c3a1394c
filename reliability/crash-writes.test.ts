/**
 * Durability of the management writes under repeated SIGKILL, on a real server process (SECURITY.md,
 * "Crashes and faults"; DLE and PRV: pending changes and deletions are kept in the store). Concurrent
 * clients stream data layer uploads (v1) and visitor deletions (v2); the server is killed with SIGKILL while
 * requests are on the wire, restarted on the same data directory, three rounds. After each restart every
 * write answered 201 / 202 so far must be there (its status, its transaction), and after the virtual clock
 * moved past the delays and the background work drained, every upload is completed and served; after the
 * last restart every deletion is SUCCESS. Loopback only, bounded in requests and time.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type SpawnedServer, spawnServer } from "../tools/spawn-server.ts";

const root = resolve(import.meta.dir, "..");
const adminToken = `crash-writes-${crypto.randomUUID()}`;
const rounds = 3;
const clients = 8;
const killAfterAcks = 60;
const maxRequestsPerRound = 1_000;
const maxStreamMs = 8_000;
const dle = "/v1/dle/accounts/acme/profiles/main/datalayers";
const prv = "/v2/visitor/accounts/acme/profiles/main";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(dataDir: string): Promise<SpawnedServer> {
  const server = await spawnServer({ root, dataDir, adminToken, env: { SVC_TIMING: "fast" } });
  cleanups.push(() => server.stop());
  return server;
}

interface Credentials {
  readonly cookie: string;
  readonly utk: string;
  readonly bearer: string;
}

const formHeaders = { "content-type": "application/x-www-form-urlencoded" };

async function login(url: string): Promise<Credentials> {
  const v1 = await fetch(`${url}/v1/login`, {
    method: "POST",
    headers: formHeaders,
    body: new URLSearchParams({ username: "demo@example.com", password: "demo-password-1" }),
  });
  expect(v1.status).toBe(200);
  const utk = ((await v1.json()) as { utk: string }).utk;
  const cookie = /JSESSIONID=([^;]*)/.exec(v1.headers.get("set-cookie") ?? "")?.[1] ?? "";
  expect(cookie).not.toBe("");
  const v2 = await fetch(`${url}/v2/auth`, {
    method: "POST",
    headers: formHeaders,
    body: new URLSearchParams({ username: "demo@example.com", key: "demo-key-0001-acme" }),
  });
  expect(v2.status).toBe(200);
  return { cookie, utk, bearer: ((await v2.json()) as { token: string }).token };
}

async function admin(url: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: body === undefined ? null : JSON.stringify(body),
  });
}

const layerBody = (id: string) => ({ id, page: { type: "crash" }, n: id.length });

interface Acked {
  readonly uploads: string[];
  readonly deletions: string[];
}

/**
 * Streams uploads and deletions from concurrent clients and SIGKILLs the server once `killAfterAcks`
 * writes were acknowledged, while requests are still on the wire. Adds what was acknowledged to `acked`.
 */
async function streamAndKill(
  server: SpawnedServer,
  credentials: Credentials,
  round: number,
  acked: Acked,
): Promise<number> {
  let sent = 0;
  let acks = 0;
  let inFlight = 0;
  let inFlightAtKill = -1;
  let killed: Promise<number> | null = null;
  const deadline = Date.now() + maxStreamMs;
  const client = async (clientId: number) => {
    for (let n = 0; killed === null && sent < maxRequestsPerRound && Date.now() < deadline; n += 1) {
      const id = `crash-r${round}-c${clientId}-n${n}`;
      const upload = (clientId + n) % 2 === 0;
      sent += 1;
      inFlight += 1;
      try {
        if (upload) {
          const response = await fetch(`${server.url}${dle}/${id}?utk=${encodeURIComponent(credentials.utk)}`, {
            method: "POST",
            headers: { cookie: `JSESSIONID=${credentials.cookie}`, "content-type": "application/json" },
            body: JSON.stringify(layerBody(id)),
          });
          if (response.status === 201) {
            acked.uploads.push(id);
            acks += 1;
          } else expect(response.status).toBe(503); // never another answer for a valid upload
        } else {
          const response = await fetch(`${server.url}${prv}`, {
            method: "DELETE",
            headers: { authorization: `Bearer ${credentials.bearer}`, ...formHeaders },
            body: new URLSearchParams({ attributeId: "5120", attributeValue: `${id}@example.com` }),
          });
          if (response.status === 202) {
            const transactionId = ((await response.json()) as { transactionId: string }).transactionId;
            expect(transactionId).toBeTruthy();
            acked.deletions.push(transactionId);
            acks += 1;
          } else expect(response.status).toBe(503);
        }
      } catch (error) {
        if (killed === null) throw error; // a failure before the kill is a real failure
        return; // the server is gone: this request was never acknowledged
      } finally {
        inFlight -= 1;
      }
      if (acks >= killAfterAcks && killed === null) {
        inFlightAtKill = inFlight;
        killed = server.kill();
      }
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, clientId) => client(clientId)));
  expect(killed).not.toBeNull();
  expect(await killed!).not.toBe(0);
  return inFlightAtKill;
}

/** Every acknowledged write exists right after the restart, before any background work was allowed to run. */
async function expectPresent(url: string, credentials: Credentials, acked: Acked): Promise<void> {
  const missingUploads: string[] = [];
  for (const id of acked.uploads) {
    const response = await fetch(`${url}${dle}/${id}?utk=${encodeURIComponent(credentials.utk)}`, {
      headers: { cookie: `JSESSIONID=${credentials.cookie}` },
    });
    if (response.status !== 200) missingUploads.push(`${id}: ${response.status}`);
    else expect(["pending", "completed"]).toContain(((await response.json()) as { status: string }).status);
  }
  const missingDeletions: string[] = [];
  for (const id of acked.deletions) {
    const response = await fetch(`${url}${prv}/transactions/${id}`, {
      headers: { authorization: `Bearer ${credentials.bearer}` },
    });
    if (response.status !== 200) missingDeletions.push(`${id}: ${response.status}`);
  }
  expect({ missingUploads, missingDeletions }).toEqual({ missingUploads: [], missingDeletions: [] });
}

/** After the publishing delay passed and the publisher drained: every upload completed and served as uploaded. */
async function expectUploadsSettled(url: string, credentials: Credentials, acked: Acked): Promise<void> {
  const unsettled: string[] = [];
  for (const id of acked.uploads) {
    const status = await fetch(`${url}${dle}/${id}?utk=${encodeURIComponent(credentials.utk)}`, {
      headers: { cookie: `JSESSIONID=${credentials.cookie}` },
    });
    const state =
      status.status === 200 ? ((await status.json()) as { status: string }).status : `HTTP ${status.status}`;
    if (state !== "completed") unsettled.push(`upload ${id}: ${state}`);
    const served = await fetch(`${url}/dle/acme/main/${id}.json`);
    if (served.status !== 200) unsettled.push(`served ${id}: ${served.status}`);
    else expect(await served.json()).toEqual(layerBody(id));
  }
  expect(unsettled).toEqual([]);
}

/** After the deletion delay passed and the deletions drained: every deletion SUCCESS. */
async function expectDeletionsSettled(url: string, credentials: Credentials, acked: Acked): Promise<void> {
  const unsettled: string[] = [];
  for (const id of acked.deletions) {
    const response = await fetch(`${url}${prv}/transactions/${id}`, {
      headers: { authorization: `Bearer ${credentials.bearer}` },
    });
    const body = response.status === 200 ? ((await response.json()) as Record<string, string>) : {};
    if (body[id] !== "SUCCESS") unsettled.push(`deletion ${id}: ${response.status} ${JSON.stringify(body)}`);
  }
  expect(unsettled).toEqual([]);
}

describe("data layer and privacy writes under repeated SIGKILL, on a real server process", () => {
  it(
    `every upload answered 201 and every deletion answered 202 survives ${rounds} kills, and all of them finish`,
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-crash-writes-"));
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      const acked: Acked = { uploads: [], deletions: [] };
      let server = await start(dataDir);
      for (let round = 1; round <= rounds; round += 1) {
        const before = acked.uploads.length + acked.deletions.length;
        const inFlightAtKill = await streamAndKill(server, await login(server.url), round, acked);
        expect(acked.uploads.length + acked.deletions.length - before).toBeGreaterThanOrEqual(killAfterAcks);
        expect(inFlightAtKill).toBeGreaterThan(0); // killed mid-stream, with requests on the wire

        server = await start(dataDir);
        await expectPresent(server.url, await login(server.url), acked);
        expect((await admin(server.url, "/admin/clock/advance", { by: "2h" })).status).toBe(200);
        expect((await admin(server.url, "/admin/wait", { timeoutMs: 20_000 })).status).toBe(200);
        // Moving the clock by 2 h ended the sessions and tokens: log in again.
        const again = await login(server.url);
        await expectUploadsSettled(server.url, again, acked);
        // Only the holder of the profiles lease erases, and the killed process held it: the restarted one, on
        // the same host, sees that process gone and takes the lease at once, without waiting it out.
        await expectDeletionsSettled(server.url, again, acked);
      }
      expect(acked.uploads.length).toBeGreaterThan(0);
      expect(acked.deletions.length).toBeGreaterThan(0);
    },
    { timeout: 60_000 },
  );
});
