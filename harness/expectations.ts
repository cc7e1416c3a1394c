import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Static, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { ScenarioResult } from "./runner.ts";
import type { Scenario } from "./scenario.ts";

/**
 * Known failures of one implementation: conformance/implementations/<impl>/expectations.json. An entry
 * names a scenario by its exact title, or every scenario of a clause ID, and says why. A scenario listed by
 * title that fails is an expected failure; one that passes is an unexpected pass and fails the run, so stale
 * entries get removed. A clause entry covers whichever of the clause's scenarios fail: those are expected
 * failures, the others plain passes, and the entry is stale only once none of them fails.
 */
const ExpectationsSchema = Type.Object(
  {
    implementation: Type.String(),
    expectedFailures: Type.Array(
      Type.Union([
        Type.Object(
          { scenario: Type.String({ minLength: 1 }), reason: Type.String({ minLength: 1 }) },
          { additionalProperties: false },
        ),
        Type.Object(
          { clause: Type.String({ minLength: 1 }), reason: Type.String({ minLength: 1 }) },
          { additionalProperties: false },
        ),
      ]),
    ),
  },
  { additionalProperties: false },
);

export type Expectations = Static<typeof ExpectationsSchema>;

export const implementationsDir = join(import.meta.dir, "..", "conformance", "implementations");

/** The expectations of an implementation the suite ships: conformance/implementations/<name>/expectations.json (`--impl`). */
export function loadExpectations(implementation: string, dir = implementationsDir): Expectations {
  if (!/^[A-Za-z0-9_.-]+$/.test(implementation))
    throw new Error(`--impl must be a plain name, not "${implementation}"`);
  const path = join(dir, implementation, "expectations.json");
  if (!existsSync(path))
    throw new Error(`no expectations for implementation "${implementation}": ${path} does not exist`);
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
  const problem = expectationsProblem(value);
  if (problem) throw new Error(`${path}: ${problem}`);
  return value as Expectations;
}

const entryShape = `each entry is {"scenario": "<a scenario's whole title>", "reason": "<why it fails>"} or {"clause": "<clause or decision ID>", "reason": "<why it fails>"}`;

/**
 * What is wrong with an expectations file, in words an implementer can act on (the schema's own message for
 * a union, "Expected union value", names neither what is missing nor what is allowed); null when it is valid.
 */
export function expectationsProblem(value: unknown): string | null {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return `/: must be a JSON object {"implementation": "<name>", "expectedFailures": [...]}`;
  const file = value as Record<string, unknown>;
  for (const key of Object.keys(file)) {
    if (key !== "implementation" && key !== "expectedFailures")
      return `/${key}: unknown property; allowed are implementation and expectedFailures`;
  }
  if (typeof file.implementation !== "string") return `/implementation: must be a string naming the implementation`;
  if (!Array.isArray(file.expectedFailures)) return `/expectedFailures: must be an array; ${entryShape}`;
  for (const [index, entry] of file.expectedFailures.entries()) {
    const at = `/expectedFailures/${index}`;
    if (entry === null || typeof entry !== "object" || Array.isArray(entry))
      return `${at}: must be an object; ${entryShape}`;
    const fields = entry as Record<string, unknown>;
    const unknown = Object.keys(fields).filter((key) => key !== "scenario" && key !== "clause" && key !== "reason");
    if (unknown.length > 0) return `${at}: unknown property ${unknown.join(", ")}; ${entryShape}`;
    if ("scenario" in fields && "clause" in fields)
      return `${at}: give either "scenario" or "clause", not both; ${entryShape}`;
    if (!("scenario" in fields) && !("clause" in fields)) return `${at}: missing "scenario" or "clause"; ${entryShape}`;
    const key = "scenario" in fields ? "scenario" : "clause";
    if (typeof fields[key] !== "string" || fields[key] === "")
      return `${at}/${key}: must be a non-empty string; ${entryShape}`;
    if (!("reason" in fields)) return `${at}: missing "reason" (a non-empty string saying why it fails); ${entryShape}`;
    if (typeof fields.reason !== "string" || fields.reason === "")
      return `${at}/reason: must be a non-empty string saying why it fails`;
  }
  // The schema stays the reference; the checks above only word its problems better.
  const problem = [...Value.Errors(ExpectationsSchema, value)][0];
  return problem ? `${problem.path || "/"}: ${problem.message}` : null;
}

/** The entry that lists a scenario as failing, and whether it names the scenario's title or one of its clauses. */
export interface ExpectedFailure {
  readonly reason: string;
  readonly by: "scenario" | "clause";
}

/**
 * The entry listing a scenario as an expected failure, or null. An entry naming the scenario's title wins over
 * one naming a clause of it: it is the more precise.
 */
export function expectedFailureOf(
  expectations: Expectations | null,
  scenario: Pick<Scenario, "title" | "clauses">,
): ExpectedFailure | null {
  if (!expectations) return null;
  for (const entry of expectations.expectedFailures) {
    if ("scenario" in entry && entry.scenario === scenario.title) return { reason: entry.reason, by: "scenario" };
  }
  for (const entry of expectations.expectedFailures) {
    if ("clause" in entry && scenario.clauses.includes(entry.clause)) return { reason: entry.reason, by: "clause" };
  }
  return null;
}

/** The reason a scenario is expected to fail, or null. */
export function expectedFailureReason(
  expectations: Expectations | null,
  scenario: Pick<Scenario, "title" | "clauses">,
): string | null {
  return expectedFailureOf(expectations, scenario)?.reason ?? null;
}

/**
 * Entries to remove, each said with why: one that matches no scenario at all; and, given the run's results,
 * a clause entry none of whose scenarios failed, when every scenario naming the clause ran (a run narrowed
 * by --only, or with skipped scenarios, cannot tell). A clause entry with some scenarios failing is current:
 * its passing scenarios are plain passes.
 */
export function staleExpectations(
  expectations: Expectations | null,
  scenarios: ReadonlyArray<Pick<Scenario, "title" | "clauses">>,
  results: ReadonlyArray<Pick<ScenarioResult, "title" | "outcome">> = [],
): string[] {
  if (!expectations) return [];
  const outcomes = new Map(results.map((result) => [result.title, result.outcome]));
  const stale: string[] = [];
  for (const entry of expectations.expectedFailures) {
    if ("scenario" in entry) {
      if (!scenarios.some((scenario) => scenario.title === entry.scenario))
        stale.push(`scenario "${entry.scenario}" matches no scenario`);
      continue;
    }
    const naming = scenarios.filter((scenario) => scenario.clauses.includes(entry.clause));
    if (naming.length === 0) {
      stale.push(`clause ${entry.clause} matches no scenario`);
      continue;
    }
    const ran = naming.map((scenario) => outcomes.get(scenario.title));
    if (ran.every((outcome) => outcome === "pass" || outcome === "unexpected-pass")) {
      stale.push(`clause ${entry.clause}: all ${naming.length} of its scenarios passed`);
    }
  }
  return stale;
}
