import type fc from "fast-check";
import { adminTokenNeeded } from "./admin-token.ts";
import type { Capability, CapabilityProbes } from "./capabilities.ts";
import { HttpClient, RequestTrail, ScenarioSkip } from "./client.ts";
import { checkProperty, type PropertyRecord, type PropertySettings } from "./property.ts";
import type { Target, TargetFixtures } from "./target.ts";

/** example: one case from the spec; property: fast-check over many cases; e2e: a flow across several APIs. */
export type ScenarioKind = "example" | "property" | "e2e";

/**
 * What a scenario needs beyond plain HTTP; without it the scenario is skipped, with the reason. admin: the
 * admin token, for the admin routes the interface names (DEC-OPS-04: the file upload, the revision publish and
 * POST /admin/wait). The others are capabilities (capabilities.ts, specified in conformance/INTERPRETING.md):
 * test-clock, a test clock the admin API reads, sets and advances (DEC-OPS-02 names no route); event-log, the
 * stored events and collection counters; user-admin, users and API keys. Each is probed once before the run and
 * implies the admin token.
 */
export type ScenarioNeed = "admin" | Capability;

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
   * Headers that authorise a call of a capability's routes (the admin token); skips the scenario when the probe
   * before the run found the target without it (a scenario using them declares the capability in its needs).
   */
  capabilityHeaders(capability: Capability): Record<string, string>;
  /** Whether the probe before the run found the capability, for a scenario that can do without it. */
  hasCapability(capability: Capability): boolean;
  /** capabilityHeaders("test-clock"): for the test clock's routes (needs: ["test-clock"]). */
  clockHeaders(): Record<string, string>;
  /** hasCapability("test-clock"). */
  readonly hasClock: boolean;
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
 * records its requests (for messages); `scenario.capabilities` is what the probes before the run found; `scenario.cleanupSignal` ends the cleanup that may follow an abandonment.
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
    readonly capabilities?: CapabilityProbes;
  } = {},
): ScenarioContext {
  const signal = scenario.signal ?? new AbortController().signal;
  const trail = scenario.trail ?? new RequestTrail();
  const adminHeaders = () => {
    if (!target.adminToken) throw new ScenarioSkip(adminTokenNeeded);
    return { authorization: `Bearer ${target.adminToken}` };
  };
  const capabilityHeaders = (capability: Capability) => {
    const probe = scenario.capabilities?.[capability];
    if (probe && !probe.available) throw new ScenarioSkip(probe.reason);
    return adminHeaders();
  };
  const hasCapability = (capability: Capability) => scenario.capabilities?.[capability]?.available === true;
  return {
    target,
    fixtures: target.fixtures,
    base: new HttpClient(target, "base", signal, trail),
    cleanupBase: new HttpClient(target, "base", scenario.cleanupSignal ?? signal, trail, scenario.cleanupRequestMs),
    collect: new HttpClient(target, "collect", signal, trail),
    moments: new HttpClient(target, "moments", signal, trail),
    signal,
    adminHeaders,
    capabilityHeaders,
    hasCapability,
    clockHeaders: () => capabilityHeaders("test-clock"),
    hasClock: hasCapability("test-clock"),
    uniqueId(prefix) {
      sequence += 1;
      return `${prefix}_${runId}_${sequence}`;
    },
    checkProperty(property, options) {
      return checkProperty(property, { ...propertySettings, scenarioTitle: scenario.title }, properties, options);
    },
  };
}
