import { describe, expect, it } from "bun:test";
import fc from "fast-check";
import { ScenarioFailure } from "./client.ts";
import { expectedFailureReason, staleExpectations, type Expectations } from "./expectations.ts";
import { checkProperty, type PropertyRecord } from "./property.ts";
import { buildCompatibilityMarkdown, buildJsonReport, buildJunitXml, clauseStatus, type RunInfo } from "./report.ts";
import { runScenarios, tally, type ScenarioResult } from "./runner.ts";
import { defineScenarios } from "./scenario.ts";
import { inProcessTarget } from "./target.ts";

const info: RunInfo = { target: "t", implementation: "x", suiteVersion: "0", startedAt: "2026-01-01T00:00:00.000Z", durationMs: 10, propertySeed: 1, propertyRuns: null };
const target = inProcessTarget({ handle: () => new Response("{}"), adminToken: null });

function result(outcome: ScenarioResult["outcome"], clauses: string[] = ["SES-01"], title = `${outcome} scenario`): ScenarioResult {
  return { title, area: "session", clauses, kind: "example", outcome, durationMs: 5, message: outcome === "pass" ? undefined : `why <${outcome}> & "so"` };
}

describe("outcomes and expectations", () => {
  const scenarios = defineScenarios("demo", [
    { title: "[SES-01] passes", run: async () => undefined },
    { title: "[SES-02] fails", run: async () => Promise.reject(new ScenarioFailure("no")) },
    { title: "[SES-03] breaks", run: async () => Promise.reject(new TypeError("fetch failed")) },
    { title: "[SES-04] needs admin", needs: ["admin"], run: async () => undefined },
  ]);

  it("without expectations: pass, fail, error and skip (with the reason)", async () => {
    const results = await runScenarios(scenarios, target);
    expect(results.map((entry) => entry.outcome)).toEqual(["pass", "fail", "error", "skip"]);
    expect(results[3]?.message).toContain("admin token");
    expect(tally(results)).toEqual({ passed: 1, failed: 2, skipped: 1 });
  });

  it("a listed failure is expected-fail (green); a listed pass is unexpected-pass (red); a listed error stays an error", async () => {
    const expectations: Expectations = {
      implementation: "x",
      expectedFailures: [
        { scenario: "[SES-02] fails", reason: "not built" },
        { clause: "SES-03", reason: "known bug" },
        { clause: "SES-01", reason: "stale" },
      ],
    };
    const results = await runScenarios(scenarios, target, { expectations });
    expect(results.map((entry) => entry.outcome)).toEqual(["unexpected-pass", "expected-fail", "error", "skip"]);
    expect(tally(results)).toEqual({ passed: 1, failed: 2, skipped: 1 });
    expect(expectedFailureReason(expectations, { title: "[SES-02] fails", clauses: ["SES-02"] })).toBe("not built");
  });

  it("an expectation that matches no scenario is stale", () => {
    const expectations: Expectations = { implementation: "x", expectedFailures: [{ scenario: "gone", reason: "r" }, { clause: "SES-02", reason: "r" }] };
    expect(staleExpectations(expectations, scenarios)).toEqual(['scenario "gone"']);
  });
});

describe("property runs", () => {
  it("record the seed and, on failure, the counterexample path that replays it", async () => {
    const records: PropertyRecord[] = [];
    const property = fc.property(fc.nat(), (n) => n < 50);
    await expect(checkProperty(property, { seed: 42, scenarioTitle: "[SES-09] it's a model" }, records, { numRuns: 200 })).rejects.toThrow(
      /replay: --seed 42 --path '[\d:]+' --only '\[SES-09\] it'\\''s a model'$/,
    );
    const failure = records[0];
    expect(failure?.failed).toBe(true);
    expect(failure?.seed).toBe(42);

    const replayed: PropertyRecord[] = [];
    await expect(checkProperty(property, { seed: 42, path: failure?.path ?? undefined }, replayed)).rejects.toThrow();
    expect(replayed[0]?.counterexample).toBe(failure?.counterexample);
  });

  it("--runs overrides the scenario's own count", async () => {
    const records: PropertyRecord[] = [];
    await checkProperty(fc.property(fc.nat(), () => true), { seed: 1, runs: 7 }, records, { numRuns: 500 });
    expect(records[0]).toMatchObject({ numRuns: 7, failed: false, path: null });
  });
});

