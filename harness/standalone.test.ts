/**
 * The conformance suite as another implementer uses it: from a project that installed svc-hub (laid out as npm
 * would), against an implementation running in another process, reached only over HTTP. Here that target is
 * svc-hub's server behind a small proxy process of its own, on another port, which forwards every request
 * unchanged: the suite sees a URL, nothing of svc-hub's app. It runs through the package's command
 * (`npx svc-hub-conformance`, bin/svc-hub-conformance.mjs) with a target file written in the project, and through
 * its modules ("svc-hub/harness" with "svc-hub/conformance") from a script of the project.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { allScenarios } from "../conformance/index.ts";
import { consumerProjectCleanedBy, environmentWithoutServerSettings } from "../tools/consumer-project.ts";
import { runCommand } from "../tools/run-command.ts";
import { type SpawnedServer, spawnServer } from "../tools/spawn-server.ts";
import { selectScenarios } from "./runner.ts";

const repository = resolve(import.meta.dir, "..");
const cleanups: Array<() => unknown> = [];
const adminToken = `standalone-${crypto.randomUUID()}`;

/**
 * The proxy: every request forwarded to UPSTREAM as it came (method, path, query, headers but Host, body), every
 * answer passed back as it came (status, headers, body undecoded), one line per request on stdout.
 */
const proxySource = `
const upstream = process.env.UPSTREAM;
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 255,
  async fetch(request) {
    const url = new URL(request.url);
    const headers = new Headers(request.headers);
    headers.delete("host");
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
    if (body !== undefined) headers.delete("transfer-encoding");
    console.log(\`forward \${request.method} \${url.pathname}\`);
    return fetch(upstream + url.pathname + url.search, {
      method: request.method,
      headers,
      body,
      redirect: "manual",
      decompress: false,
    });
  },
});
console.log(\`proxy listening on \${server.url.href.replace(/\\/$/, "")}\`);
`;

/**
 * 22 scenarios that take every need of the suite (the admin routes of DEC-OPS-04, the test clock, the event log,
 * the user admin) and an optional fixture, in about 2 s; all 198 pass this way too, in about 20 s.
 */
const selections = ["operations", "SES-13", "DEC-AUT-02", "COL-14", "VID-03", "DEC-PRV-04", "MOM-05", "REV-02"];

let project: string;
let server: SpawnedServer;
let proxyUrl: string;
let proxyOutput = "";

/** Starts the proxy in front of `upstream` and resolves with its URL once it listens. */
async function startProxy(folder: string, upstream: string): Promise<string> {
  writeFileSync(join(folder, "proxy.ts"), proxySource);
  const child = Bun.spawn([process.execPath, join(folder, "proxy.ts")], {
    cwd: folder,
    env: { ...environmentWithoutServerSettings(), UPSTREAM: upstream },
    stdout: "pipe",
    stderr: "inherit",
  });
  cleanups.push(() => child.kill("SIGKILL"));
  let seen: (url: string) => void = () => undefined;
  const listening = new Promise<string>((resolveUrl) => (seen = resolveUrl));
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) {
      proxyOutput += decoder.decode(chunk, { stream: true });
      const match = /proxy listening on (\S+)/.exec(proxyOutput);
      if (match) seen(match[1] as string);
    }
  })();
  return Promise.race([
    listening,
    child.exited.then((code) => Promise.reject(new Error(`the proxy exited with ${code}: ${proxyOutput}`))),
  ]);
}

