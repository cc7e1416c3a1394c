/**
 * Issue 43, point 3 (a tracking plan): good and bad events through GET and POST /event are answered alike and
 * stored with their verdict; the admin events query filters by verdict and shows the violations; the verdicts
 * are counted by event name. On the in-memory store, and on libSQL with the background thread that commits
 * (and so judges) the events, as main.ts runs it.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inProcessBase } from "../../harness/target.ts";
import { withPlanOnAcmeMain } from "../../testing/tracking-plan/demo-plan.ts";
import { loadConfigFile } from "../config/config.loader.ts";
import { demoConfigPath } from "../config/demo-config.ts";
import { openDemoService } from "../server/demo-service.ts";
import type { Service, StoreChoice } from "../server/service.ts";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function demoConfig() {
  const loaded = await loadConfigFile(demoConfigPath);
  if (!loaded.ok) throw new Error(loaded.error.format());
  return loaded.value;
}

const admin = { authorization: "Bearer test-admin-token" };

async function open(store: StoreChoice, backgroundThread = false): Promise<Service> {
  const service = await openDemoService({
    store,
    backgroundThread,
    config: withPlanOnAcmeMain(await demoConfig()),
    adminToken: "test-admin-token",
  });
  cleanups.push(() => service.close());
  service.start();
  return service;
}

const call = (service: Service, path: string, init: RequestInit = {}) =>
  service.app.handle(new Request(`${inProcessBase}${path}`, init));

interface EventView {
  event: string | null;
  traceId: string | null;
  verdict: string;
  violations: Array<Record<string, unknown>>;
}

async function eventsOf(service: Service, query: string): Promise<EventView[]> {
  const answer = await call(service, `/admin/events?account=acme&${query}`, { headers: admin });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { events: EventView[] }).events;
}

/** Sends the good and bad events of the plan by GET and POST; every answer must be the same 200. */
async function sendGoodAndBad(service: Service, run: string): Promise<void> {
  const get = (query: string, profile = "main") =>
    call(service, `/event?svc_account=acme&svc_profile=${profile}&svc_trace_id=${run}&${query}`);
  const post = (body: Record<string, unknown>) =>
    call(service, "/event", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ svc_account: "acme", svc_profile: "main", svc_trace_id: run, ...body }),
    });
  const answers = [
    await get("svc_event=purchase&order_id=O-1&page=%2Fcart"),
    await get("svc_event=purchase&order_id=X-1"),
    await post({ svc_event: "purchase", order_id: "O-2", total: 12.5 }),
    await post({ svc_event: "purchase", total: "12.5", page: 7 }),
    // acme/dev has no plan.
    await get("svc_event=view", "dev"),
  ];
  const seen = await Promise.all(
    answers.map(async (answer) => ({
      status: answer.status,
      body: await answer.text(),
      xError: answer.headers.get("x-error"),
    })),
  );
  // Validation observes, it never refuses: the good and the bad of each method are answered alike.
  const [goodGet, badGet, goodPost, badPost, unplanned] = seen;
  expect(goodGet?.status).toBe(200);
  expect(badGet).toEqual(goodGet!);
  expect(unplanned).toEqual(goodGet!);
  expect(goodPost?.status).toBe(200);
  expect(badPost).toEqual(goodPost!);
  expect((await call(service, "/admin/wait", { method: "POST", headers: admin })).status).toBe(200);
}

const cases: Array<[string, () => Promise<Service>]> = [
  ["memory", () => open({ kind: "memory" })],
  [
    "libSQL with the background thread",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "svc-plan-"));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      return open({ kind: "libsql", url: `file:${join(dir, "svc.db")}` }, true);
    },
  ],
];

describe.each(cases)("a tracking plan (%s)", (_name, opened) => {
  test("every stored event carries its verdict and violations, by GET and POST alike", async () => {
    const service = await opened();
    await sendGoodAndBad(service, "run-1");
    const events = await eventsOf(service, "traceId=run-1");
    expect(events.map((event) => event.verdict)).toEqual(["valid", "invalid", "valid", "invalid", "none"]);
    expect(events[0]?.violations).toEqual([]);
    expect(events[1]?.violations).toEqual([
      {
        parameter: "order_id",
        path: "/order_id",
        rule: "pattern",
        value: "X-1",
        message: 'must match pattern "^O-[0-9]+$"',
      },
    ]);
    expect(events[3]?.violations).toEqual([
      { parameter: "page", path: "/page", rule: "type", value: 7, message: "must be string" },
      { parameter: "order_id", path: "/order_id", rule: "required", message: "must have required property 'order_id'" },
      { parameter: "total", path: "/total", rule: "type", value: "12.5", message: "must be number" },
    ]);
  });

  test("the events query filters by verdict, and the verdicts are counted by event name", async () => {
    const service = await opened();
    await sendGoodAndBad(service, "run-2");
    for (const [verdict, expected] of [
      ["valid", 2],
      ["invalid", 2],
      ["none", 1],
    ] as const) {
      const found = await eventsOf(service, `verdict=${verdict}`);
      expect(found.map((event) => event.verdict)).toEqual(Array(expected).fill(verdict));
    }
    const counts = await call(service, "/admin/events/verdicts?account=acme", { headers: admin });
    expect(counts.status).toBe(200);
    expect(await counts.json()).toEqual({
      byEvent: [
        { event: "purchase", valid: 2, invalid: 2, none: 0 },
        { event: "view", valid: 0, invalid: 0, none: 1 },
      ],
      total: { valid: 2, invalid: 2, none: 1 },
    });
  });
});

describe("the verdict filter and counts, refused and guarded", () => {
  test("a verdict other than valid, invalid or none is 400 1400 naming it", async () => {
    const service = await open({ kind: "memory" });
    const answer = await call(service, "/admin/events?verdict=bad", { headers: admin });
    expect(answer.status).toBe(400);
    const body = (await answer.json()) as { returnCode: number; message: string };
    expect(body.returnCode).toBe(1400);
    expect(body.message).toContain("verdict");
  });

  test("the counts need the admin token", async () => {
    const service = await open({ kind: "memory" });
    expect((await call(service, "/admin/events/verdicts")).status).toBe(401);
  });

  test("a profile without a plan stores every event as none", async () => {
    const service = await open({ kind: "memory" });
    expect((await call(service, "/event?svc_account=acme&svc_profile=dev&svc_event=purchase")).status).toBe(200);
    await call(service, "/admin/wait", { method: "POST", headers: admin });
    const answer = await call(service, "/admin/events?account=acme&profile=dev", { headers: admin });
    const { events } = (await answer.json()) as { events: EventView[] };
    expect(events.map((event) => [event.verdict, event.violations])).toEqual([["none", []]]);
  });
});