describe("reports", () => {
  it("a clause passes when all its scenarios pass and fails when any fails", () => {
    expect(clauseStatus([])).toBe("not covered");
    expect(clauseStatus([result("pass"), result("pass")])).toBe("pass");
    expect(clauseStatus([result("pass"), result("error")])).toBe("fail");
    expect(clauseStatus([result("pass"), result("expected-fail")])).toBe("expected-fail");
    expect(clauseStatus([result("skip")])).toBe("skip");
  });

  it("a clause some of whose scenarios were skipped is partial, not pass; one named but not selected is not run", () => {
    expect(clauseStatus([result("pass"), result("skip")])).toBe("partial");
    expect(clauseStatus([], true)).toBe("not run");
    expect(clauseStatus([], false)).toBe("not covered");
    const catalogue = [
      { id: "SES-01", kind: "clause" as const, section: "Session (v1)", text: "Login" },
      { id: "SES-02", kind: "clause" as const, section: "Session (v1)", text: "Answer" },
      { id: "SES-03", kind: "clause" as const, section: "Session (v1)", text: "Cookie" },
    ];
    const markdown = buildCompatibilityMarkdown(info, [result("pass", ["SES-01"]), result("skip", ["SES-01"], "skipped")], catalogue, new Set(["SES-01", "SES-02"]));
    expect(markdown).toContain("| SES-01 | Login | 2 | partial (1 of 2 skipped) |");
    expect(markdown).toContain("| SES-02 | Answer | 0 | not run |");
    expect(markdown).toContain("| SES-03 | Cookie | 0 | not covered |");
    expect(markdown).toContain("Clauses: 2 of 3 covered, 0 passing, 1 partial, 1 not run");
  });

  it("stale expectation entries fail report.json's summary and appear as failing JUnit test cases", () => {
    const stale = ['scenario "gone"'];
    const report = buildJsonReport(info, [result("pass")], stale);
    expect(report.staleExpectations).toEqual(stale);
    expect(report.summary).toEqual({ passed: 1, failed: 1, skipped: 0 });
    const junit = buildJunitXml(info, [result("pass")], stale);
    expect(junit).toContain('tests="2" failures="1" errors="0"');
    expect(junit).toContain('<testsuite name="expectations" tests="1" failures="1"');
    expect(junit).toContain('name="scenario &quot;gone&quot;"');
  });

  it("COMPATIBILITY.md lists every ID of the catalogue with its status and holds no times", () => {
    const catalogue = [
      { id: "SES-01", kind: "clause" as const, section: "Session (v1)", text: "Login | form" },
      { id: "SES-02", kind: "clause" as const, section: "Session (v1)", text: "Answer" },
      { id: "DEC-SES-01", kind: "decision" as const, section: "Session", text: "Lockout" },
    ];
    const markdown = buildCompatibilityMarkdown(info, [result("pass", ["SES-01"]), result("fail", ["SES-01", "DEC-SES-01"], "other")], catalogue);
    expect(markdown).toContain("| SES-01 | Login \\| form | 2 | fail |");
    expect(markdown).toContain("| SES-02 | Answer | 0 | not covered |");
    expect(markdown).toContain("| DEC-SES-01 | Lockout | 1 | fail |");
    expect(markdown).toContain("Clauses: 1 of 2 covered, 0 passing");
    expect(markdown).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
  });

  it("JUnit XML escapes text and marks each outcome the way CI systems read it", () => {
    const junit = buildJunitXml(info, [result("pass"), result("fail"), result("error"), result("skip"), result("expected-fail"), result("unexpected-pass")]);
    expect(junit).toStartWith('<?xml version="1.0"');
    expect(junit).toContain('<testsuites name="svc-hub conformance against t" tests="6" failures="2" errors="1" skipped="1"');
    expect(junit).toContain("<skipped message=");
    expect(junit).toContain("why &lt;fail&gt; &amp; &quot;so&quot;");
    expect(junit).not.toContain('why <fail>');
  });
});
