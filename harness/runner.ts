import { adminTokenNeeded } from "./admin-token.ts";
import { type CapabilityProbes, capabilityNames, probeCapabilities } from "./capabilities.ts";
import { RequestTrail, redactSecrets, ScenarioFailure, ScenarioSkip } from "./client.ts";
import { type Expectations, type ExpectedFailure, expectedFailureOf } from "./expectations.ts";
import { defaultPropertySeed, type PropertyRecord, type PropertySettings } from "./property.ts";
import { createContext, type Scenario } from "./scenario.ts";
import type { Target } from "./target.ts";

/**
 * pass and fail are the scenario's verdict; expected-fail and unexpected-pass are those verdicts for a
 * scenario the implementation's expectations list as failing; skip means it could not run here (with the
 * reason); error means it broke unexpectedly (for example the target did not answer, or the scenario did not
 * end within its time limit). An expectation turns fail into expected-fail, never error. A scenario listed
 * through a clause entry that passes is a plain pass (only an entry naming its title makes it unexpected-pass).
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
  /**
   * Run only scenarios naming this clause ID, or an ID starting with it (`DLE`, `DEC-GEN`), in any case; of
   * this area (`session`); or with exactly this title.
   */
  readonly only?: readonly string[];
  readonly timeoutMs?: number;
  readonly property?: Partial<PropertySettings>;
  readonly expectations?: Expectations | null;
  readonly onResult?: (result: ScenarioResult) => void;
  /**
   * Whether the target has each capability (capabilities.ts), as probed before the run; a capability absent from
   * it is probed here when a selected scenario needs it.
   */
  readonly capabilities?: CapabilityProbes;
  /**
   * How long an abandoned scenario's cleanup (its requests through `cleanupBase`) may still run before the next
   * scenario starts (default 15 s).
   */
  readonly cleanupMs?: number;
}

/** The bound of each cleanup request: one that hangs must not hold up the run. */
const cleanupRequestMs = 5_000;

/** Whether one `--only` value selects a scenario: its title exactly, its area, or one of its IDs or an ID prefix, in any case. */
export function scenarioMatches(scenario: Pick<Scenario, "title" | "area" | "clauses">, wanted: string): boolean {
  if (scenario.title === wanted) return true;
  const folded = wanted.toUpperCase();
  if (scenario.area.toUpperCase() === folded) return true;
  return scenario.clauses.some((id) => id === folded || id.startsWith(`${folded}-`));
}

export function selectScenarios(scenarios: readonly Scenario[], only: readonly string[] | undefined): Scenario[] {
  if (!only || only.length === 0) return [...scenarios];
  return scenarios.filter((scenario) => only.some((wanted) => scenarioMatches(scenario, wanted)));
}

/** The `--only` values that select no scenario at all: a typo, most likely, which must not pass unnoticed. */
export function unmatchedSelections(scenarios: readonly Scenario[], only: readonly string[] | undefined): string[] {
  return (only ?? []).filter((wanted) => !scenarios.some((scenario) => scenarioMatches(scenario, wanted)));
}

/** The areas of the scenarios, in the suite's order (for --help and error messages). */
export function areasOf(scenarios: readonly Scenario[]): string[] {
  return [...new Set(scenarios.map((scenario) => scenario.area))];
}

/** A scenario that did not end within its time limit: the target did not answer in time, an error, not a verdict. */
export class ScenarioTimeout extends Error {
  override readonly name = "ScenarioTimeout";
}

/**
 * Runs one scenario with a time limit. On timeout the scenario's signal is aborted, so its clients refuse
 * every further request: abandoned work must not move the target (or its virtual clock) under the next scenario.
 * Only its cleanup (`cleanupBase`, in its `finally` blocks) may still send, for up to `cleanupMs`, which the
 * runner waits for before the next scenario starts. The signals are aborted when the scenario ends too, for
 * stray requests it left unawaited.
 */
async function runWithTimeout(
  run: (signal: AbortSignal, cleanupSignal: AbortSignal) => Promise<void>,
  ms: number,
  cleanupMs: number,
  trail: RequestTrail,
): Promise<void> {
  const controller = new AbortController();
  const cleanup = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const requests = trail.describe();
      const error = new ScenarioTimeout(
        `did not finish within ${ms} ms; abandoned, its further requests but for its cleanup's are refused${requests ? `\n${requests}` : " (it had sent no request)"}`,
      );
      controller.abort(error);
      reject(error);
    }, ms);
  });
  const running = run(controller.signal, cleanup.signal);
  running.catch(() => undefined);
  try {
    await Promise.race([running, timeout]);
  } catch (error) {
    if (error instanceof ScenarioTimeout) await waitUntilSettled(running, cleanupMs);
    throw error;
  } finally {
    clearTimeout(timer);
    if (!controller.signal.aborted) controller.abort(new Error("the scenario has ended"));
    cleanup.abort(new Error("the scenario's time for its cleanup has run out"));
  }
}

/** Waits until `work` has settled, or `ms` have passed, whichever is first. */
async function waitUntilSettled(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([
    work.then(
      () => undefined,
      () => undefined,
    ),
    elapsed,
  ]);
  clearTimeout(timer);
}

/**
 * An expectation turns only a verdict around: a listed scenario that errored (say ECONNREFUSED) stays an
 * error. A pass is unexpected only for an entry naming the scenario: a clause entry lists whichever of the
 * clause's scenarios fail, and the others pass as usual.
 */
