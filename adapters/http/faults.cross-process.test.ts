/**
 * Issue 33 against a real server process: a client's retry path tested through fault injection. A small
 * retrying client (retry on 503 with backoff) gets two 503s from a fault, then svc-hub's own answer; a dropped
 * connection reaches the client as a network error, not a status; the request journal saw every try.
 */

import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type SpawnedServer, spawnServer } from "../../tools/spawn-server.ts";

const root = resolve(import.meta.dir, "../..");
const adminToken = "faults-test-admin-token";
const admin = { authorization: `Bearer ${adminToken}`, "content-type": "application/json" };
let server: SpawnedServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "svc-hub-faults-"));
  server = await spawnServer({ root, dataDir, adminToken, env: { SVC_STORE: "memory", SVC_TIMING: "instant" } });
});
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The client under test: retries a 503 (and a network error) up to `tries` times, doubling its wait. */
async function fetchWithRetry(url: string, init: RequestInit = {}, tries = 4, backoffMs = 20): Promise<Response> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const answer = await fetch(url, init);
      if (answer.status !== 503 || attempt === tries) return answer;
    } catch (error) {
      if (attempt === tries) throw error;
    }
    await Bun.sleep(backoffMs * 2 ** (attempt - 1));
  }
}

async function addFault(fault: Record<string, unknown>): Promise<void> {
  const answer = await fetch(`${server.url}/admin/faults`, {
    method: "POST",
    headers: admin,
    body: JSON.stringify(fault),
  });
  expect(answer.status).toBe(201);
}

describe("issue 33: a client's retry tested through fault injection, on a real server", () => {
  it("retries two 503s from a fault and then gets svc-hub's answer", async () => {
    await addFault({ method: "POST", path: "/v1/login", status: 503, times: 2, headers: { "retry-after": "0" } });
    const answer = await fetchWithRetry(`${server.url}/v1/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "username=demo@example.com&password=demo-password-1",
    });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { utk: string }).utk).toBeString();

    const journal = await fetch(`${server.url}/admin/requests?path=/v1/login`, { headers: admin });
    const { requests } = (await journal.json()) as { requests: Array<{ status: number; fault?: string }> };
    expect(requests.map((entry) => [entry.status, entry.fault])).toEqual([
      [200, undefined],
      [503, "f1"],
      [503, "f1"],
    ]);
  });

  it("sees a dropped connection as a network error, and recovers on the next try", async () => {
    const url = `${server.url}/event?svc_account=acme&svc_profile=main`;
    // A fresh connection: on a kept-alive one Bun's fetch resends the request once by itself when the
    // connection closes before an answer, and a fault of `times: 1` would go unseen.
    const fresh = { keepalive: false };
    await addFault({ path: "/event", account: "acme", drop: true });
    await expect(fetch(url, fresh)).rejects.toThrow(/ECONNRESET|closed|socket/i);
    await addFault({ path: "/event", account: "acme", drop: true, times: 2 });
    await expect(fetch(url)).rejects.toThrow(/ECONNRESET|closed|socket/i);

    await addFault({ path: "/event", account: "acme", drop: true });
    expect((await fetchWithRetry(url, fresh)).status).toBe(200);
    const journal = await fetch(`${server.url}/admin/requests?path=/event&limit=2`, { headers: admin });
    const { requests } = (await journal.json()) as { requests: Array<{ status: number | null; fault?: string }> };
    expect(requests.map((entry) => [entry.status, entry.fault])).toEqual([
      [200, undefined],
      [null, "f4"],
    ]);
  });

  it("a delay without a status holds the answer, then svc-hub answers", async () => {
    await addFault({ method: "GET", path: "/event", delayMs: 200 });
    const started = performance.now();
    const answer = await fetch(`${server.url}/event?svc_account=acme&svc_profile=main`);
    expect(answer.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });
});
