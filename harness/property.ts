import fc from "fast-check";
import { ScenarioFailure } from "./client.ts";

/** How property scenarios run: a fixed seed (CI replays the same cases) and an optional count override. */
export interface PropertySettings {
  readonly seed: number;
  /** Runs per property; absent: each scenario's own default. */
  readonly runs?: number;
  /** A counterexample path to replay (with the seed of the failure), as a report gives it. */
  readonly path?: string;
  /** The title of the scenario running the property, for the replay hint (`--only <title>`). */
  readonly scenarioTitle?: string;
}

/** What a property run did, for report.json: enough to replay a failure with `--seed` and `--path`. */
export interface PropertyRecord {
  readonly seed: number;
  readonly numRuns: number;
  readonly failed: boolean;
  readonly path: string | null;
  readonly counterexample: string | null;
}

export const defaultPropertySeed = 20261121;

/** A property run that tried no case at all (a `--path` past its cases, say): it proves nothing, so it is an error. */
export class PropertyRanNoCase extends Error {
  override readonly name = "PropertyRanNoCase";
}

/**
 * Runs a fast-check property (sync or async, including `asyncModelRun` inside it) with the run's settings,
 * records the seed and counterexample path, and turns a failure into a ScenarioFailure that says how to replay it.
 * Only a ScenarioFailure (an expectation the target did not meet) is a counterexample: anything else thrown
 * inside the property (the target did not answer, a skip, an abandoned scenario, a bug of the scenario) stops
 * the run at once and is thrown again as it is, so the runner reports it as the error or skip it is, never
 * as a failure with a made-up counterexample.
 */
export async function checkProperty<Ts>(
  property: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>,
  settings: PropertySettings,
  records: PropertyRecord[],
  options: { readonly numRuns?: number } = {},
): Promise<void> {
  const numRuns = settings.runs ?? options.numRuns ?? 100;
  const parameters = { seed: settings.seed, numRuns, ...(settings.path ? { path: settings.path } : {}) };
  const stopped = stopOnBreakage(property);
  const details = await fc.check(stopped.property as fc.IAsyncProperty<Ts>, parameters);
  // fast-check marks an interrupted run with no case passed as failed too: only a path to a failure is one.
  const found = details.counterexamplePath !== null;
  const counterexample = found ? fc.stringify(details.counterexample) : null;
  records.push({
    seed: details.seed,
    numRuns: details.numRuns,
    failed: found,
    path: details.counterexamplePath,
    counterexample,
  });
  const breakage = stopped.breakage();
  if (found) {
    const cause =
      details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance ?? "");
    const broke = breakage === null ? "" : `\n(shrinking stopped: ${describeThrown(breakage.thrown)})`;
    throw new ScenarioFailure(
      `property failed after ${details.numRuns} run(s) on ${counterexample}: ${cause}${broke}\n` +
        `replay: --seed ${details.seed} --path ${shellQuote(details.counterexamplePath ?? "")}${settings.scenarioTitle ? ` --only ${shellQuote(settings.scenarioTitle)}` : ""}`,
    );
  }
  if (breakage !== null) throw breakage.thrown;
  if (details.failed)
    throw new Error(
      `the property did not run: ${details.numSkips} case(s) skipped by preconditions, ${details.numRuns} run`,
    );
  if (details.numRuns === 0) {
    throw new PropertyRanNoCase(
      `the property ran no case (seed ${details.seed}${settings.path ? `, --path ${settings.path}: it names no case of this property; give the path a failure report gave with its seed` : ""})`,
    );
  }
}

/**
 * The property, except that a run throwing anything but a ScenarioFailure interrupts fast-check (instead of
 * counting as a failure to shrink), keeping what was thrown.
 */
function stopOnBreakage<Ts>(property: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>): {
  property: fc.IRawProperty<Ts>;
  breakage(): { readonly thrown: unknown } | null;
} {
  let breakage: { readonly thrown: unknown } | null = null;
  const interrupt = () => new fc.PreconditionFailure(true);
  const judge = (outcome: fc.PreconditionFailure | { error: unknown } | null) => {
    if (outcome === null || fc.PreconditionFailure.isFailure(outcome) || isVerdict(outcome.error)) return outcome;
    breakage ??= { thrown: outcome.error };
    return interrupt();
  };
  const wrapped = Object.create(property) as fc.IRawProperty<Ts>;
  wrapped.run = ((value: Ts) => {
    if (breakage !== null) return property.isAsync() ? Promise.resolve(interrupt()) : interrupt();
    const outcome = property.run(value);
    return outcome instanceof Promise ? outcome.then(judge) : judge(outcome);
  }) as fc.IRawProperty<Ts>["run"];
  return { property: wrapped, breakage: () => breakage };
}

/** A failed expectation: a ScenarioFailure, or a predicate that returned false (fast-check's own message for it). */
function isVerdict(error: unknown): boolean {
  return (
    error instanceof ScenarioFailure ||
    (error instanceof Error && error.constructor === Error && error.message === "Property failed by returning false")
  );
}

function describeThrown(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** One shell word, single-quoted, so a title with spaces, quotes or brackets can be pasted as it is. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
