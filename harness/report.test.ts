import { describe, expect, it } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { ScenarioFailure } from "./client.ts";
import {
  type Expectations,
  expectationsProblem,
  expectedFailureReason,
  loadExpectationsFile,
  staleExpectations,
} from "./expectations.ts";
import { checkProperty, type PropertyRecord } from "./property.ts";
import { buildCompatibilityMarkdown, buildJsonReport, buildJunitXml, clauseStatus, type RunInfo } from "./report.ts";
import { runScenarios, type ScenarioResult, tally } from "./runner.ts";
import { defineScenarios, type Scenario } from "./scenario.ts";
import { inProcessTarget } from "./target.ts";

const info: RunInfo = {
  target: "t",
  implementation: "x",
  suiteVersion: "0",
  startedAt: "2026-01-01T00:00:00.000Z",
  durationMs: 10,
  propertySeed: 1,
  propertyRuns: null,
};
const target = inProcessTarget({ handle: () => new Response("{}"), adminToken: null });

function result(
  outcome: ScenarioResult["outcome"],
  clauses: string[] = ["SES-01"],
  title = `${outcome} scenario`,
): ScenarioResult {
  return {
    title,
    area: "session",
    clauses,
    kind: "example",
    outcome,
    durationMs: 5,
    message: outcome === "pass" ? undefined : `why <${outcome}> & "so"`,
  };
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
        { scenario: "[SES-01] passes", reason: "stale" },
      ],
    };
    const results = await runScenarios(scenarios, target, { expectations });
    expect(results.map((entry) => entry.outcome)).toEqual(["unexpected-pass", "expected-fail", "error", "skip"]);
    expect(tally(results)).toEqual({ passed: 1, failed: 2, skipped: 1 });
    expect(expectedFailureReason(expectations, { title: "[SES-02] fails", clauses: ["SES-02"] })).toBe("not built");
  });

  it("an expectation that matches no scenario is stale", () => {
    const expectations: Expectations = {
      implementation: "x",
      expectedFailures: [
        { scenario: "gone", reason: "r" },
        { clause: "SES-02", reason: "r" },
        { clause: "LIM-01", reason: "r" },
      ],
    };
    expect(staleExpectations(expectations, scenarios)).toEqual([
      'scenario "gone" matches no scenario',
      "clause LIM-01 matches no scenario",
    ]);
  });

  describe("a clause entry, for a clause with several scenarios", () => {
    const clauseScenarios = defineScenarios("demo", [
      { title: "[SES-09] the part that works", run: async () => undefined },
      { title: "[SES-09] the part not built yet", run: async () => Promise.reject(new ScenarioFailure("no lockout")) },
      { title: "[SES-09, SES-10] another part that works", run: async () => undefined },
    ]);
    const expectations: Expectations = {
      implementation: "x",
      expectedFailures: [{ clause: "SES-09", reason: "lockout not built" }],
    };

    it("makes the failing scenarios expected-fail and leaves the passing ones pass, so the run is green", async () => {
      const results = await runScenarios(clauseScenarios, target, { expectations });
      expect(results.map((entry) => entry.outcome)).toEqual(["pass", "expected-fail", "pass"]);
      expect(tally(results)).toEqual({ passed: 3, failed: 0, skipped: 0 });
      expect(staleExpectations(expectations, clauseScenarios, results)).toEqual([]);
    });

    it("is stale once none of its scenarios fails, and not when a run left some out or skipped them", async () => {
      const fixed = clauseScenarios.map((scenario) => ({ ...scenario, run: async () => undefined }));
      const results = await runScenarios(fixed, target, { expectations });
      expect(results.map((entry) => entry.outcome)).toEqual(["pass", "pass", "pass"]);
      expect(staleExpectations(expectations, fixed, results)).toEqual(["clause SES-09: all 3 of its scenarios passed"]);
      const narrowed = await runScenarios(fixed, target, { expectations, only: ["SES-10"] });
      expect(staleExpectations(expectations, fixed, narrowed)).toEqual([]);
    });

    it("gives way to an entry naming the scenario's title, which makes its pass unexpected", async () => {
      const both: Expectations = {
        implementation: "x",
        expectedFailures: [
          ...expectations.expectedFailures,
          { scenario: "[SES-09] the part that works", reason: "listed by title" },
        ],
      };
      const results = await runScenarios(clauseScenarios, target, { expectations: both });
      expect(results.map((entry) => entry.outcome)).toEqual(["unexpected-pass", "expected-fail", "pass"]);
      expect(results[0]?.message).toContain("listed by title");
    });
  });
});

