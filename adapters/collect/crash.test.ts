/**
 * COL-16, DEC-COL-08: durability under a crash, and group commit, on a real server process. Concurrent
 * clients stream events and the server is killed with SIGKILL in the middle of the stream; restarted on
 * the same data directory, it must hold every event it answered 200. Two rounds, because a server that
 * answered before committing loses events only when the kill lands inside that window.
 * Loopback only, bounded in requests and time.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type SpawnedServer, spawnServer } from "../../tools/spawn-server.ts";

const root = resolve(import.meta.dir, "../..");
const adminToken = "crash-test-admin-token";
const clients = 16;
const killAfterAcks = 400;
const maxRequestsPerRound = 4_000;
const maxStreamMs = 10_000;

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A data directory and a configuration with acme/main and no practical rate limit (durability is the subject). */
function prepare(): { dataDir: string; configPath: string } {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-crash-"));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const configPath = join(dataDir, "svc.config.json");
  writeFileSync(
    configPath,
    JSON.stringify({
      limits: { collectEventsPerSecond: 1_000_000, collectBytesPerSourcePerSecond: 1024 ** 4 },
      accounts: [{ name: "acme", profiles: [{ name: "main" }] }],
    }),
  );
  return { dataDir, configPath };
}

async function start(dataDir: string, configPath: string): Promise<SpawnedServer> {
  const server = await spawnServer({ root, dataDir, adminToken, env: { SVC_CONFIG: configPath } });
  cleanups.push(() => server.stop());
  return server;
}

function postEvent(url: string, eventName: string, traceId: string): Promise<Response> {
  return fetch(`${url}/event`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ svc_account: "acme", svc_event: eventName, svc_trace_id: traceId }),
  });
}

async function adminGet<T>(url: string, path: string): Promise<T> {
  const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${adminToken}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

/** Every trace id stored for the event name, paging through the admin events query. */
async function storedTraceIds(url: string, eventName: string): Promise<Set<string>> {
  const found = new Set<string>();
  let afterSeq = 0;
  for (;;) {
    const page = await adminGet<{ events: Array<{ traceId: string }>; nextAfterSeq: number | null }>(
      url,
      `/admin/events?event=${eventName}&limit=1000&afterSeq=${afterSeq}`,
    );
    for (const event of page.events) found.add(event.traceId);
    if (page.nextAfterSeq === null) return found;
    afterSeq = page.nextAfterSeq;
  }
}

/**
 * Streams events from concurrent clients and SIGKILLs the server once `killAfterAcks` were answered 200,
 * while requests are still on the wire. Returns the trace ids answered 200.
 */
async function streamAndKill(
  server: SpawnedServer,
  eventName: string,
): Promise<{ acked: string[]; inFlightAtKill: number }> {
  const acked: string[] = [];
  let sent = 0;
  let inFlight = 0;
  let inFlightAtKill = -1;
  let killed: Promise<number> | null = null;
  const deadline = Date.now() + maxStreamMs;
  const client = async (clientId: number) => {
    for (let n = 0; killed === null && sent < maxRequestsPerRound && Date.now() < deadline; n += 1) {
      const traceId = `${eventName}-${clientId}-${n}`;
      sent += 1;
      inFlight += 1;
      try {
        const response = await postEvent(server.url, eventName, traceId);
        if (response.status === 200) acked.push(traceId);
        else expect(response.status).toBe(503); // never a 200 for something not committed
      } catch {
        return; // the server is gone: this request was never acknowledged
      } finally {
        inFlight -= 1;
      }
      if (acked.length >= killAfterAcks && killed === null) {
        inFlightAtKill = inFlight;
        killed = server.kill();
      }
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, clientId) => client(clientId)));
  expect(killed).not.toBeNull();
  expect(await killed!).not.toBe(0);
  return { acked, inFlightAtKill };
}

describe("a real server process (COL-16, DEC-COL-08)", () => {
  it(
    "every event answered 200 before a SIGKILL is in the store after the restart",
    async () => {
      const { dataDir, configPath } = prepare();
      let server = await start(dataDir, configPath);
      for (const round of ["first", "second"]) {
        const eventName = `crash_${round}`;
        const { acked, inFlightAtKill } = await streamAndKill(server, eventName);
        expect(acked.length).toBeGreaterThanOrEqual(killAfterAcks);
        expect(inFlightAtKill).toBeGreaterThan(0); // killed mid-stream, with requests on the wire

        server = await start(dataDir, configPath);
        const stored = await storedTraceIds(server.url, eventName);
        expect(acked.filter((traceId) => !stored.has(traceId))).toEqual([]);
        expect(stored.size).toBeGreaterThanOrEqual(acked.length);
      }
    },
    { timeout: 60_000 },
  );

  it(
    "concurrent events over real connections share commits (group commit)",
    async () => {
      const { dataDir, configPath } = prepare();
      const server = await start(dataDir, configPath);
      let next = 0;
      await Promise.all(
        Array.from({ length: clients }, async () => {
          while (next < 800) {
            next += 1;
            const response = await postEvent(server.url, "grouped", `g${next}`);
            expect(response.status).toBe(200);
          }
        }),
      );
      const stats = await adminGet<{ commits: { batches: number; committed: number; largestBatch: number } }>(
        server.url,
        "/admin/collect/stats",
      );
      expect(stats.commits.committed).toBe(next);
      expect(stats.commits.largestBatch).toBeGreaterThan(1);
      expect(stats.commits.batches).toBeLessThan(next / 2);
    },
    { timeout: 60_000 },
  );
});
