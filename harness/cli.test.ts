import { afterAll, describe, expect, it } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const cli = join(import.meta.dir, "cli.ts");
const suiteRoot = join(import.meta.dir, "..");
const invocation = mkdtempSync(join(tmpdir(), "svc-hub-cli-"));
/** svc-hub's own app in-process, by its absolute path (relative ones are taken from the invocation folder). */
const inProcess = ["--in-process", join(suiteRoot, "conformance", "implementations", "svc-hub", "in-process.ts")];
afterAll(() => rmSync(invocation, { recursive: true, force: true }));

/** Runs the CLI from the suite's checkout, as `npm --prefix <suite> run conformance` does, with INIT_CWD set by npm. */
function runCli(args: string[]) {
  const run = spawnSync(process.execPath, [cli, ...args], {
    cwd: suiteRoot,
    env: { ...process.env, INIT_CWD: invocation },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("the conformance command line", () => {
  it("refuses --runs below 1 (exit 2)", () => {
    const run = runCli([...inProcess, "--runs", "0"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--runs must be at least 1");
  });

  it("takes relative paths from where it was invoked, reads --expectations, and reports stale entries in report.json and junit.xml", () => {
    writeFileSync(
      join(invocation, "mine.json"),
      JSON.stringify({ implementation: "mine", expectedFailures: [{ scenario: "no such scenario", reason: "gone" }] }),
    );
    const run = runCli([
      ...inProcess,
      "--only",
      "DEC-GEN-05",
      "--expectations",
      "mine.json",
      "--report-dir",
      "out",
      "--compatibility",
      "docs/COMPAT.md",
    ]);
    expect(run.stdout).toContain('stale expectation: scenario "no such scenario" matches no scenario; remove it from');
    expect(run.code).toBe(1);
    const report = JSON.parse(readFileSync(join(invocation, "out", "report.json"), "utf8"));
    expect(report.implementation).toBe("mine");
    expect(report.staleExpectations).toEqual(['scenario "no such scenario" matches no scenario']);
    expect(report.summary.failed).toBe(1);
    expect(readFileSync(join(invocation, "out", "junit.xml"), "utf8")).toContain(
      '<testsuite name="expectations" tests="1" failures="1"',
    );
    const compatibility = readFileSync(join(invocation, "docs", "COMPAT.md"), "utf8");
    expect(compatibility).toMatch(/\| DEC-GEN-05 \| .* \| pass \|/);
    expect(compatibility).toMatch(/\| SES-01 \| .* \| 0 \| not run \|/);
    expect(existsSync(join(suiteRoot, "out"))).toBe(false);
  });

  it("refuses a --seed beyond 32 bits, which fast-check would silently cut down (exit 2)", () => {
    const run = runCli([...inProcess, "--seed", "4294967296"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--seed must be at most 4294967295, not 4294967296");
    expect(run.stdout).not.toContain("scenarios against");
  });

  it("refuses a --path that is not a counterexample path, and one without --only (exit 2)", () => {
    const bad = runCli([...inProcess, "--path", "abc", "--only", "SES-01"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      '--path takes a counterexample path of digits and colons such as 3:0:1, as a failure report gives it, not "abc"',
    );
    const alone = runCli([...inProcess, "--path", "3:0:1"]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("--path replays one property's counterexample: give its scenario with --only");
  });

  it("refuses a --path whose --only does not select exactly one property scenario (exit 2)", () => {
    const several = runCli([...inProcess, "--path", "0", "--only", "COL-09"]);
    expect(several.code).toBe(2);
    expect(several.stderr).toStartWith(
      "conformance: --path replays one property's counterexample: --only must select exactly one property scenario (by its whole title), not ",
    );
    const example = runCli([
      ...inProcess,
      "--path",
      "0",
      "--only",
      "[DEC-OPS-01] GET /healthz answers 200 while the process is up",
    ]);
    expect(example.code).toBe(2);
    expect(example.stderr).toContain(
      'not "[DEC-OPS-01] GET /healthz answers 200 while the process is up", which is not a property scenario',
    );
    expect(example.stdout).not.toContain("scenarios against");
  });

  it("stops with one line when the target does not answer, with or without an admin token (exit 2)", () => {
    for (const extra of [[], ["--admin-token", "any"]]) {
      const run = runCli([
        "--target",
        "http://127.0.0.1:9",
        ...extra,
        "--only",
        "DEC-GEN-05",
        "--report-dir",
        "out-down",
      ]);
      expect(run.code).toBe(2);
      expect(run.stderr).toStartWith(
        "conformance: the target does not answer: GET http://127.0.0.1:9/healthz failed (",
      );
      expect(run.stderr).toEndWith("); check --target and that the implementation is running\n");
      expect(run.stderr.trim().split("\n").length).toBe(1);
      expect(run.stdout).not.toContain("scenarios against");
    }
  });

  it("stops with one message when a fixture user's API key is refused, naming the target file's field (exit 2)", () => {
    writeFileSync(
      join(invocation, "wrong-key.json"),
      JSON.stringify({
        fixtures: { otherUser: { email: "globex@example.com", password: "globex-password-1", apiKey: "not-the-key" } },
      }),
    );
    const run = runCli([
      ...inProcess,
      "--target-file",
      "wrong-key.json",
      "--only",
      "DEC-GEN-05",
      "--report-dir",
      "out4",
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toStartWith(
      "conformance: the API key of the fixture user globex@example.com is refused: POST http://svc-hub.in-process/v2/auth answered 401",
    );
    expect(run.stderr).toContain('Set "fixtures.otherUser.apiKey" in a target file');
    expect(run.stdout).not.toContain("scenarios against");
  });

  it("refuses each --only value that selects no scenario, even when another one does (exit 2)", () => {
    const run = runCli([...inProcess, "--only", "ses-01", "--only", "SES-1O"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toStartWith(
      'conformance: --only "SES-1O" selects no scenario; give a clause or decision ID (SES-01), the start of one (DEC-GEN), an area (general, operations, session,',
    );
    expect(run.stdout).not.toContain("scenarios against");
  });

  it("refuses a --report-dir or --compatibility that cannot be written before any scenario runs: one line, exit 2", () => {
    writeFileSync(join(invocation, "a-file"), "not a folder");
    const reportDir = runCli([...inProcess, "--only", "DEC-GEN-05", "--report-dir", "a-file"]);
    expect(reportDir.code).toBe(2);
    expect(reportDir.stderr).toBe(
      `conformance: --report-dir ${join(invocation, "a-file")} cannot take the reports: it exists and is not a folder\n`,
    );
    expect(reportDir.stdout).toBe("");
    const nested = runCli([...inProcess, "--only", "DEC-GEN-05", "--report-dir", "a-file/out"]);
    expect(nested.code).toBe(2);
    expect(nested.stderr).toStartWith(
      `conformance: --report-dir ${join(invocation, "a-file", "out")} cannot take the reports: `,
    );
    expect(nested.stderr.trim().split("\n").length).toBe(1);
    const compatibility = runCli([
      ...inProcess,
      "--only",
      "DEC-GEN-05",
      "--report-dir",
      "out2",
      "--compatibility",
      ".",
    ]);
    expect(compatibility.code).toBe(2);
    expect(compatibility.stderr).toBe(
      `conformance: --compatibility ${invocation} cannot be written: it is a folder; give a file name, such as COMPATIBILITY.md\n`,
    );
    expect(compatibility.stdout).toBe("");
  });

  it("stops with one message when a fixture user cannot log in, before the scenarios of every area fail for it (exit 2)", () => {
    writeFileSync(
      join(invocation, "wrong-user.json"),
      JSON.stringify({
        fixtures: { user: { email: "demo@example.com", password: "not-the-password", apiKey: "demo-key-0001-acme" } },
      }),
    );
    const run = runCli([
      ...inProcess,
      "--target-file",
      "wrong-user.json",
      "--only",
      "DEC-GEN-05",
      "--report-dir",
      "out3",
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toStartWith(
      "conformance: the fixture user demo@example.com cannot log in: POST http://svc-hub.in-process/v1/login answered 401 application/json",
    );
    expect(run.stderr).toContain('"fixtures.user"');
    expect(run.stdout).not.toContain("scenarios against");
  });

  it("--help names the areas, what --only takes, what goes with --path, the modules and the capabilities", () => {
    const run = runCli(["--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "(general, operations, session, datalayer, collect, identity, revisions, moments, privacy, files)",
    );
    expect(run.stdout).toContain("or a scenario's whole title");
    expect(run.stdout).toContain("goes with --seed and with --only '<the scenario's whole title>'");
    expect(run.stdout).toContain("--in-process <module>   run without a socket against the fetch handler");
    expect(run.stdout).toContain("--scenarios <module>    the scenarios to run");
    for (const capability of ["test-clock", "event-log", "user-admin"])
      expect(run.stdout).toContain(`\n    ${capability}: `);
    expect(run.stdout).not.toContain("svc-hub-clock");
  });

  it("refuses --in-process without a module, and a module without a fetch handler (exit 2)", () => {
    const bare = runCli(["--in-process", "--only", "DEC-GEN-05"]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toStartWith(
      "conformance: --in-process takes the module that exports the implementation's fetch handler, such as conformance/implementations/svc-hub/in-process.ts",
    );
    writeFileSync(join(invocation, "no-fetch.ts"), "export const adminToken = 'x';\n");
    const noFetch = runCli(["--in-process", "no-fetch.ts", "--only", "DEC-GEN-05", "--report-dir", "out-no-fetch"]);
    expect(noFetch.code).toBe(2);
    expect(noFetch.stderr).toBe(
      `conformance: --in-process: ${join(invocation, "no-fetch.ts")} exports no fetch function, (request: Request) => Promise<Response>\n`,
    );
    const missing = runCli(["--in-process", "./nowhere.ts"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toStartWith(`conformance: --in-process: ${join(invocation, "nowhere.ts")} is not a file`);
  });

  it("runs the scenarios of a module of one's own against a fetch handler of one's own, both taken from the invocation folder", () => {
    writeFileSync(
      join(invocation, "my-scenarios.ts"),
      `import { defineScenarios, expectStatus } from ${JSON.stringify(join(suiteRoot, "harness", "index.ts"))};
export const allScenarios = defineScenarios("mine", [
  { title: "[OPS-01] the health check answers 200", async run({ base }) { expectStatus(await base.get("/healthz"), 200); } },
  { title: "[DEC-OPS-04] the wait answers 200", needs: ["admin"], async run({ base, adminHeaders }) { expectStatus(await base.post("/admin/wait", { headers: adminHeaders() }), 200); } },
  { title: "[DEC-OPS-02] the clock is read", needs: ["test-clock"], async run({ base, clockHeaders }) { expectStatus(await base.get("/admin/clock", { headers: clockHeaders() }), 200); } },
]);
`,
    );
    writeFileSync(
      join(invocation, "my-app.ts"),
      `let closed = false;
export default {
  adminToken: "mine",
  name: "my app",
  fetch(request: Request) {
    const { pathname } = new URL(request.url);
    if (pathname === "/admin/wait" && request.headers.get("authorization") === "Bearer mine") return Response.json({ complete: true });
    if (pathname === "/healthz") return Response.json({ status: "up" });
    return Response.json({ returnCode: 1404, message: "not here" }, { status: 404 });
  },
  close() { closed = true; console.log("closed:", closed); },
};
`,
    );
    const run = runCli(["--in-process", "my-app.ts", "--scenarios", "./my-scenarios.ts", "--report-dir", "out-mine"]);
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain(
      "conformance: 1 scenario(s) will be skipped: needs the capability test-clock, a test clock (GET and PUT /admin/clock",
    );
    expect(run.stdout).toContain("conformance: 3 of 3 scenarios against my app");
    expect(run.stdout).toContain("closed: true");
    expect(run.stdout).toEndWith("2 passed, 0 failed, 1 skipped\n");
    expect(run.code).toBe(0);
    const compatibility = readFileSync(join(invocation, "out-mine", "COMPATIBILITY.md"), "utf8");
    // Without a catalogue of its own, the IDs the scenarios name make the report's list.
    expect(compatibility).toMatch(/\| OPS-01 \| +\| 1 \| pass \|/);
    expect(compatibility).toMatch(/\| DEC-OPS-02 \| +\| 1 \| skip \|/);
    expect(compatibility).not.toContain("SES-01");
  });

  it("refuses a --scenarios module without allScenarios (exit 2)", () => {
    writeFileSync(join(invocation, "not-scenarios.ts"), "export const scenarios = [];\n");
    const run = runCli([...inProcess, "--scenarios", "not-scenarios.ts"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toStartWith(
      `conformance: --scenarios: ${join(invocation, "not-scenarios.ts")} exports no allScenarios (an array of the scenarios defineScenarios makes)`,
    );
  });
});