describe("an expectations file", () => {
  it('that is wrong says what is missing or allowed, not "Expected union value"', () => {
    const file = (entry: unknown) => ({ implementation: "x", expectedFailures: [entry] });
    expect(expectationsProblem(file({ clause: "SES-01" }))).toStartWith(
      '/expectedFailures/0: missing "reason" (a non-empty string saying why it fails)',
    );
    expect(expectationsProblem(file({ reason: "r" }))).toStartWith(
      '/expectedFailures/0: missing "scenario" or "clause"',
    );
    expect(expectationsProblem(file({ clause: "SES-01", scenario: "t", reason: "r" }))).toStartWith(
      '/expectedFailures/0: give either "scenario" or "clause", not both',
    );
    expect(expectationsProblem(file({ clause: "SES-01", reason: "r", why: "x" }))).toStartWith(
      "/expectedFailures/0: unknown property why",
    );
    expect(expectationsProblem(file({ clause: "", reason: "r" }))).toStartWith(
      "/expectedFailures/0/clause: must be a non-empty string",
    );
    expect(expectationsProblem(file({ clause: "SES-01", reason: "" }))).toStartWith(
      "/expectedFailures/0/reason: must be a non-empty string",
    );
    expect(expectationsProblem({ expectedFailures: [] })).toStartWith("/implementation: must be a string");
    expect(expectationsProblem(file({ clause: "SES-01", reason: "r" }))).toBeNull();
    for (const entry of [{ clause: "SES-01" }, { reason: "r" }, "SES-01"])
      expect(expectationsProblem(file(entry))).toContain(
        '{"clause": "<clause or decision ID>", "reason": "<why it fails>"}',
      );
  });

  it("is refused with the file's name and the problem", () => {
    const path = join(mkdtempSync(join(tmpdir(), "svc-hub-expectations-")), "mine.json");
    writeFileSync(path, JSON.stringify({ implementation: "x", expectedFailures: [{ clause: "SES-01" }] }));
    expect(() => loadExpectationsFile(path)).toThrow(`${path}: /expectedFailures/0: missing "reason"`);
  });
});

