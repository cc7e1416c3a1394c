/**
 * Memory stays bounded, and the service keeps answering, under 1,000 slow connections and under bodies of
 * the largest size and past it (and gzip bombs), on a real server process. Each slow connection sends the
 * head of a POST /event announcing a 1 MiB body, then trickles a byte at a time; the server's memory is read
 * from /proc/<pid>/status (VmRSS now, VmHWM the peak) before and during. Loopback only, bounded in
 * connections, requests and time; everything is closed at the end.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type SpawnedServer, spawnServer } from "../tools/spawn-server.ts";
import { mb, memoryOf, writeLoadTestConfig } from "./support.ts";

const root = resolve(import.meta.dir, "..");
const adminToken = "slow-clients-test-admin-token";
const slowConnections = 1_000;
const trickleRounds = 5;
const trickleEveryMs = 800;
const bodyClients = 20;
const MiB = 1024 * 1024;
/** The bound on the server's growth over its warmed-up baseline, peak included. */
const maxGrowthBytes = 150 * MiB;
/** A normal request while the slow connections are open must answer within this. */
const maxNormalAnswerMs = 1_000;

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(): Promise<SpawnedServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-slow-"));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const configPath = writeLoadTestConfig(dataDir);
  const server = await spawnServer({ root, dataDir, adminToken, env: { SVC_CONFIG: configPath } });
  cleanups.push(() => server.stop());
  return server;
}

async function timedHealth(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${url}/healthz`);
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  return performance.now() - started;
}

async function postEvent(url: string, traceId: string): Promise<number> {
  const response = await fetch(`${url}/event`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ svc_account: "acme", svc_event: "slow_clients", svc_trace_id: traceId }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** Opens a connection and sends the head of a request announcing a 1 MiB body; resolves once connected. */
function openSlow(port: number, closed: { count: number }): Promise<Socket> {
  return new Promise((resolvePromise, reject) => {
    const socket = connect({ host: "127.0.0.1", port }, () => {
      socket.write(
        `POST /event HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${MiB}\r\n\r\n{"svc_account":"acme","filler":"`,
      );
      resolvePromise(socket);
    });
    socket.on("error", () => undefined); // a connection the server closes is counted, not a failure here
    socket.on("close", () => (closed.count += 1));
    socket.once("error", reject);
  });
}

