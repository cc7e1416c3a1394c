/**
 * Second probe, finding 1: an anonymous client must not grow the server's memory through the request journal.
 * The probe's traffic: keep-alive connections sending `GET /nope-N?q=<16,200 bytes>` (no route) and, beside it,
 * the same query on a route that exists (`/dle/acme/main/nope-N.js`, answered 404). Before the fix the journal
 * kept the whole URL of the last 10,000 such requests, and the server grew by about 100 MB every 5,000 of them
 * (199 MB to 2,344 MB in 65 s in the probe). A real server process; its memory is read from /proc/<pid>/status
 * (VmRSS now, VmHWM the peak). Loopback only. The flood is a number of requests, never a length of time, so that a
 * slow or busy machine sends the same traffic, only later; it stops early (and fails) once the memory passes the
 * bound. The test's timeout guards against a hang, nothing else.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type SpawnedServer, spawnServer } from "../tools/spawn-server.ts";
import { mb, memoryOf, writeLoadTestConfig } from "./support.ts";

const root = resolve(import.meta.dir, "..");
const adminToken = "request-journal-memory-admin-token";
const MiB = 1024 * 1024;
/**
 * The bound on the server's growth over its warmed-up baseline, its peak included. The journal itself holds at
 * most 4 MiB (its default budget); the rest is what a busy server's heap and allocator keep between collections
 * (+25 to +30 MB measured, peak included; before the fix this flood passed the bound after some 5,750 requests).
 */
const maxGrowthBytes = 100 * MiB;
const filler = "x".repeat(16_200);
/**
 * How many requests the flood sends: more than three times the ~6,000 after which the journal before the fix had
 * grown the server past the bound (+106 MB), and more than the journal's budget holds now (about 15,000 entries
 * of these), so that it has dropped its oldest for a while when the memory is read.
 */
const floodRequests = 20_000;
const connections = 4;
/** A hang guard only: on a quiet machine the flood takes well under a minute. */
const hangGuardMs = 600_000;

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(): Promise<SpawnedServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-journal-memory-"));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const configPath = writeLoadTestConfig(dataDir);
  const server = await spawnServer({
    root,
    dataDir,
    adminToken,
    keepOutput: false,
    // No line per request: the log is not what is measured.
    env: { SVC_CONFIG: configPath, SVC_LOG_LEVEL: "warn" },
  });
  cleanups.push(() => server.stop());
  return server;
}

/** One of the probe's requests: no route, or a route that answers 404; a 16,200-byte query either way. */
function probeUrl(base: string, n: number): string {
  return n % 2 === 0 ? `${base}/nope-${n}?q=${filler}` : `${base}/dle/acme/main/nope-${n}.js?v=${n}&q=${filler}`;
}

describe("second probe, finding 1: memory under a flood of long URLs", () => {
  it(
    "stays within 100 MB of its baseline while one client sends 20,000 URLs of 16 KB, the journal within its budget",
    async () => {
      const server = await start();
      for (let n = 0; n < 200; n += 1) await (await fetch(probeUrl(server.url, n))).arrayBuffer();
      const baseline = memoryOf(server.pid).rss;

      let sent = 0;
      let highest = baseline;
      let overAt: number | null = null;
      const started = performance.now();
      const flooding = () => sent < floodRequests && overAt === null;
      const statuses = new Map<number, number>();
      // Keep-alive connections (fetch keeps them), each sending the next request once the last is answered.
      const flood = async () => {
        while (flooding()) {
          const n = sent;
          sent += 1;
          const answer = await fetch(probeUrl(server.url, n));
          await answer.arrayBuffer();
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          if (n % 250 === 0) {
            const { rss } = memoryOf(server.pid);
            highest = Math.max(highest, rss);
            if (rss - baseline > maxGrowthBytes) overAt = n;
          }
        }
      };
      await Promise.all(Array.from({ length: connections }, flood));
      const floodMs = performance.now() - started;
      const after = memoryOf(server.pid);
      highest = Math.max(highest, after.rss);
      console.log(
        `request journal flood: ${sent} requests in ${(floodMs / 1000).toFixed(1)} s; baseline ${mb(baseline)}, ` +
          `highest ${mb(highest)} (+${mb(highest - baseline)}), peak ${mb(after.peak)}, after ${mb(after.rss)}`,
      );

      expect(overAt, `the server grew past ${mb(maxGrowthBytes)} after ${overAt} requests`).toBeNull();
      expect(sent).toBe(floodRequests);
      expect([...statuses.keys()]).toEqual([404]);
      expect(highest - baseline).toBeLessThanOrEqual(maxGrowthBytes);
      expect(after.peak - baseline).toBeLessThanOrEqual(maxGrowthBytes);

      // The journal is within its budget, and what it keeps is the route and the query's first whole parameters.
      const answer = await fetch(`${server.url}/admin/requests?limit=1000`, {
        headers: { authorization: `Bearer ${adminToken}` },
      });
      const journal = (await answer.json()) as {
        maxBytes: number;
        bytes: number;
        kept: number;
        requests: Array<{ path: string | null; query: Record<string, string>; queryTruncated: boolean }>;
      };
      expect(journal.maxBytes).toBe(4 * MiB);
      expect(journal.bytes).toBeLessThanOrEqual(journal.maxBytes);
      expect(journal.kept).toBeGreaterThan(0);
      // Full: it has dropped its oldest entries, so the memory read above is that of a journal at its budget.
      expect(journal.kept).toBeLessThan(sent);
      expect(new Set(journal.requests.map((entry) => entry.path))).toEqual(
        new Set([null, "/dle/:account/:profile/:file"]),
      );
      // Issue 43: an entry keeps the URL as sent (in `url`), counted whole in the budget; its `query` field shows the
      // parameters that fit in its first 512 characters.
      for (const entry of journal.requests) expect(Object.keys(entry.query)).not.toContain("q");
      expect(journal.requests.every((entry) => entry.queryTruncated)).toBe(true);
    },
    hangGuardMs,
  );
});
