import { ScenarioFailure, ScenarioSkip } from "./client.ts";
import { expectedFailureReason, type Expectations } from "./expectations.ts";
import { defaultPropertySeed, type PropertyRecord, type PropertySettings } from "./property.ts";
import { createContext, type Scenario } from "./scenario.ts";
import type { Target } from "./target.ts";

/**
 * pass and fail are the scenario's verdict; expected-fail and unexpected-pass are those verdicts for a
 * scenario the implementation's expectations list as failing; skip means it could not run here (with the
 * reason); error means it broke unexpectedly (for example the target did not answer, or the scenario did not
 * end within its time limit). An expectation turns fail into expected-fail, never error.
 */
export type Outcome = "pass" | "fail" | "expected-fail" | "unexpected-pass" | "skip" | "error";

export interface ScenarioResult {
  readonly title: string;
  readonly area: string;
  readonly clauses: readonly string[];
  readonly kind: Scenario["kind"];
  readonly outcome: Outcome;
  readonly durationMs: number;
  readonly message?: string;
  /** Every property run of the scenario, with what replays it. */
  readonly properties?: readonly PropertyRecord[];
}

export interface RunOptions {
  /** Run only scenarios naming this clause ID or area, or whose ID starts with it (`DLE`, `DEC-GEN`, `health`). */
  readonly only?: readonly string[];
  readonly timeoutMs?: number;
  readonly property?: Partial<PropertySettings>;
  readonly expectations?: Expectations | null;
  readonly onResult?: (result: ScenarioResult) => void;
}

export function selectScenarios(scenarios: readonly Scenario[], only: readonly string[] | undefined): Scenario[] {
  if (!only || only.length === 0) return [...scenarios];
  return scenarios.filter((scenario) =>
    only.some((wanted) => scenario.area === wanted || scenario.title === wanted || scenario.clauses.some((id) => id === wanted || id.startsWith(`${wanted}-`))),
  );
}

/** A scenario that did not end within its time limit: the target did not answer in time, an error, not a verdict. */
export class ScenarioTimeout extends Error {
  override readonly name = "ScenarioTimeout";
}

/**
 * Runs one scenario with a time limit. On timeout the scenario's signal is aborted, so its clients refuse
 * every further request: abandoned work must not move the target (or its virtual clock) under the next scenario.
 * The signal is aborted when the scenario ends too, for stray requests it left unawaited.
 */
async function runWithTimeout(run: (signal: AbortSignal) => Promise<void>, ms: number): Promise<void> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new ScenarioTimeout(`did not finish within ${ms} ms; abandoned, its further requests are refused`);
      controller.abort(error);
      reject(error);
    }, ms);
  });
  try {
    await Promise.race([run(controller.signal), timeout]);
  } finally {
    clearTimeout(timer);
    if (!controller.signal.aborted) controller.abort(new Error("the scenario has ended"));
  }
}

/** An expectation turns only a verdict around: a listed scenario that errored (say ECONNREFUSED) stays an error. */
function verdict(raw: Outcome, expectedReason: string | null): Outcome {
  if (expectedReason === null) return raw;
  if (raw === "pass") return "unexpected-pass";
  if (raw === "fail") return "expected-fail";
  return raw;
}

/** Runs the scenarios one after another (they share the target) and reports each as it ends. */
export async function runScenarios(scenarios: readonly Scenario[], target: Target, options: RunOptions = {}): Promise<ScenarioResult[]> {
  const runId = Date.now().toString(36);
  const propertySettings: PropertySettings = { seed: options.property?.seed ?? defaultPropertySeed, runs: options.property?.runs, path: options.property?.path };
  const results: ScenarioResult[] = [];
  for (const scenario of selectScenarios(scenarios, options.only)) {
    const started = performance.now();
    const properties: PropertyRecord[] = [];
    let raw: Outcome = "pass";
    let message: string | undefined;
    if (scenario.needs.includes("admin") && !target.adminToken) {
      raw = "skip";
      message = "needs the admin token of the target (--admin-token or SVC_ADMIN_TOKEN)";
    } else {
      try {
        await runWithTimeout((signal) => scenario.run(createContext(target, runId, propertySettings, properties, { signal, title: scenario.title })), options.timeoutMs ?? 120_000);
      } catch (error) {
        if (error instanceof ScenarioSkip) raw = "skip";
        else if (error instanceof ScenarioFailure) raw = "fail";
        else raw = "error";
        message = error instanceof Error ? (raw === "error" ? `${error.name}: ${error.message}` : error.message) : String(error);
      }
    }
    const expectedReason = expectedFailureReason(options.expectations ?? null, scenario);
    const outcome = verdict(raw, expectedReason);
    if (outcome === "expected-fail") message = `expected to fail (${expectedReason}): ${message ?? ""}`;
    if (outcome === "unexpected-pass") message = `listed as an expected failure (${expectedReason}) but passed: remove the entry`;
    const result: ScenarioResult = {
      title: scenario.title,
      area: scenario.area,
      clauses: scenario.clauses,
      kind: scenario.kind,
      outcome,
      durationMs: Math.round(performance.now() - started),
      ...(message === undefined ? {} : { message }),
      ...(properties.length > 0 ? { properties } : {}),
    };
    results.push(result);
    options.onResult?.(result);
  }
  return results;
}

export type OutcomeCounts = Readonly<Record<Outcome, number>>;

export function countOutcomes(results: readonly ScenarioResult[]): OutcomeCounts {
  const counts: Record<Outcome, number> = { pass: 0, fail: 0, "expected-fail": 0, "unexpected-pass": 0, skip: 0, error: 0 };
  for (const result of results) counts[result.outcome] += 1;
  return counts;
}

export interface Tally {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
}

/** The run is green when nothing failed, errored or passed unexpectedly; an expected failure counts as passed. */
export function tally(results: readonly ScenarioResult[]): Tally {
  const counts = countOutcomes(results);
  return { passed: counts.pass + counts["expected-fail"], failed: counts.fail + counts.error + counts["unexpected-pass"], skipped: counts.skip };
}

/** The closing line CI reads: `N passed, N failed` with `, N skipped` when any. */
export function summaryLine(counts: Tally): string {
  return `${counts.passed} passed, ${counts.failed} failed${counts.skipped > 0 ? `, ${counts.skipped} skipped` : ""}`;
}

const marks: Record<Outcome, string> = { pass: "✓", fail: "✗", "expected-fail": "x", "unexpected-pass": "!", skip: "-", error: "!" };

export function formatResult(result: ScenarioResult): string {
  const head = `${marks[result.outcome]} ${result.title} (${result.durationMs} ms)`;
  return result.message ? `${head}\n    ${result.outcome}: ${result.message.replaceAll("\n", "\n    ")}` : head;
}