describe("memory under slow clients and maximum-size bodies", () => {
  it(
    "stays bounded, and a normal request answers quickly, with 1,000 slow connections open and 1 MiB bodies and gzip bombs in flight",
    async () => {
      const server = await start();
      const port = Number(new URL(server.url).port);
      // Warm up (first requests compile routes and fill caches), then the baseline.
      for (let n = 0; n < 50; n += 1) expect(await postEvent(server.url, `warm-${n}`)).toBe(200);
      await timedHealth(server.url);
      const baseline = memoryOf(server.pid);

      // 1. 1,000 slow connections, each trickling a byte of its 1 MiB body now and then.
      const closed = { count: 0 };
      const sockets: Socket[] = [];
      cleanups.push(() => {
        for (const socket of sockets) socket.destroy();
      });
      for (let n = 0; n < slowConnections; n += 50) {
        sockets.push(...(await Promise.all(Array.from({ length: 50 }, () => openSlow(port, closed)))));
      }
      expect(sockets.length).toBe(slowConnections);
      const healthTimes: number[] = [];
      const eventStatuses: number[] = [];
      for (let round = 0; round < trickleRounds; round += 1) {
        for (const socket of sockets) if (!socket.destroyed) socket.write("a");
        healthTimes.push(await timedHealth(server.url));
        eventStatuses.push(await postEvent(server.url, `during-slow-${round}`));
        await Bun.sleep(trickleEveryMs);
      }
      const duringSlow = memoryOf(server.pid);
      const stillOpen = sockets.filter((socket) => !socket.destroyed).length;

      // 2. Bodies of the largest size and just past it, and gzip bombs, 20 at a time of each, while the
      // slow connections are still open.
      const over = new Uint8Array(MiB + 16).fill(0x61);
      const overJson = `{"svc_account":"acme","svc_event":"big","x":"${"a".repeat(MiB)}"}`;
      const bomb = Bun.gzipSync(new Uint8Array(64 * MiB));
      const session = await fetch(`${server.url}/v1/login`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ username: "demo@example.com", password: "demo-password-1" }).toString(),
      });
      expect(session.status).toBe(200);
      const utk = ((await session.json()) as { utk: string }).utk;
      const cookie = /JSESSIONID=[^;]*/.exec(session.headers.get("set-cookie") ?? "")?.[0] ?? "";
      const dle = (name: string) =>
        `${server.url}/v1/dle/accounts/acme/profiles/main/datalayers/${name}?utk=${encodeURIComponent(utk)}`;
      const bodyStatuses = new Map<string, number[]>();
      const record = (kind: string) => async (response: Response) => {
        await response.arrayBuffer();
        bodyStatuses.set(kind, [...(bodyStatuses.get(kind) ?? []), response.status]);
      };
      const bodyStarted = performance.now();
      await Promise.all(
        Array.from({ length: bodyClients }, (_, n) => [
          fetch(`${server.url}/event`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: overJson,
          }).then(record("event over 1 MiB")),
          fetch(`${server.url}/event`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: over,
          }).then(record("event 1 MiB + 16 raw")),
          fetch(`${server.url}/event`, {
            method: "POST",
            headers: { "content-type": "application/json", "content-encoding": "gzip" },
            body: bomb,
          }).then(record("event gzip bomb")),
          fetch(dle(`big_${n}`), {
            method: "POST",
            headers: { "content-type": "application/json", cookie },
            body: overJson,
          }).then(record("data layer over 1 MiB")),
          fetch(dle(`bomb_${n}`), {
            method: "POST",
            headers: { "content-type": "application/json", "content-encoding": "gzip", cookie },
            body: bomb,
          }).then(record("data layer gzip bomb")),
        ]).flat(),
      );
      const bodyMs = performance.now() - bodyStarted;
      healthTimes.push(await timedHealth(server.url));
      const duringBodies = memoryOf(server.pid);

      // Close everything; the server carries on.
      for (const socket of sockets) socket.destroy();
      expect(await postEvent(server.url, "after")).toBe(200);
      const after = memoryOf(server.pid);
      const stopStarted = performance.now();
      const exitCode = await server.stop();
      const stopMs = performance.now() - stopStarted;
      expect(exitCode).toBe(0); // a graceful stop, closing what is still open after its grace period
      expect(stopMs).toBeLessThan(9_000);
      expect(server.output()).not.toContain('"unexpected error"');
      console.log(`stop: exit ${exitCode} after ${stopMs.toFixed(0)} ms`);

      console.log(
        [
          `baseline RSS ${mb(baseline.rss)} (peak ${mb(baseline.peak)})`,
          `${slowConnections} slow connections: RSS ${mb(duringSlow.rss)}, ${stillOpen} still open after ${trickleRounds} rounds, health ${healthTimes.map((ms) => ms.toFixed(0)).join("/")} ms`,
          `bodies (${bodyClients} each, ${bodyMs.toFixed(0)} ms): ${[...bodyStatuses].map(([kind, statuses]) => `${kind} ${[...new Set(statuses)].join(",")}`).join("; ")}`,
          `RSS ${mb(duringBodies.rss)}, peak ${mb(duringBodies.peak)}; after closing RSS ${mb(after.rss)}`,
        ].join("\n"),
      );
      expect(stillOpen).toBe(slowConnections); // the server holds them (trickling keeps them alive)
      expect(eventStatuses.every((status) => status === 200)).toBe(true);
      expect(Math.max(...healthTimes)).toBeLessThan(maxNormalAnswerMs);
      expect(duringBodies.peak - baseline.rss).toBeLessThan(maxGrowthBytes);
      expect(after.peak - baseline.rss).toBeLessThan(maxGrowthBytes);
      for (const [kind, statuses] of bodyStatuses) {
        expect(statuses.length, kind).toBe(bodyClients);
        for (const status of statuses) expect(status >= 400 && status < 500, `${kind}: ${status}`).toBe(true);
      }
    },
    { timeout: 60_000 },
  );
});
