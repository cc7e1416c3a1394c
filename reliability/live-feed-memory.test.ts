/**
 * Second probe, finding 3 (SECURITY.md row 15): stalled live-feed readers must not let anonymous events grow the
 * server's memory. The probe's traffic against a real server process: console tabs that open the live feed
 * (GET /admin/events/live) and never read it, while anonymous clients send events of nearly 1 MiB (the body
 * limit). Before the fix each feed queued its own serialised copy of every message until 1,000 of them were
 * unread, whatever their size (the probe: three tabs and 225 events, about 1 GB; here six tabs and 120 events
 * grew the server by about 870 MB). Now a feed is ended once its reader has not taken more than its byte budget
 * (4 MiB of messages), and a message is serialised once for every feed. The server's memory is read from
 * /proc/<pid>/status (VmRSS, and VmHWM: the peak). The collection limits are raised by the configuration
 * (reliability/support.ts) so that the events arrive as fast as the server takes them. Every one of the events is
 * sent and answered, however slow the machine: the test stops by their count, and its timeout only guards against
 * a hang. Loopback only; every socket is closed at the end.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type SpawnedServer, spawnServer } from "../tools/spawn-server.ts";
import { mb, memoryOf, writeLoadTestConfig } from "./support.ts";

const root = resolve(import.meta.dir, "..");
const adminToken = "live-feed-memory-test-admin-token";
const MiB = 1024 * 1024;
const stalledReaders = 6;
const largeEvents = 120;
/** Events in flight at once (several anonymous clients). */
const senders = 2;
/**
 * Only a guard against a hang, not a speed requirement: the 130 events take seconds, on a busy machine too; a
 * server that stops answering fails the test here rather than hold up the suite.
 */
const hangGuardMs = 300_000;
/**
 * The bound on the server's growth over its warmed-up baseline, peak included. The same events with no feed open
 * grow it by 140–200 MB: the garbage of 120 MiB of request bodies that the collector has not freed yet, and the
 * collection journal's 16 MiB. What the stalled feeds add is at most each one's budget and what its connection
 * already took, made of messages they all share. Before the fix the old code passed this bound within about 40
 * events.
 */
const maxGrowthBytes = 300 * MiB;

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(): Promise<SpawnedServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-live-feed-"));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const configPath = writeLoadTestConfig(dataDir);
  const server = await spawnServer({ root, dataDir, adminToken, env: { SVC_CONFIG: configPath }, keepOutput: false });
  cleanups.push(() => server.stop());
  return server;
}

/** An anonymous POST /event of about `size` bytes of JSON; answers its status. */
async function postEvent(url: string, traceId: string, size: number): Promise<number> {
  const head = `{"svc_account":"acme","svc_event":"large","svc_trace_id":"${traceId}","filler":"`;
  const body = `${head}${"a".repeat(Math.max(0, size - head.length - 2))}"}`;
  const response = await fetch(`${url}/event`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}

/** The number of live feeds open, from GET /metrics. */
async function liveFeedsOpen(url: string): Promise<number> {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } });
  expect(response.status).toBe(200);
  const line = /^svc_hub_live_feeds_open (\d+)$/m.exec(await response.text());
  return Number(line?.[1] ?? NaN);
}

/** A console tab that opens the live feed, sees its first line, then never reads again. */
interface StalledReader {
  readonly socket: Socket;
  /** What it read before it stopped: the answer's head and the feed's first line. */
  readonly head: string;
  /** Reads again; resolves once the feed's answer has ended (its last chunk) or the connection closed. */
  resume(): Promise<void>;
}

