/**
 * Issue 43, point 4: the client's helpers for faults, events, the clock, wait and reset, against a real server;
 * a client's retry loop through a 50% fault with a fixed seed (point 5), the same tries in every run.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type SpawnedServer, spawnServer } from "../tools/spawn-server.ts";
import {
  addFault,
  advanceClock,
  clearFaults,
  countEvents,
  createSvcHubClient,
  EventWaitTimeoutError,
  findEvents,
  listFaults,
  readClock,
  removeFault,
  resetHub,
  type SvcHubClient,
  SvcHubClientError,
  setClock,
  waitForEvents,
  waitForWork,
} from "./index.ts";

const root = resolve(import.meta.dir, "..");
const adminToken = "client-helpers-admin-token-0123456789";
let dataDir = "";
let server: SpawnedServer;
let hub: SvcHubClient;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "svc-hub-client-helpers-"));
  server = await spawnServer({
    root,
    dataDir,
    adminToken,
    env: { SVC_STORE: "memory", SVC_TIMING: "instant", SVC_LOG_LEVEL: "warn" },
  });
  hub = createSvcHubClient({ baseUrl: server.url, adminToken });
});

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const unique = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
const collect = async (query: string) => {
  const answer = await fetch(`${server.url}/event?svc_account=acme&svc_profile=main&${query}`);
  expect(answer.status).toBe(200);
};

/** The client under test: sends a request again on a 503, at most `tries` times in all; answers the tries made. */
async function sendWithRetry(url: string, tries = 10): Promise<{ status: number; tries: number }> {
  for (let attempt = 1; ; attempt += 1) {
    const answer = await fetch(url);
    await answer.arrayBuffer();
    if (answer.status !== 503 || attempt === tries) return { status: answer.status, tries: attempt };
  }
}

describe("issue 43: the client's fault helpers", () => {
  it("add, list, remove and clear faults; a refused fault is a SvcHubClientError", async () => {
    await clearFaults(hub);
    const added = await addFault(hub, { path: "/v1/login", status: 503, times: 2 });
    expect(added).toMatchObject({ path: "/v1/login", status: 503, remaining: 2 });
    await addFault(hub, { path: "/event", drop: true });
    expect((await listFaults(hub)).map((fault) => fault.id)).toEqual([added.id, expect.any(String)]);
    expect(await removeFault(hub, added.id)).toBe(true);
    expect(await removeFault(hub, added.id)).toBe(false);
    expect(await clearFaults(hub)).toBe(1);
    const refused = await addFault(hub, { path: "/admin/reset", status: 500 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SvcHubClientError);
    expect(refused).toMatchObject({ status: 400, body: { returnCode: 1400 } });
  });

  it("point 5: a retry loop gets through a 50% fault with a fixed seed, with the same tries in every run", async () => {
    const runs: number[][] = [];
    for (const _ of [1, 2]) {
      await clearFaults(hub);
      await addFault(hub, { path: "/event", status: 503, probability: 0.5, seed: 2026, times: 1000 });
      const tries: number[] = [];
      for (let request = 0; request < 8; request += 1) {
        const sent = await sendWithRetry(`${server.url}/event?svc_account=acme&svc_profile=main&tapid=retry`);
        expect(sent.status).toBe(200);
        tries.push(sent.tries);
      }
      runs.push(tries);
    }
    await clearFaults(hub);
    expect(runs[0]).toEqual(runs[1] as number[]);
    // Some requests got through at once, some only after a 503 or more: the fault did fail about half.
    expect(runs[0]?.some((tries) => tries === 1)).toBe(true);
    expect(runs[0]?.some((tries) => tries > 1)).toBe(true);
  });

  it("point 5: a cut body reaches a client over the network as its status, then an error reading the body", async () => {
    await addFault(hub, { path: "/event", status: 200, body: "x".repeat(64), malformed: "cut-body" });
    const answer = await fetch(`${server.url}/event?svc_account=acme&svc_profile=main&tapid=cut`);
    expect(answer.status).toBe(200);
    const read = await answer.text().then(
      () => "read",
      () => "failed",
    );
    expect(read).toBe("failed");
  });
});

describe("issue 43: the client's event helpers", () => {
  it("waits for events sent after the wait began, finds and counts them", async () => {
    const trace = unique("trace");
    const waiting = waitForEvents(hub, { traceId: trace, params: { step: "2" } }, { min: 1, timeoutMs: 60_000 });
    await collect(`svc_trace_id=${trace}&svc_event=checkout&step=1&tapid=${trace}`);
    await collect(`svc_trace_id=${trace}&svc_event=checkout&step=2&tapid=${trace}`);
    const found = await waiting;
    expect(found.map((event) => event.data.step)).toEqual(["2"]);
    expect(await countEvents(hub, { traceId: trace })).toBe(2);
    expect((await findEvents(hub, { traceId: trace, event: "checkout" }, 1)).map((event) => event.data.step)).toEqual([
      "1",
    ]);
  });

  it("a wait that times out throws EventWaitTimeoutError saying what it waited for and what it found", async () => {
    const trace = unique("trace");
    await collect(`svc_trace_id=${trace}&svc_event=signup&plan=free&tapid=${trace}`);
    const failed = await waitForEvents(hub, { traceId: trace, event: "signup" }, { min: 2, timeoutMs: 0 }).catch(
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(EventWaitTimeoutError);
    const message = (failed as Error).message;
    expect(message).toStartWith(
      `waited 0 ms for 2 event(s) matching {"traceId":"${trace}","event":"signup"}; 1 stored:`,
    );
    expect(message).toContain('signup {"svc_account":"acme"');
    expect(message).toContain('"plan":"free"');
  });
});

describe("issue 43: the client's clock, wait and reset helpers", () => {
  it("reads, advances and sets the clock; waits; resets, which empties the events and the faults", async () => {
    const before = await readClock(hub);
    const advanced = await advanceClock(hub, "1h");
    expect(Number(advanced.nowMs) - Number(before.nowMs)).toBeGreaterThanOrEqual(3_600_000);
    const target = new Date(Number(advanced.nowMs) + 86_400_000);
    // The virtual clock runs on from the time set.
    const set = Number((await setClock(hub, target)).nowMs) - target.getTime();
    expect(set >= 0 && set < 60_000).toBe(true);
    const backwards = await setClock(hub, 0).catch((error: unknown) => error);
    expect(backwards).toMatchObject({ status: 400 });
    expect((await waitForWork(hub, { timeoutMs: 30_000 })).complete).toBe(true);

    await collect(`svc_event=before-reset&tapid=${unique("v")}`);
    await addFault(hub, { path: "/v1/login", status: 503 });
    const reset = await resetHub(hub);
    expect(Number(reset.erased.events)).toBeGreaterThan(0);
    expect(await countEvents(hub)).toBe(0);
    expect(await listFaults(hub)).toEqual([]);
    expect(Number((await readClock(hub)).offsetMs)).toBeLessThan(60_000);
  });
});
