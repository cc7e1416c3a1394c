/**
 * Issue 43, point 4: the client's helpers for the tracking plan's verdicts (point 3), against a real server whose
 * acme/main has a plan: good and bad events counted by event name, and a test's assertion that none is bad,
 * whose failure lists each violation.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { configTextWithPlanOnAcmeMain } from "../testing/tracking-plan/demo-plan.ts";
import { type SpawnedServer, spawnServer } from "../tools/spawn-server.ts";
import {
  countVerdicts,
  createSvcHubClient,
  expectValidEvents,
  type SvcHubClient,
  TrackingPlanViolationError,
  waitForEvents,
} from "./index.ts";

const root = resolve(import.meta.dir, "..");
const adminToken = "client-plan-admin-token-0123456789";
const folder = mkdtempSync(join(tmpdir(), "svc-hub-client-plan-"));
let server: SpawnedServer;
let hub: SvcHubClient;

beforeAll(async () => {
  const demo = readFileSync(join(root, "adapters", "config", "demo.config.json"), "utf8");
  writeFileSync(join(folder, "svc.config.json"), configTextWithPlanOnAcmeMain(demo));
  server = await spawnServer({
    root,
    dataDir: join(folder, "data"),
    adminToken,
    env: { SVC_CONFIG: join(folder, "svc.config.json"), SVC_TIMING: "instant", SVC_LOG_LEVEL: "warn" },
    startTimeoutMs: 60_000,
  });
  hub = createSvcHubClient({ baseUrl: server.url, adminToken });
}, 90_000);

afterAll(async () => {
  await server?.stop();
  rmSync(folder, { recursive: true, force: true });
});

async function collect(query: string): Promise<void> {
  expect((await fetch(`${server.url}/event?svc_account=acme&${query}`)).status).toBe(200);
}

describe("the tracking plan's helpers", () => {
  test("countVerdicts counts good and bad by event name; expectValidEvents passes while none is bad", async () => {
    await collect("svc_profile=main&svc_event=purchase&order_id=O-1&svc_trace_id=good");
    await collect("svc_profile=dev&svc_event=purchase&order_id=nope&svc_trace_id=good");
    await waitForEvents(hub, { traceId: "good" }, { min: 2 });

    const counts = await countVerdicts(hub, { account: "acme", profile: "main", event: "purchase" });
    expect(counts.byEvent).toEqual([{ event: "purchase", valid: 1, invalid: 0, none: 0 }]);
    // acme/dev has no plan: its event is judged by nothing, whatever it holds.
    expect((await countVerdicts(hub, { account: "acme", profile: "dev" })).total).toEqual({
      valid: 0,
      invalid: 0,
      none: 1,
    });
    expect((await expectValidEvents(hub, { account: "acme", profile: "main" })).total.valid).toBe(1);
  });

  test("expectValidEvents throws, listing each bad event's violations, once one breaks the plan", async () => {
    await collect("svc_profile=main&svc_event=purchase&order_id=nope&svc_trace_id=bad");
    await waitForEvents(hub, { traceId: "bad" });

    const failure = await expectValidEvents(hub, { account: "acme", profile: "main" }).catch((error) => error);
    expect(failure).toBeInstanceOf(TrackingPlanViolationError);
    const error = failure as TrackingPlanViolationError;
    expect(error.count).toBe(1);
    expect(error.invalid.map((event) => event.event)).toEqual(["purchase"]);
    expect(error.message).toStartWith(
      '1 event(s) matching {"account":"acme","profile":"main"} break the tracking plan:',
    );
    expect(error.message).toContain('order_id: must match pattern "^O-[0-9]+$" (pattern, was "nope")');
    expect((await countVerdicts(hub, { account: "acme", profile: "main" })).total).toEqual({
      valid: 1,
      invalid: 1,
      none: 0,
    });
  });
});
