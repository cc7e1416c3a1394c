/**
 * Issue 43, point 3 (a tracking plan): `svc-hub events` against a real server whose acme/main has a plan prints
 * each event's verdict and violations, and `--verdict` selects the valid, invalid or unjudged ones.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { configTextWithPlanOnAcmeMain } from "../testing/tracking-plan/demo-plan.ts";
import { environmentWithoutServerSettings } from "../tools/consumer-project.ts";
import { type CommandRun, runCommand } from "../tools/run-command.ts";
import { type SpawnedServer, spawnServer } from "../tools/spawn-server.ts";

const repository = resolve(import.meta.dir, "..");
const adminToken = "plan-test-admin-token-0123";
const folder = mkdtempSync(join(tmpdir(), "svc-plan-cli-"));
let server: SpawnedServer;

beforeAll(async () => {
  const demo = readFileSync(join(repository, "adapters", "config", "demo.config.json"), "utf8");
  writeFileSync(join(folder, "svc.config.json"), configTextWithPlanOnAcmeMain(demo));
  server = await spawnServer({
    root: repository,
    dataDir: join(folder, "data"),
    adminToken,
    baseEnv: environmentWithoutServerSettings(),
    env: { SVC_CONFIG: join(folder, "svc.config.json") },
    startTimeoutMs: 60_000,
  });
}, 90_000);

afterAll(async () => {
  await server?.stop();
  rmSync(folder, { recursive: true, force: true });
});

/** Runs `node bin/svc-hub.mjs` against the server. */
function svcHub(args: string[]): Promise<CommandRun> {
  return runCommand(["node", join(repository, "bin", "svc-hub.mjs"), ...args], {
    cwd: folder,
    env: { ...environmentWithoutServerSettings(), SVC_URL: server.url, SVC_ADMIN_TOKEN: adminToken },
  });
}

function linesOf(
  stdout: string,
): Array<{ event: string; verdict: string; violations: Array<Record<string, unknown>> }> {
  return stdout
    .trim()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line));
}

describe("svc-hub events with a tracking plan", () => {
  test("prints each event's verdict and violations, and --verdict selects them; GET and POST alike", async () => {
    const trace = "svc_trace_id=cli";
    const statuses = [
      (await fetch(`${server.url}/event?svc_account=acme&${trace}&svc_event=purchase&order_id=O-1`)).status,
      (await fetch(`${server.url}/event?svc_account=acme&${trace}&svc_event=purchase&order_id=nope`)).status,
      (
        await fetch(`${server.url}/event`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ svc_account: "acme", svc_trace_id: "cli", svc_event: "purchase", total: -1 }),
        })
      ).status,
      (await fetch(`${server.url}/event?svc_account=acme&svc_profile=dev&${trace}&svc_event=view`)).status,
    ];
    expect(statuses).toEqual([200, 200, 200, 200]);

    const all = await svcHub(["events", "--account", "acme"]);
    expect([all.code, all.stderr]).toEqual([0, ""]);
    expect(linesOf(all.stdout).map((event) => event.verdict)).toEqual(["valid", "invalid", "invalid", "none"]);

    const invalid = await svcHub(["events", "--account", "acme", "--verdict", "invalid"]);
    expect(invalid.code).toBe(0);
    expect(linesOf(invalid.stdout).map((event) => event.violations)).toEqual([
      [
        {
          parameter: "order_id",
          path: "/order_id",
          rule: "pattern",
          value: "nope",
          message: 'must match pattern "^O-[0-9]+$"',
        },
      ],
      [
        {
          parameter: "order_id",
          path: "/order_id",
          rule: "required",
          message: "must have required property 'order_id'",
        },
        { parameter: "total", path: "/total", rule: "minimum", value: -1, message: "must be >= 0" },
      ],
    ]);
    const none = await svcHub(["events", "--verdict", "none"]);
    expect(linesOf(none.stdout).map((event) => event.event)).toEqual(["view"]);
  }, 60_000);

  test("a --verdict other than valid, invalid or none exits 2 saying so", async () => {
    const refused = await svcHub(["events", "--verdict", "good"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--verdict takes valid, invalid or none, not "good"');
  });
});
