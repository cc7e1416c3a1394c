import { afterAll, describe, expect, it } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const cli = join(import.meta.dir, "cli.ts");
const suiteRoot = join(import.meta.dir, "..");
const invocation = mkdtempSync(join(tmpdir(), "svc-hub-cli-"));
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
    const run = runCli(["--in-process", "--runs", "0"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--runs must be at least 1");
  });

  it("takes relative paths from where it was invoked, reads --expectations, and reports stale entries in report.json and junit.xml", () => {
    writeFileSync(
      join(invocation, "mine.json"),
      JSON.stringify({ implementation: "mine", expectedFailures: [{ scenario: "no such scenario", reason: "gone" }] }),
    );
    const run = runCli([
      "--in-process",
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
    const run = runCli(["--in-process", "--seed", "4294967296"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--seed must be at most 4294967295, not 4294967296");
    expect(run.stdout).not.toContain("scenarios against");
  });

  it("refuses a --path that is not a counterexample path, and one without --only (exit 2)", () => {
    const bad = runCli(["--in-process", "--path", "abc", "--only", "SES-01"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      '--path takes a counterexample path of digits and colons such as 3:0:1, as a failure report gives it, not "abc"',
    );
    const alone = runCli(["--in-process", "--path", "3:0:1"]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("--path replays one property's counterexample: give its scenario with --only");
  });

  it("refuses a --path whose --only does not select exactly one property scenario (exit 2)", () => {
    const several = runCli(["--in-process", "--path", "0", "--only", "COL-09"]);
    expect(several.code).toBe(2);
    expect(several.stderr).toStartWith(
      "conformance: --path replays one property's counterexample: --only must select exactly one property scenario (by its whole title), not ",
    );
    const example = runCli([
      "--in-process",
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
      "--in-process",
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
    const run = runCli(["--in-process", "--only", "ses-01", "--only", "SES-1O"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toStartWith(
      'conformance: --only "SES-1O" selects no scenario; give a clause or decision ID (SES-01), the start of one (DEC-GEN), an area (general, operations, session,',
    );
    expect(run.stdout).not.toContain("scenarios against");
  });

  it("refuses a --report-dir or --compatibility that cannot be written before any scenario runs: one line, exit 2", () => {
    writeFileSync(join(invocation, "a-file"), "not a folder");
    const reportDir = runCli(["--in-process", "--only", "DEC-GEN-05", "--report-dir", "a-file"]);
    expect(reportDir.code).toBe(2);
    expect(reportDir.stderr).toBe(
      `conformance: --report-dir ${join(invocation, "a-file")} cannot take the reports: it exists and is not a folder\n`,
    );
    expect(reportDir.stdout).toBe("");
    const nested = runCli(["--in-process", "--only", "DEC-GEN-05", "--report-dir", "a-file/out"]);
    expect(nested.code).toBe(2);
    expect(nested.stderr).toStartWith(
      `conformance: --report-dir ${join(invocation, "a-file", "out")} cannot take the reports: `,
    );
    expect(nested.stderr.trim().split("\n").length).toBe(1);
    const compatibility = runCli([
      "--in-process",
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
      "--in-process",
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

  it("--help names the areas, what --only takes, what goes with --path and svc-hub's own admin routes", () => {
    const run = runCli(["--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "(general, operations, session, datalayer, collect, identity, revisions, moments, privacy, files)",
    );
    expect(run.stdout).toContain("or a scenario's whole title");
    expect(run.stdout).toContain("goes with --seed and with --only '<the scenario's whole title>'");
    expect(run.stdout).toContain(
      "svc-hub's own routes besides the admin routes of DEC-OPS-04: its virtual clock (/admin/clock) and\n  /admin/users, /admin/events, /admin/collect/stats",
    );
  });
});
