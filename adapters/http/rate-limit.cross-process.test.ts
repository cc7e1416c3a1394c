/**
 * COL-15, DEC-COL-07 across processes: two svc-hub processes on one store keep one collection rate limit. One
 * account is flooded through both, in turn as a round-robin balancer sends, at five times the limit; the events
 * stored per second of the flood (GET /admin/events) are at most the limit's 100 plus 10%, not twice it; and at
 * least 100 less 10% in each second into which the flood was offered at three times the limit or more. A busy
 * machine may send fewer requests in a second than planned: a second it offered fewer than that proves nothing
 * about the limit's lower side. On PostgreSQL (several nodes) and on one libSQL file (several processes on one
 * machine).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type PostgresServer, startPostgresServer } from "../../tools/postgres-server.ts";
import { type SpawnedServer, spawnServer } from "../../tools/spawn-server.ts";

const root = resolve(import.meta.dir, "../..");
const adminToken = `rate-nodes-${crypto.randomUUID()}`;
const limit = 100;
/** Requests a second, sent in turn to each process. */
const offeredPerSecond = 5 * limit;
/** Whole seconds of the flood that are measured (it starts half a second before the first). */
const measuredSeconds = 4;
/** Requests sent within a second from which the limit must be reached in it. */
const fullyOfferedPerSecond = 3 * limit;

interface StoredEventView {
  readonly seq: number;
  readonly receivedAtMs: number;
}

/** Every stored event of acme, read from `server` a page at a time. */
async function storedEvents(server: SpawnedServer): Promise<StoredEventView[]> {
  const found: StoredEventView[] = [];
  let afterSeq = 0;
  for (;;) {
    const answer = await fetch(`${server.url}/admin/events?account=acme&limit=1000&afterSeq=${afterSeq}`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(answer.status).toBe(200);
    const { events } = (await answer.json()) as { events: StoredEventView[] };
    found.push(...events);
    const last = events.at(-1);
    if (!last) return found;
    afterSeq = last.seq;
  }
}

/**
 * Floods acme through `servers` in turn, from half a second into a second of the clock for `measuredSeconds`
 * whole seconds more; answers the events stored in each of those whole seconds, the requests sent in each, and the
 * statuses answered.
 */
async function flood(
  servers: readonly SpawnedServer[],
): Promise<{ perSecond: number[]; sentPerSecond: number[]; statuses: Set<number> }> {
  const statuses = new Set<number>();
  // The virtual clock is the real one here (nothing moved it): start half a second into the next second, so that
  // what the processes admit before they first read each other's counts falls outside the whole seconds measured.
  const firstWhole = Math.floor(Date.now() / 1000) + 2;
  await Bun.sleep(firstWhole * 1000 - 500 - Date.now());
  const end = (firstWhole + measuredSeconds) * 1000;
  const requests: Promise<void>[] = [];
  const gapMs = 1000 / offeredPerSecond;
  let sent = 0;
  const sentPerSecond = Array.from({ length: measuredSeconds }, () => 0);
  for (let due = Date.now(); due < end; due += gapMs) {
    if (due > Date.now()) await Bun.sleep(due - Date.now());
    const server = servers[sent % servers.length] as SpawnedServer;
    sent += 1;
    const second = Math.floor(Date.now() / 1000) - firstWhole;
    if (second >= 0 && second < measuredSeconds) sentPerSecond[second] = (sentPerSecond[second] ?? 0) + 1;
    requests.push(
      fetch(`${server.url}/event?svc_account=acme&svc_profile=main&svc_event=flood`).then(async (answer) => {
        statuses.add(answer.status);
        await answer.arrayBuffer();
      }),
    );
  }
  await Promise.all(requests);
  const perSecond = Array.from({ length: measuredSeconds }, () => 0);
  for (const event of await storedEvents(servers[0] as SpawnedServer)) {
    const index = Math.floor(event.receivedAtMs / 1000) - firstWhole;
    if (index >= 0 && index < measuredSeconds) perSecond[index] = (perSecond[index] ?? 0) + 1;
  }
  return { perSecond, sentPerSecond, statuses };
}

function describeTwoProcesses(store: string, env: () => Promise<Record<string, string>>): void {
  describe(`two svc-hub processes on one ${store} store`, () => {
    const dataDirs: string[] = [];
    const servers: SpawnedServer[] = [];

    beforeAll(async () => {
      const shared = await env();
      for (const name of ["first", "second"]) {
        const dataDir = shared.SVC_DATA_DIR ?? mkdtempSync(join(tmpdir(), `svc-hub-rate-${name}-`));
        if (!shared.SVC_DATA_DIR) dataDirs.push(dataDir);
        servers.push(await spawnServer({ root, dataDir, adminToken, env: shared, keepOutput: false }));
      }
    }, 60_000);

    afterAll(async () => {
      await Promise.all(servers.map((server) => server.stop()));
      for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
    });

    it(`[COL-15, DEC-COL-07] an account flooded through both at ${offeredPerSecond} events a second has ${limit} a second stored between them, within 10%`, async () => {
      const { perSecond, sentPerSecond, statuses } = await flood(servers);
      expect([...statuses].sort()).toEqual([200, 429]);
      const seen = `stored per second: ${perSecond.join(", ")}; sent: ${sentPerSecond.join(", ")}`;
      perSecond.forEach((count, second) => {
        expect(count, seen).toBeLessThanOrEqual(limit * 1.1);
        if ((sentPerSecond[second] ?? 0) >= fullyOfferedPerSecond)
          expect(count, seen).toBeGreaterThanOrEqual(limit * 0.9);
      });
      // The flood was offered in full in some second at least, or the lower side was not tested at all.
      expect(
        sentPerSecond.some((sent) => sent >= fullyOfferedPerSecond),
        seen,
      ).toBe(true);
    }, 60_000);
  });
}

let postgres: PostgresServer | null = null;
afterAll(async () => {
  await postgres?.stop();
});

describeTwoProcesses("PostgreSQL", async () => {
  postgres = await startPostgresServer();
  return { SVC_STORE: "postgres", SVC_DATABASE_URL: await postgres.createDatabase("rate") };
});

const libsqlDataDir = mkdtempSync(join(tmpdir(), "svc-hub-rate-libsql-"));
afterAll(() => rmSync(libsqlDataDir, { recursive: true, force: true }));
describeTwoProcesses("libSQL", async () => ({ SVC_DATA_DIR: libsqlDataDir }));
