import type fc from "fast-check";
import { HttpClient, RequestTrail, ScenarioSkip } from "./client.ts";
import { checkProperty, type PropertyRecord, type PropertySettings } from "./property.ts";
import { adminTokenNeeded, type SvcHubAdminProbe } from "./svc-hub-admin.ts";
import type { SvcHubClockProbe } from "./svc-hub-clock.ts";
import type { Target, TargetFixtures } from "./target.ts";

/** example: one case from the spec; property: fast-check over many cases; e2e: a flow across several APIs. */
export type ScenarioKind = "example" | "property" | "e2e";

/**
 * What a scenario needs beyond plain HTTP; without it the scenario is skipped, with the reason. admin: the
 * admin token, for the admin routes the interface names (DEC-OPS-04: the file upload, the revision publish and
 * POST /admin/wait). svc-hub-clock: svc-hub's virtual clock routes (/admin/clock; DEC-OPS-02 asks for a
 * virtual clock but names no route). svc-hub-admin: svc-hub's other admin routes (users and API keys, stored
 * events, collection counters). Both svc-hub needs are probed once before the run and imply the admin token.
 */
export type ScenarioNeed = "admin" | "svc-hub-clock" | "svc-hub-admin";

export interface ScenarioContext {
  readonly target: Target;
  readonly fixtures: TargetFixtures;
  /** The management APIs ({base_url}). */
  readonly base: HttpClient;
  /**
   * The management APIs, for a scenario's cleanup (deleting what it made, in a `finally`): unlike `base`, it
   * still sends for a short while after the runner abandoned the scenario (its time limit passed), each
   * request within its own bound, so that a scenario that timed out does not leave its data behind.
   */
  readonly cleanupBase: HttpClient;
  /** The collection endpoint ({collect_url}). */
  readonly collect: HttpClient;
  /** The visitor-data API ({moments_url}). */
  readonly moments: HttpClient;
  /**
   * Aborted when the runner abandons the scenario (its time limit passed) or once it has ended; the clients
   * then refuse to send. Long waits of a scenario of its own (polling, sleeping) should check it too.
   */
  readonly signal: AbortSignal;
  /** Headers that authorise a call of the admin routes the interface names (DEC-OPS-04: wait, file upload, revision publish). */
  adminHeaders(): Record<string, string>;
  /**
   * Headers that authorise a call of svc-hub's virtual clock routes (/admin/clock); skips the scenario when the
   * target does not have them (a scenario using them declares needs: ["svc-hub-clock"]).
   */
  clockHeaders(): Record<string, string>;
  /** Whether the probe before the run found svc-hub's clock routes, for a scenario that can do without them. */
  readonly hasClock: boolean;
  /**
   * Headers that authorise a call of svc-hub's own admin routes (users, events, collection counters); skips
   * the scenario when the target does not have them (a scenario using them declares needs: ["svc-hub-admin"]).
   */
  svcHubAdminHeaders(): Record<string, string>;
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
  entries: ReadonlyArray<{
    title: string;
    kind?: ScenarioKind;
    needs?: ScenarioNeed[];
    run: (context: ScenarioContext) => Promise<void>;
  }>,
): Scenario[] {
  return entries.map((entry) => {
    const clauses = clausesOfTitle(entry.title);
    if (clauses.length === 0)
      throw new Error(`scenario "${entry.title}" must start with its clause IDs, e.g. [DLE-01]`);
    for (const id of clauses) {
      if (!clauseId.test(id))
        throw new Error(`scenario "${entry.title}" names "${id}", which is not a clause or decision ID`);
    }
    return {
      title: entry.title,
      clauses,
      area,
      kind: entry.kind ?? "example",
      needs: entry.needs ?? [],
      run: entry.run,
    };
  });
}

let sequence = 0;

/**
 * A context for one scenario; `properties` collects what its property runs did. `scenario.signal` stops its
 * requests once aborted; `scenario.title` goes into the replay hint of a failed property; `scenario.trail`
 * records its requests (for messages); `scenario.svcHubAdmin` and `scenario.svcHubClock` are what the probes
 * before the run found; `scenario.cleanupSignal` ends the cleanup that may follow an abandonment.
 */
export function createContext(
  target: Target,
  runId: string,
  propertySettings: PropertySettings,
  properties: PropertyRecord[],
  scenario: {
    readonly signal?: AbortSignal;
    /** Aborted when the cleanup's time after an abandonment has run out (default: `signal`). */
    readonly cleanupSignal?: AbortSignal;
    /** The bound of each cleanup request, in milliseconds. */
    readonly cleanupRequestMs?: number;
    readonly title?: string;
    readonly trail?: RequestTrail;
    readonly svcHubAdmin?: SvcHubAdminProbe;
    readonly svcHubClock?: SvcHubClockProbe;
  } = {},
): ScenarioContext {
  const signal = scenario.signal ?? new AbortController().signal;
  const trail = scenario.trail ?? new RequestTrail();
  const adminHeaders = () => {
    if (!target.adminToken) throw new ScenarioSkip(adminTokenNeeded);
    return { authorization: `Bearer ${target.adminToken}` };
  };
  return {
    target,
    fixtures: target.fixtures,
    base: new HttpClient(target, "base", signal, trail),
    cleanupBase: new HttpClient(target, "base", scenario.cleanupSignal ?? signal, trail, scenario.cleanupRequestMs),
    collect: new HttpClient(target, "collect", signal, trail),
    moments: new HttpClient(target, "moments", signal, trail),
    signal,
    adminHeaders,
    clockHeaders() {
      if (scenario.svcHubClock && !scenario.svcHubClock.available) throw new ScenarioSkip(scenario.svcHubClock.reason);
      return adminHeaders();
    },
    hasClock: scenario.svcHubClock?.available === true,
    svcHubAdminHeaders() {
      if (scenario.svcHubAdmin && !scenario.svcHubAdmin.available) throw new ScenarioSkip(scenario.svcHubAdmin.reason);
      return adminHeaders();
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