beforeAll(async () => {
  project = consumerProjectCleanedBy(cleanups);
  const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-standalone-"));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  server = await spawnServer({ root: repository, dataDir, adminToken });
  cleanups.push(() => server.stop());
  proxyUrl = await startProxy(project, server.url);
  // The target file of the project, as conformance/README.md has an implementer write one: where the
  // implementation is, its admin token, and the fixtures that differ from demo.md's (svc-hub's demo has the
  // optional attributes-only engine).
  writeFileSync(
    join(project, "target.json"),
    JSON.stringify({
      $schema: "./node_modules/svc-hub/conformance/target.schema.json",
      name: "svc-hub behind a proxy",
      base: proxyUrl,
      adminToken,
      fixtures: { engines: { attributesOnly: "demo-engine-attributes" } },
    }),
  );
}, 60_000);

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("the conformance suite, installed in another project, against an implementation in another process", () => {
  it("npx svc-hub-conformance with a target file runs the selected scenarios and reports every one passed", async () => {
    const expected = selectScenarios(allScenarios, selections);
    const { code, stdout, stderr } = await runCommand(
      [
        "node",
        join(project, "node_modules", ".bin", "svc-hub-conformance"),
        "--scenarios",
        "svc-hub/conformance",
        "--target-file",
        "target.json",
        "--impl",
        "svc-hub",
        ...selections.flatMap((selection) => ["--only", selection]),
        "--report-dir",
        "report",
      ],
      { cwd: project, env: environmentWithoutServerSettings() },
    );
    expect(stderr).toBe("");
    expect(stdout).toContain(
      `conformance: ${expected.length} of ${allScenarios.length} scenarios against svc-hub behind a proxy`,
    );
    expect(stdout).not.toContain("will be skipped");
    expect(stdout).toEndWith(`${expected.length} passed, 0 failed\n`);
    expect(code).toBe(0);

    const report = JSON.parse(readFileSync(join(project, "report", "report.json"), "utf8")) as {
      target: string;
      implementation: string;
      summary: { passed: number; failed: number; skipped: number };
      scenarios: Array<{ title: string; outcome: string }>;
    };
    expect(report.target).toBe("svc-hub behind a proxy");
    expect(report.implementation).toBe("svc-hub");
    expect(report.summary).toEqual({ passed: expected.length, failed: 0, skipped: 0 });
    expect(report.scenarios.map((scenario) => scenario.title)).toEqual(expected.map((scenario) => scenario.title));
    expect(report.scenarios.filter((scenario) => scenario.outcome !== "pass")).toEqual([]);
    // Every need of the suite was among them, so each capability was there and used through the proxy.
    const needs = new Set(expected.flatMap((scenario) => scenario.needs));
    expect([...needs].sort()).toEqual(["admin", "event-log", "test-clock", "user-admin"]);
    for (const request of [
      "GET /admin/clock",
      "POST /admin/clock/advance",
      "POST /admin/wait",
      "GET /admin/events",
      "POST /admin/users",
      "POST /v1/login",
      "GET /event",
    ])
      expect(proxyOutput).toContain(`forward ${request}\n`);
    expect(readFileSync(join(project, "report", "COMPATIBILITY.md"), "utf8")).toContain("# Compatibility of svc-hub");
  }, 180_000);

  it('a script of the project runs scenarios with "svc-hub/harness" and "svc-hub/conformance"', async () => {
    writeFileSync(
      join(project, "run.ts"),
      `import { fixturesOf, probeCapabilities, readTargetFile, runScenarios, selectScenarios, tally, urlTarget } from "svc-hub/harness";
import { allScenarios } from "svc-hub/conformance";

const file = readTargetFile("target.json");
const target = urlTarget({ base: file.base!, adminToken: file.adminToken ?? null, fixtures: fixturesOf(file), name: file.name });
const chosen = selectScenarios(allScenarios, ["DEC-OPS-02", "SES-13"]);
const capabilities = await probeCapabilities(target, chosen);
const results = await runScenarios(chosen, target, { capabilities });
console.log(JSON.stringify({ titles: results.map((result) => result.title), outcomes: results.map((result) => result.outcome), tally: tally(results) }));
`,
    );
    const { code, stdout, stderr } = await runCommand([process.execPath, "run.ts"], {
      cwd: project,
      env: environmentWithoutServerSettings(),
    });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const run = JSON.parse(stdout) as { titles: string[]; outcomes: string[]; tally: unknown };
    const expected = selectScenarios(allScenarios, ["DEC-OPS-02", "SES-13"]);
    expect(run.titles).toEqual(expected.map((scenario) => scenario.title));
    expect(run.outcomes.every((outcome) => outcome === "pass")).toBe(true);
    expect(run.tally).toEqual({ passed: expected.length, failed: 0, skipped: 0 });
  }, 60_000);
});
