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
  const run = spawnSync(process.execPath, [cli, ...args], { cwd: suiteRoot, env: { ...process.env, INIT_CWD: invocation }, encoding: "utf8", timeout: 60_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("the conformance command line", () => {
  it("refuses --runs below 1 (exit 2)", () => {
    const run = runCli(["--in-process", "--runs", "0"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--runs must be at least 1");
  });

  it("takes relative paths from where it was invoked, reads --expectations, and reports stale entries in report.json and junit.xml", () => {
    writeFileSync(join(invocation, "mine.json"), JSON.stringify({ implementation: "mine", expectedFailures: [{ scenario: "no such scenario", reason: "gone" }] }));
    const run = runCli(["--in-process", "--only", "DEC-GEN-05", "--expectations", "mine.json", "--report-dir", "out", "--compatibility", "docs/COMPAT.md"]);
    expect(run.stdout).toContain('stale expectation: scenario "no such scenario"');
    expect(run.code).toBe(1);
    const report = JSON.parse(readFileSync(join(invocation, "out", "report.json"), "utf8"));
    expect(report.implementation).toBe("mine");
    expect(report.staleExpectations).toEqual(['scenario "no such scenario"']);
    expect(report.summary.failed).toBe(1);
    expect(readFileSync(join(invocation, "out", "junit.xml"), "utf8")).toContain('<testsuite name="expectations" tests="1" failures="1"');
    const compatibility = readFileSync(join(invocation, "docs", "COMPAT.md"), "utf8");
    expect(compatibility).toMatch(/\| DEC-GEN-05 \| .* \| pass \|/);
    expect(compatibility).toMatch(/\| SES-01 \| .* \| 0 \| not run \|/);
    expect(existsSync(join(suiteRoot, "out"))).toBe(false);
  });
});