function verdict(raw: Outcome, expected: ExpectedFailure | null): Outcome {
  if (expected === null) return raw;
  if (raw === "pass") return expected.by === "scenario" ? "unexpected-pass" : "pass";
  if (raw === "fail") return "expected-fail";
  return raw;
}

/** Why a scenario cannot run against this target, or null: a need the target does not meet. */
function unmetNeed(scenario: Scenario, target: Target, probes: CapabilityProbes): string | null {
  if (scenario.needs.length > 0 && !target.adminToken) return adminTokenNeeded;
  for (const capability of capabilityNames) {
    const probe = probes[capability];
    if (scenario.needs.includes(capability) && probe && !probe.available) return probe.reason;
  }
  return null;
}

/**
 * A failure or error message with what the trail knows: for an error, always (it is the only clue to what
 * broke); for a failure, unless its message already names the last request answered with its whole query
 * string (`METHOD path?query`: naming the method and path alone does not say which values were sent).
 * Property runs are left alone: after shrinking, the last request is not the counterexample's.
 */
function withTrail(message: string, raw: Outcome, scenario: Scenario, trail: RequestTrail): string {
  if (raw === "error") {
    const requests = trail.describe();
    return requests && !message.includes(requests) ? `${message}\n${requests}` : message;
  }
  if (raw === "fail" && scenario.kind !== "property") {
    const last = trail.lastAnswer();
    if (last && !message.includes(last.request)) return `${message}\n${trail.describe()}`;
  }
  return message;
}

/** Runs the scenarios one after another (they share the target) and reports each as it ends. */
export async function runScenarios(
  scenarios: readonly Scenario[],
  target: Target,
  options: RunOptions = {},
): Promise<ScenarioResult[]> {
  const runId = Date.now().toString(36);
  const propertySettings: PropertySettings = {
    seed: options.property?.seed ?? defaultPropertySeed,
    runs: options.property?.runs,
    path: options.property?.path,
  };
  const results: ScenarioResult[] = [];
  const selected = selectScenarios(scenarios, options.only);
  const capabilities = await probeCapabilities(target, selected, options.capabilities);
  const timeoutMs = options.timeoutMs ?? 120_000;
  const cleanupMs = options.cleanupMs ?? 15_000;
  for (const scenario of selected) {
    const started = performance.now();
    const properties: PropertyRecord[] = [];
    const trail = new RequestTrail();
    let raw: Outcome = "pass";
    let message: string | undefined;
    const unmet = unmetNeed(scenario, target, capabilities);
    if (unmet !== null) {
      raw = "skip";
      message = unmet;
    } else {
      try {
        await runWithTimeout(
          (signal, cleanupSignal) =>
            scenario.run(
              createContext(target, runId, propertySettings, properties, {
                signal,
                cleanupSignal,
                cleanupRequestMs,
                title: scenario.title,
                trail,
                capabilities,
              }),
            ),
          timeoutMs,
          cleanupMs,
          trail,
        );
      } catch (error) {
        if (error instanceof ScenarioSkip) raw = "skip";
        else if (error instanceof ScenarioFailure) raw = "fail";
        else raw = "error";
        const text =
          error instanceof Error
            ? raw === "error"
              ? `${error.name}: ${error.message}`
              : error.message
            : String(error);
        // A timeout's message holds the trail as it was when the time ran out.
        message = error instanceof ScenarioTimeout ? text : withTrail(text, raw, scenario, trail);
      }
    }
    const expected = expectedFailureOf(options.expectations ?? null, scenario);
    const outcome = verdict(raw, expected);
    if (outcome === "expected-fail") message = `expected to fail (${expected?.reason}): ${message ?? ""}`;
    if (outcome === "unexpected-pass")
      message = `listed as an expected failure (${expected?.reason}) but passed: remove the entry`;
    const result: ScenarioResult = {
      title: scenario.title,
      area: scenario.area,
      clauses: scenario.clauses,
      kind: scenario.kind,
      outcome,
      durationMs: Math.round(performance.now() - started),
      // Messages name URLs and answers: a utk (or another secret) in them must not reach the reports.
      ...(message === undefined ? {} : { message: redactSecrets(message) }),
      ...(properties.length > 0 ? { properties } : {}),
    };
    results.push(result);
    options.onResult?.(result);
  }
  return results;
}

export type OutcomeCounts = Readonly<Record<Outcome, number>>;

export function countOutcomes(results: readonly ScenarioResult[]): OutcomeCounts {
  const counts: Record<Outcome, number> = {
    pass: 0,
    fail: 0,
    "expected-fail": 0,
    "unexpected-pass": 0,
    skip: 0,
    error: 0,
  };
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
  return {
    passed: counts.pass + counts["expected-fail"],
    failed: counts.fail + counts.error + counts["unexpected-pass"],
    skipped: counts.skip,
  };
}

/** The closing line CI reads: `N passed, N failed` with `, N skipped` when any. */
export function summaryLine(counts: Tally): string {
  return `${counts.passed} passed, ${counts.failed} failed${counts.skipped > 0 ? `, ${counts.skipped} skipped` : ""}`;
}

const marks: Record<Outcome, string> = {
  pass: "✓",
  fail: "✗",
  "expected-fail": "x",
  "unexpected-pass": "!",
  skip: "-",
  error: "!",
};

export function formatResult(result: ScenarioResult): string {
  const head = `${marks[result.outcome]} ${result.title} (${result.durationMs} ms)`;
  return result.message ? `${head}\n    ${result.outcome}: ${result.message.replaceAll("\n", "\n    ")}` : head;
}