describe("property runs", () => {
  it("record the seed and, on failure, the counterexample path that replays it", async () => {
    const records: PropertyRecord[] = [];
    const property = fc.property(fc.nat(), (n) => n < 50);
    await expect(
      checkProperty(property, { seed: 42, scenarioTitle: "[SES-09] it's a model" }, records, { numRuns: 200 }),
    ).rejects.toThrow(/replay: --seed 42 --path '[\d:]+' --only '\[SES-09\] it'\\''s a model'$/);
    const failure = records[0];
    expect(failure?.failed).toBe(true);
    expect(failure?.seed).toBe(42);

    const replayed: PropertyRecord[] = [];
    await expect(checkProperty(property, { seed: 42, path: failure?.path ?? undefined }, replayed)).rejects.toThrow();
    expect(replayed[0]?.counterexample).toBe(failure?.counterexample);
  });

  it("--runs overrides the scenario's own count", async () => {
    const records: PropertyRecord[] = [];
    await checkProperty(
      fc.property(fc.nat(), () => true),
      { seed: 1, runs: 7 },
      records,
      { numRuns: 500 },
    );
    expect(records[0]).toMatchObject({ numRuns: 7, failed: false, path: null });
  });

  const propertyScenarios = (run: (n: number, ctx: Parameters<Scenario["run"]>[0]) => Promise<void>) =>
    defineScenarios("demo", [
      {
        title: "[SES-09] a property",
        kind: "property",
        run: (ctx) =>
          ctx.checkProperty(
            fc.asyncProperty(fc.nat(), (n) => run(n, ctx)),
            { numRuns: 20 },
          ),
      },
    ]);

  it("a target that does not answer makes a property an error, after one case, never a failure an expectation could turn into expected-fail", async () => {
    let asked = 0;
    const refusing = inProcessTarget({
      adminToken: null,
      handle: () => {
        asked += 1;
        return Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:1"));
      },
    });
    const scenarios = propertyScenarios(async (n, ctx) => void (await ctx.base.get("/thing", { query: { n } })));
    const expectations: Expectations = {
      implementation: "x",
      expectedFailures: [{ clause: "SES-09", reason: "listed" }],
    };
    const [result] = await runScenarios(scenarios, refusing, { expectations });
    expect(result?.outcome).toBe("error");
    expect(result?.message).toStartWith("TargetDidNotAnswer: GET /thing?n=");
    expect(result?.message).toContain("did not answer: connect ECONNREFUSED 127.0.0.1:1");
    expect(result?.message).not.toContain("property failed");
    expect(asked).toBe(1);
  });

  it("a skip inside a property skips the scenario, with its reason", async () => {
    const [result] = await runScenarios(
      propertyScenarios(async (_, ctx) => void ctx.adminHeaders()),
      target,
    );
    expect(result?.outcome).toBe("skip");
    expect(result?.message).toContain("needs the admin token");
  });

  it("a failure found before the target stopped answering is still the failure, saying shrinking stopped", async () => {
    let calls = 0;
    const [result] = await runScenarios(
      propertyScenarios(async () => {
        calls += 1;
        if (calls === 1) throw new ScenarioFailure("first case wrong");
        throw new TypeError("fetch failed");
      }),
      target,
    );
    expect(result?.outcome).toBe("fail");
    expect(result?.message).toContain("first case wrong\n(shrinking stopped: TypeError: fetch failed)");
  });

  it("a property that ran no case is an error, not a pass: no runs, or a --path naming no case", async () => {
    const [result] = await runScenarios(
      propertyScenarios(async () => undefined),
      target,
      { property: { runs: 0 } },
    );
    expect(result?.outcome).toBe("error");
    expect(result?.message).toStartWith("PropertyRanNoCase: the property ran no case");
    const [replayed] = await runScenarios(
      propertyScenarios(async () => undefined),
      target,
      { property: { path: "0:999" } },
    );
    expect(replayed?.outcome).toBe("error");
    expect(replayed?.message).toContain("--path 0:999: it names no case of this property");
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
    const markdown = buildCompatibilityMarkdown(
      info,
      [result("pass", ["SES-01"]), result("skip", ["SES-01"], "skipped")],
      catalogue,
      new Set(["SES-01", "SES-02"]),
    );
    expect(markdown).toContain("| SES-01 | Login | 2 | partial (1 of 2 skipped) |");
    expect(markdown).toContain("| SES-02 | Answer | 0 | not run |");
    expect(markdown).toContain("| SES-03 | Cookie | 0 | not covered |");
    expect(markdown).toContain("Clauses: 2 of 3 covered, 0 passing, 0 failing, 1 partial, 0 skipped, 1 not run");
  });

  it("stale expectation entries fail report.json's summary and appear as failing JUnit test cases", () => {
    const stale = ['scenario "gone" matches no scenario'];
    const report = buildJsonReport(info, [result("pass")], stale);
    expect(report.staleExpectations).toEqual(stale);
    expect(report.summary).toEqual({ passed: 1, failed: 1, skipped: 0 });
    const junit = buildJunitXml(info, [result("pass")], stale);
    expect(junit).toContain('tests="2" failures="1" errors="0"');
    expect(junit).toContain('<testsuite name="expectations" tests="1" failures="1"');
    expect(junit).toContain('name="scenario &quot;gone&quot; matches no scenario"');
    expect(junit).toContain(
      "stale expectation: scenario &quot;gone&quot; matches no scenario; remove it from the expectations file",
    );
  });

  it("COMPATIBILITY.md lists every ID of the catalogue with its status and holds no times", () => {
    const catalogue = [
      { id: "SES-01", kind: "clause" as const, section: "Session (v1)", text: "Login | form" },
      { id: "SES-02", kind: "clause" as const, section: "Session (v1)", text: "Answer" },
      { id: "DEC-SES-01", kind: "decision" as const, section: "Session", text: "Lockout" },
    ];
    const markdown = buildCompatibilityMarkdown(
      info,
      [result("pass", ["SES-01"]), result("fail", ["SES-01", "DEC-SES-01"], "other")],
      catalogue,
    );
    expect(markdown).toContain("| SES-01 | Login \\| form | 2 | fail |");
    expect(markdown).toContain("| SES-02 | Answer | 0 | not covered |");
    expect(markdown).toContain("| DEC-SES-01 | Lockout | 1 | fail |");
    expect(markdown).toContain("Clauses: 1 of 2 covered, 0 passing");
    expect(markdown).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
  });

  it("COMPATIBILITY.md says how it was made in words true of any implementation, and counts failing and skipped", () => {
    const catalogue = [
      { id: "SES-01", kind: "clause" as const, section: "Session (v1)", text: "Login" },
      { id: "SES-02", kind: "clause" as const, section: "Session (v1)", text: "Answer" },
      { id: "SES-03", kind: "clause" as const, section: "Session (v1)", text: "Cookie" },
      { id: "DEC-SES-01", kind: "decision" as const, section: "Session", text: "Lockout" },
    ];
    const results = [
      result("pass", ["SES-01"]),
      result("fail", ["SES-02"], "broken"),
      result("skip", ["SES-03", "DEC-SES-01"], "skipped"),
    ];
    const markdown = buildCompatibilityMarkdown(
      { target: "http://127.0.0.1:9999", implementation: "theirs", suiteVersion: "1.2.3" },
      results,
      catalogue,
    );
    expect(markdown).not.toContain("npm test");
    expect(markdown).toContain(
      "Generated by the svc-hub conformance suite 1.2.3 from its run against this implementation",
    );
    expect(markdown).toContain("- Clauses: 3 of 3 covered, 1 passing, 1 failing, 1 skipped.");
    expect(markdown).toContain("- Decisions: 1 of 1 covered, 0 passing, 0 failing, 1 skipped.");
  });

  it("JUnit XML escapes text and marks each outcome the way CI systems read it", () => {
    const junit = buildJunitXml(info, [
      result("pass"),
      result("fail"),
      result("error"),
      result("skip"),
      result("expected-fail"),
      result("unexpected-pass"),
    ]);
    expect(junit).toStartWith('<?xml version="1.0"');
    expect(junit).toContain(
      '<testsuites name="svc-hub conformance against t" tests="6" failures="2" errors="1" skipped="1"',
    );
    expect(junit).toContain("<skipped message=");
    expect(junit).toContain("why &lt;fail&gt; &amp; &quot;so&quot;");
    expect(junit).not.toContain("why <fail>");
  });
});
