import type fc from "fast-check";
import { HttpClient, ScenarioSkip } from "./client.ts";
import { checkProperty, type PropertyRecord, type PropertySettings } from "./property.ts";
import type { Target, TargetFixtures } from "./target.ts";

/** example: one case from the spec; property: fast-check over many cases; e2e: a flow across several APIs. */
export type ScenarioKind = "example" | "property" | "e2e";

/** What a scenario needs beyond plain HTTP; without it the scenario is skipped, with the reason. */
export type ScenarioNeed = "admin";

export interface ScenarioContext {
  readonly target: Target;
  readonly fixtures: TargetFixtures;
  /** The management APIs ({base_url}). */
  readonly base: HttpClient;
  /** The collection endpoint ({collect_url}). */
  readonly collect: HttpClient;
  /** The visitor-data API ({moments_url}). */
  readonly moments: HttpClient;
  /**
   * Aborted when the runner abandons the scenario (its time limit passed) or once it has ended; the clients
   * then refuse to send. Long waits of a scenario of its own (polling, sleeping) should check it too.
   */
  readonly signal: AbortSignal;
  /** Headers that authorise a call of svc-hub's admin API. */
  adminHeaders(): Record<string, string>;
  /** A name no other scenario or run uses, for data this scenario makes. */
  uniqueId(prefix: string): string;
  /**
   * Runs a fast-check property with the run's seed and count (`--seed`, `--runs`), recording the seed and
   * counterexample path in the report. `numRuns` is this scenario's default count.
   */
  checkProperty<Ts>(property: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>, options?: { numRuns?: number }): Promise<void>;
}

export interface Scenario {
  /** The title names the clause IDs it checks first: `[DLE-ERR-05] upload with a key containing a period is 400 1400`. */
  readonly title: string;
  readonly clauses: readonly string[];
  readonly area: string;
  readonly kind: ScenarioKind;
  readonly needs: readonly ScenarioNeed[];
  run(context: ScenarioContext): Promise<void>;
}

const clauseId = /^(?:[A-Z]{3}(?:-ERR)?-\d{2}|DEC-[A-Z]{3}-\d{2})$/;

/** The clause IDs in a title's leading brackets: `[DLE-01, DEC-DLE-05] ...`. */
export function clausesOfTitle(title: string): string[] {
  const match = /^\[([^\]]+)\]/.exec(title);
  if (!match) return [];
  return (match[1] as string).split(/[,\s]+/).filter(Boolean);
}

/** Declares the scenarios of one area. Each title must start with its clause IDs in brackets. */
export function defineScenarios(
  area: string,
  entries: ReadonlyArray<{ title: string; kind?: ScenarioKind; needs?: ScenarioNeed[]; run: (context: ScenarioContext) => Promise<void> }>,
): Scenario[] {
  return entries.map((entry) => {
    const clauses = clausesOfTitle(entry.title);
    if (clauses.length === 0) throw new Error(`scenario "${entry.title}" must start with its clause IDs, e.g. [DLE-01]`);
    for (const id of clauses) {
      if (!clauseId.test(id)) throw new Error(`scenario "${entry.title}" names "${id}", which is not a clause or decision ID`);
    }
    return { title: entry.title, clauses, area, kind: entry.kind ?? "example", needs: entry.needs ?? [], run: entry.run };
  });
}

let sequence = 0;

/**
 * A context for one scenario; `properties` collects what its property runs did. `scenario.signal` stops its
 * requests once aborted; `scenario.title` goes into the replay hint of a failed property.
 */
export function createContext(
  target: Target,
  runId: string,
  propertySettings: PropertySettings,
  properties: PropertyRecord[],
  scenario: { readonly signal?: AbortSignal; readonly title?: string } = {},
): ScenarioContext {
  const signal = scenario.signal ?? new AbortController().signal;
  return {
    target,
    fixtures: target.fixtures,
    base: new HttpClient(target, "base", signal),
    collect: new HttpClient(target, "collect", signal),
    moments: new HttpClient(target, "moments", signal),
    signal,
    adminHeaders() {
      if (!target.adminToken) throw new ScenarioSkip("needs the admin token of the target (--admin-token or SVC_ADMIN_TOKEN)");
      return { authorization: `Bearer ${target.adminToken}` };
    },
    uniqueId(prefix) {
      sequence += 1;
      return `${prefix}_${runId}_${sequence}`;
    },
    checkProperty(property, options) {
      return checkProperty(property, { ...propertySettings, scenarioTitle: scenario.title }, properties, options);
    },
  };
}
