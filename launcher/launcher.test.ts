/**
 * startSvcHub as a project that installed svc-hub uses it: imported by package name from a test setup that
 * runs under Node (vitest, jest) or under Bun (bun test).
 */
import { afterEach, describe, expect, it } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type SvcHub, SvcHubStartError, startSvcHub } from "svc-hub/launcher";
import { consumerProjectCleanedBy, environmentWithoutServerSettings } from "../tools/consumer-project.ts";
import { runCommand } from "../tools/run-command.ts";

const repository = resolve(import.meta.dir, "..");
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const consumerProject = () => consumerProjectCleanedBy(cleanups);

/** Runs `script` with the `node` of the PATH in `folder`, as a test setup of that project runs, and parses the JSON line it prints last. */
async function runUnderNode(
  folder: string,
  script: string,
  env: Record<string, string> = {},
): Promise<{ code: number; result: Record<string, unknown>; stderr: string }> {
  writeFileSync(join(folder, "setup.mjs"), script);
  const { code, stdout, stderr } = await runCommand(["node", "setup.mjs"], {
    cwd: folder,
    env: { ...environmentWithoutServerSettings(), ...env },
    killAfterMs: 20_000,
  });
  const last = stdout.trim().split("\n").at(-1) ?? "";
  return { code, result: last.startsWith("{") ? (JSON.parse(last) as Record<string, unknown>) : { stdout }, stderr };
}

/** Whether anything still answers at `url` (a stopped server's port refuses the connection). */
const answers = (url: string) =>
  fetch(`${url}/healthz`).then(
    () => true,
    () => false,
  );

const browser = "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0";

