import { ScenarioFailure, ScenarioSkip } from "./client.ts";
import { createContext, type Scenario } from "./scenario.ts";
import type { Target } from "./target.ts";

/** pass and fail are the scenario's verdict; skip means it could not run here; error means it broke unexpectedly. */
export type Outcome = "pass" | "fail" | "skip" | "error";

export interface ScenarioResult {
  readonly title: string;
  readonly area: string;
  readonly clauses: readonly string[];
  readonly kind: Scenario["kind"];
  readonly outcome: Outcome;
  readonly durationMs: number;
  readonly message?: string;
}

export interface RunOptions {
  /** Run only scenarios naming this clause ID or area, or whose ID starts with it (`DLE`, `DEC-GEN`, `health`). */
  readonly only?: readonly string[];
  readonly timeoutMs?: number;
  readonly onResult?: (result: ScenarioResult) => void;
}

export function selectScenarios(scenarios: readonly Scenario[], only: readonly string[] | undefined): Scenario[] {
  if (!only || only.length === 0) return [...scenarios];
  return scenarios.filter((scenario) =>
    only.some((wanted) => scenario.area === wanted || scenario.clauses.some((id) => id === wanted || id.startsWith(`${wanted}-`))),
  );
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ScenarioFailure(`did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Runs the scenarios one after another (they share the target) and reports each as it ends. */
export async function runScenarios(scenarios: readonly Scenario[], target: Target, options: RunOptions = {}): Promise<ScenarioResult[]> {
  const runId = Date.now().toString(36);
  const context = createContext(target, runId);
  const results: ScenarioResult[] = [];
  for (const scenario of selectScenarios(scenarios, options.only)) {
    const started = performance.now();
    let outcome: Outcome = "pass";
    let message: string | undefined;
    if (scenario.needs.includes("admin") && !target.adminToken) {
      outcome = "skip";
      message = "needs the admin token of the target (--admin-token or SVC_ADMIN_TOKEN)";
    } else {
      try {
        await withTimeout(scenario.run(context), options.timeoutMs ?? 60_000);
      } catch (error) {
        if (error instanceof ScenarioSkip) outcome = "skip";
        else if (error instanceof ScenarioFailure) outcome = "fail";
        else outcome = "error";
        message = error instanceof Error ? (outcome === "error" ? `${error.name}: ${error.message}` : error.message) : String(error);
      }
    }
    const result: ScenarioResult = {
      title: scenario.title,
      area: scenario.area,
      clauses: scenario.clauses,
      kind: scenario.kind,
      outcome,
      durationMs: Math.round(performance.now() - started),
      ...(message === undefined ? {} : { message }),
    };
    results.push(result);
    options.onResult?.(result);
  }
  return results;
}

export interface Tally {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
}

/** Errors count as failures: the run is green only when every scenario that ran passed. */
export function tally(results: readonly ScenarioResult[]): Tally {
  return {
    passed: results.filter((result) => result.outcome === "pass").length,
    failed: results.filter((result) => result.outcome === "fail" || result.outcome === "error").length,
    skipped: results.filter((result) => result.outcome === "skip").length,
  };
}

/** The closing line CI reads: `N passed, N failed` with `, N skipped` when any. */
export function summaryLine(counts: Tally): string {
  return `${counts.passed} passed, ${counts.failed} failed${counts.skipped > 0 ? `, ${counts.skipped} skipped` : ""}`;
}

export function formatResult(result: ScenarioResult): string {
  const mark = { pass: "✓", fail: "✗", skip: "-", error: "!" }[result.outcome];
  const head = `${mark} ${result.title} (${result.durationMs} ms)`;
  return result.message ? `${head}\n    ${result.outcome}: ${result.message.replaceAll("\n", "\n    ")}` : head;
}
