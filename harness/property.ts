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

/**
 * Runs a fast-check property (sync or async, including `asyncModelRun` inside it) with the run's settings,
 * records the seed and counterexample path, and turns a failure into a ScenarioFailure that says how to replay it.
 */
export async function checkProperty<Ts>(
  property: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>,
  settings: PropertySettings,
  records: PropertyRecord[],
  options: { readonly numRuns?: number } = {},
): Promise<void> {
  const numRuns = settings.runs ?? options.numRuns ?? 100;
  const parameters = { seed: settings.seed, numRuns, ...(settings.path ? { path: settings.path } : {}) };
  const details = await fc.check(property as fc.IAsyncProperty<Ts>, parameters);
  const counterexample = details.counterexample === null ? null : fc.stringify(details.counterexample);
  records.push({ seed: details.seed, numRuns: details.numRuns, failed: details.failed, path: details.counterexamplePath, counterexample });
  if (details.failed) {
    const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance ?? "");
    throw new ScenarioFailure(
      `property failed after ${details.numRuns} run(s) on ${counterexample}: ${cause}\n` +
        `replay: --seed ${details.seed} --path ${shellQuote(details.counterexamplePath ?? "")}${settings.scenarioTitle ? ` --only ${shellQuote(settings.scenarioTitle)}` : ""}`,
    );
  }
}

/** One shell word, single-quoted, so a title with spaces, quotes or brackets can be pasted as it is. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
