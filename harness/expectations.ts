import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { Scenario } from "./scenario.ts";

/**
 * Known failures of one implementation: conformance/implementations/<impl>/expectations.json. An entry
 * names a scenario by its exact title, or every scenario of a clause ID, and says why. A listed scenario
 * that fails is an expected failure; one that passes is an unexpected pass and fails the run, so stale
 * entries get removed.
 */
const ExpectationsSchema = Type.Object(
  {
    implementation: Type.String(),
    expectedFailures: Type.Array(
      Type.Union([
        Type.Object({ scenario: Type.String({ minLength: 1 }), reason: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
        Type.Object({ clause: Type.String({ minLength: 1 }), reason: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
      ]),
    ),
  },
  { additionalProperties: false },
);

export type Expectations = Static<typeof ExpectationsSchema>;

export const implementationsDir = join(import.meta.dir, "..", "conformance", "implementations");

/** The expectations of an implementation the suite ships: conformance/implementations/<name>/expectations.json (`--impl`). */
export function loadExpectations(implementation: string, dir = implementationsDir): Expectations {
  if (!/^[A-Za-z0-9_.-]+$/.test(implementation)) throw new Error(`--impl must be a plain name, not "${implementation}"`);
  const path = join(dir, implementation, "expectations.json");
  if (!existsSync(path)) throw new Error(`no expectations for implementation "${implementation}": ${path} does not exist`);
  return loadExpectationsFile(path);
}

/** Expectations from a file of the implementer's own (`--expectations`), in the same format, outside the suite's tree. */
export function loadExpectationsFile(path: string): Expectations {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`expectations ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const problem = [...Value.Errors(ExpectationsSchema, value)][0];
  if (problem) throw new Error(`${path}: ${problem.path || "/"}: ${problem.message}`);
  return value as Expectations;
}

/** The reason a scenario is expected to fail, or null. */
export function expectedFailureReason(expectations: Expectations | null, scenario: Pick<Scenario, "title" | "clauses">): string | null {
  if (!expectations) return null;
  for (const entry of expectations.expectedFailures) {
    if ("scenario" in entry ? entry.scenario === scenario.title : scenario.clauses.includes(entry.clause)) return entry.reason;
  }
  return null;
}

/** Entries that match no scenario at all: stale, and reported as such. */
export function staleExpectations(expectations: Expectations | null, scenarios: ReadonlyArray<Pick<Scenario, "title" | "clauses">>): string[] {
  if (!expectations) return [];
  return expectations.expectedFailures
    .filter((entry) => !scenarios.some((scenario) => ("scenario" in entry ? entry.scenario === scenario.title : scenario.clauses.includes(entry.clause))))
    .map((entry) => ("scenario" in entry ? `scenario "${entry.scenario}"` : `clause ${entry.clause}`));
}