describe("startSvcHub (svc-hub/launcher)", () => {
  it("under Node: starts the server on a free port, its API and admin calls answer, reset erases, stop exits 0 and removes the data directory it made", async () => {
    const folder = consumerProject();
    const script = `
      import { existsSync } from "node:fs";
      import { startSvcHub } from "svc-hub/launcher";
      const hub = await startSvcHub({ timing: "instant" });
      const health = await fetch(hub.url + "/healthz");
      const dataDirWhileRunning = existsSync(hub.dataDir);
      // Something for the reset to erase: an event, applied once the wait returns.
      const event = await fetch(hub.url + "/event", {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": ${JSON.stringify(browser)} },
        body: JSON.stringify({ svc_account: "acme", svc_profile: "main", event_name: "purchase" }),
      });
      const waited = await hub.wait({ timeoutMs: 5000 });
      const reset = await hub.reset();
      const code = await hub.stop();
      const closed = await fetch(hub.url + "/healthz").then(() => false, () => true);
      console.log(JSON.stringify({ node: process.version, url: hub.url, adminToken: hub.adminToken, pid: hub.pid, health: health.status,
        event: event.status, waited, reset, dataDirWhileRunning, dataDirAfter: existsSync(hub.dataDir), code, closed }));
    `;
    // The caller's own server settings are not the launched server's: each of these would stop its start.
    const { code, result, stderr } = await runUnderNode(folder, script, {
      PORT: "1",
      SVC_STORE: "bogus",
      SVC_CONFIG: "/nonexistent.yaml",
      INIT_CWD: "/nonexistent",
    });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(Number(/^v(\d+)\./.exec(String(result.node))?.[1])).toBeGreaterThanOrEqual(20);
    expect(result).toMatchObject({
      health: 200,
      event: 200,
      dataDirWhileRunning: true,
      dataDirAfter: false,
      code: 0,
      closed: true,
    });
    expect(result.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(result.adminToken).toMatch(/^[\w-]{32}$/);
    expect(result.pid).toBeGreaterThan(0);
    expect(result.waited).toMatchObject({ complete: true, nextDueAt: null });
    expect(result.reset).toMatchObject({ erased: { events: 1 }, configuration: { accounts: 2 } });
  }, 30_000);

  it("under Node: a configuration the server refuses rejects with its message and exit code 2, leaving no data directory", async () => {
    const folder = consumerProject();
    writeFileSync(
      join(folder, "bad.yaml"),
      [
        "accounts:",
        "  - name: acme",
        "    profiles:",
        "      - name: main",
        "users:",
        "  - email: not-an-address",
        "    password: { env: SOME_PASSWORD }",
        "",
      ].join("\n"),
    );
    const temp = join(folder, "tmp");
    mkdirSync(temp);
    const script = `
      import { readdirSync } from "node:fs";
      import { startSvcHub, SvcHubStartError } from "svc-hub/launcher";
      try {
        await startSvcHub({ config: "bad.yaml" });
        console.log(JSON.stringify({ started: true }));
      } catch (error) {
        console.log(JSON.stringify({ startError: error instanceof SvcHubStartError, exitCode: error.exitCode, message: error.message, output: error.output, left: readdirSync(process.env.TMPDIR) }));
      }
    `;
    const { code, result } = await runUnderNode(folder, script, { TMPDIR: temp });
    expect(code).toBe(0);
    expect(result).toMatchObject({ startError: true, exitCode: 2, left: [] });
    // The relative path is read from the working directory, and the server's own words come through.
    expect(result.output).toContain(
      `${join(folder, "bad.yaml")}: /users/0/email: must be an e-mail address (found "not-an-address")`,
    );
    expect(result.message).toStartWith(
      "svc-hub exited with code 2 before listening:\nsvc-hub: the configuration is not valid, nothing was started:",
    );
  }, 30_000);

  it("under Node: a script that never calls stop() still ends, and the server stops with it", async () => {
    const folder = consumerProject();
    const script = `
      import { startSvcHub } from "svc-hub/launcher";
      // error: the server writes nothing while it is asked below, so a closed pipe cannot be what stops it.
      const hub = await startSvcHub({ store: "memory", dataDir: "data", logLevel: "error" });
      console.log(JSON.stringify({ url: hub.url, pid: hub.pid, health: (await fetch(hub.url + "/healthz")).status }));
    `;
    const started = Date.now();
    const { code, result } = await runUnderNode(folder, script);
    // Should it be left running, this test stops it (by its own pid, only while it still answers).
    cleanups.push(async () =>
      result.url && (await answers(String(result.url))) ? process.kill(Number(result.pid), "SIGKILL") : undefined,
    );
    expect(code).toBe(0);
    expect(result.health).toBe(200);
    // Not held open by the server (its clean stop takes a few milliseconds, not the 20 s of runUnderNode).
    expect(Date.now() - started).toBeLessThan(10_000);
    const url = String(result.url);
    for (let tries = 0; tries < 50 && (await answers(url)); tries++) await Bun.sleep(100);
    expect(await answers(url)).toBe(false);
    // A data directory it was given is the caller's, and stays.
    expect(existsSync(join(folder, "data", "inbox"))).toBe(true);
  }, 30_000);

  it("under Bun: the options become the server's settings (memory store, instant timing, the admin token given, warn log level)", async () => {
    const hub: SvcHub = await startSvcHub({
      store: "memory",
      timing: "instant",
      adminToken: "launcher-test-token-0123",
      logLevel: "warn",
    });
    cleanups.push(() => hub.stop());
    expect(hub.adminToken).toBe("launcher-test-token-0123");
    expect(await (await fetch(`${hub.url}/readyz`)).json()).toMatchObject({ status: "ready", store: "memory" });
    expect(
      (await fetch(`${hub.url}/admin/clock`, { headers: { authorization: "Bearer launcher-test-token-0123" } })).status,
    ).toBe(200);
    expect(await hub.wait()).toMatchObject({ complete: true });
    expect(await hub.reset()).toMatchObject({ configuration: { accounts: 2 } });
    // An answer other than 200 rejects, with the server's reason.
    await expect(hub.wait({ timeoutMs: -1 })).rejects.toThrow("POST /admin/wait answered 400");
    // With warn, the log has no listening line: the URL came from the banner; no line per request either.
    expect(hub.output()).toContain(`is listening on ${hub.url}`);
    expect(hub.output()).toContain("timing:      instant");
    expect(hub.output()).not.toContain('"msg":"request"');
    const stopping = hub.stop();
    expect(hub.stop()).toBe(stopping);
    expect(await stopping).toBe(0);
    expect(existsSync(hub.dataDir)).toBe(false);
    expect(await answers(hub.url)).toBe(false);
  }, 30_000);

  it("under Bun: a server that has not listened within startTimeoutMs is killed and the start rejected", async () => {
    const failed = await startSvcHub({ startTimeoutMs: 1 }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(SvcHubStartError);
    expect((failed as SvcHubStartError).message).toStartWith("svc-hub did not listen within 1 ms");
  }, 30_000);

  it("issue 33, in vitest under Node: the global setup svc-hub/launcher/vitest provides a running hub's url and token, `await using` stops a hub when its block ends, and the run stops the setup's hub", async () => {
    const folder = consumerProject();
    symlinkSync(join(repository, "node_modules", "vitest"), join(folder, "node_modules", "vitest"), "dir");
    writeFileSync(
      join(folder, "vitest.config.mjs"),
      'export default { test: { globalSetup: ["svc-hub/launcher/vitest"], include: ["hub.test.ts"] } };\n',
    );
    writeFileSync(
      join(folder, "hub.test.ts"),
      `
      import { writeFileSync } from "node:fs";
      import { startSvcHub } from "svc-hub/launcher";
      import { expect, inject, test } from "vitest";

      test("the global setup's hub answers, with its admin token", async () => {
        const url = inject("svcHubUrl");
        writeFileSync("provided-url", url);
        const accounts = await fetch(url + "/admin/accounts", {
          headers: { authorization: "Bearer " + inject("svcHubAdminToken") },
        });
        expect(accounts.status).toBe(200);
      });

      test("await using: the hub is stopped once the block ends", async () => {
        let url = "";
        {
          await using hub = await startSvcHub({ store: "memory", logLevel: "warn" });
          url = hub.url;
          expect((await fetch(url + "/healthz")).status).toBe(200);
        }
        await expect(fetch(url + "/healthz")).rejects.toThrow();
      });
      `,
    );
    const { code, stdout, stderr } = await runCommand(["node", join("node_modules", "vitest", "vitest.mjs"), "run"], {
      cwd: folder,
      env: { ...environmentWithoutServerSettings(), NO_COLOR: "1", CI: "1" },
      killAfterMs: 60_000,
    });
    expect({ code, stdout, stderr }).toMatchObject({ code: 0, stdout: expect.stringMatching(/Tests\s+2 passed/) });
    const provided = readFileSync(join(folder, "provided-url"), "utf8");
    expect(provided).toStartWith("http://127.0.0.1:");
    expect(await answers(provided)).toBe(false);
  }, 90_000);
});