function openStalledReader(url: string): Promise<StalledReader> {
  const { hostname, port } = new URL(url);
  return new Promise((resolvePromise, reject) => {
    let head = "";
    let tail = "";
    let markEnded: () => void = () => undefined;
    const ended = new Promise<void>((resolveEnded) => (markEnded = resolveEnded));
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.write(
        `GET /admin/events/live HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${adminToken}\r\nAccept: text/event-stream\r\n\r\n`,
      );
    });
    socket.setEncoding("latin1");
    const stall = (chunk: string) => {
      head += chunk;
      if (!head.includes(": connected\n\n")) return;
      // The tab stalls: nothing more is read from the socket, so the server's writes back up.
      socket.off("data", stall);
      socket.pause();
      resolvePromise({
        socket,
        head,
        resume() {
          socket.on("data", (more: string) => {
            // Only the end is looked for (the last chunk of a chunked answer): the messages are megabytes.
            tail = (tail + more).slice(-16);
            if (tail.endsWith("\r\n0\r\n\r\n")) markEnded();
          });
          socket.resume();
          return ended;
        },
      });
    };
    socket.on("data", stall);
    socket.on("close", () => markEnded());
    socket.on("error", () => undefined); // a connection the server ends is expected here
    socket.once("error", reject);
  });
}

describe("second probe, finding 3: the live feeds under stalled readers and large anonymous events", () => {
  it(
    "keeps the server's memory bounded and ends each stalled feed, with 6 stalled readers and 120 events of 1 MiB",
    async () => {
      const server = await start();
      // Warm up (the first large events compile the routes and grow the heap once), then the baseline.
      for (let n = 0; n < 10; n += 1) expect(await postEvent(server.url, `warm-${n}`, MiB)).toBe(200);
      const readers: StalledReader[] = [];
      cleanups.push(() => {
        for (const reader of readers) reader.socket.destroy();
      });
      for (let n = 0; n < stalledReaders; n += 1) readers.push(await openStalledReader(server.url));
      for (const reader of readers) expect(reader.head).toStartWith("HTTP/1.1 200");
      expect(await liveFeedsOpen(server.url)).toBe(stalledReaders);
      const baseline = memoryOf(server.pid);

      // Sampled while sending, so that a server past the bound stops the traffic at once rather than grow on (the
      // test then fails on the bound).
      let overBound = false;
      const sampler = setInterval(() => {
        overBound ||= memoryOf(server.pid).peak - baseline.rss >= maxGrowthBytes;
      }, 100);
      cleanups.push(() => clearInterval(sampler));
      const started = performance.now();
      const statuses: number[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: senders }, async () => {
          while (next < largeEvents && !overBound) {
            const n = next++;
            statuses.push(await postEvent(server.url, `large-${n}`, MiB));
          }
        }),
      );
      const sendMs = performance.now() - started;
      clearInterval(sampler);
      const during = memoryOf(server.pid);
      const feedsAfter = await liveFeedsOpen(server.url);
      // The server still collects.
      expect(await postEvent(server.url, "after", 1024)).toBe(200);
      const after = memoryOf(server.pid);

      console.log(
        [
          `baseline RSS ${mb(baseline.rss)} (peak so far ${mb(baseline.peak)}), ${stalledReaders} stalled readers`,
          `${statuses.length} events of 1 MiB in ${sendMs.toFixed(0)} ms: RSS ${mb(during.rss)}, peak ${mb(during.peak)}, growth ${mb(during.peak - baseline.rss)} (bound ${mb(maxGrowthBytes)})`,
          `feeds open afterwards: ${feedsAfter}; RSS after ${mb(after.rss)}`,
        ].join("\n"),
      );
      expect(during.peak - baseline.rss).toBeLessThan(maxGrowthBytes);
      // Every event was sent and collected: the bound above was held under the whole traffic, not part of it.
      expect(statuses).toEqual(Array.from({ length: largeEvents }, () => 200));
      // Every stalled reader was ended (it would reconnect with Last-Event-ID).
      expect(feedsAfter).toBe(0);
      // A reader that comes back reads what its connection still held, then the feed's end (and would reconnect
      // with Last-Event-ID).
      await Promise.all(readers.map((reader) => reader.resume()));
    },
    { timeout: hangGuardMs },
  );
});
