import type { IdSource } from "../ports/index.ts";
import { accountOfRequest, type FaultSpec, type PathMatcher } from "./fault-plan.rules.ts";
import { type JsonPathStep, jsonBodyHolds, parseJsonPath } from "./request-matcher.rules.ts";
import { seededRandom } from "./seeded-random.ts";

/** A fault in the plan: what was asked for, its id and how many more requests it answers. */
export interface Fault extends FaultSpec {
  /** `f1`, `f2`, ... in the order the faults were added on this node. */
  readonly id: string;
  readonly remaining: number;
}

/** What a fault may match beyond the method, path and query (issue 43): the request's headers and body. */
export interface FaultRequestParts {
  /** A header's value (several joined by ", "), or null; names in any case. */
  header(name: string): string | null;
  /** The body as text when the host read it (FaultPlan.readsBodies), else null. */
  readonly body: string | null;
}

interface PlannedFault {
  readonly spec: FaultSpec;
  readonly id: string;
  readonly matchesPath: PathMatcher;
  /** The steps of `matchJsonPath`'s path, read once. */
  readonly bodySteps: readonly JsonPathStep[] | null;
  /** The next number in [0, 1) of its draws: its seed's sequence, or the host's. */
  readonly draw: () => number;
  remaining: number;
}

/**
 * The faults set through `POST /admin/faults` (issue 33): each answers the next `times` requests that match
 * its method, path pattern, account, headers and body (issue 43), then is gone. A fault with a probability
 * answers a matching request only when its draw says so (issue 43); one it passes by is not counted. The first fault added that matches answers; kept in
 * memory, per node.
 */
export class FaultPlan {
  #faults: PlannedFault[] = [];
  #added = 0;

  /** `random`: the host's randomness, for a fault with a probability and no seed. */
  constructor(private readonly random: Pick<IdSource, "randomUnit">) {}

  /** Adds a checked fault (validateFaultInput), its path pattern compiled by the host, at the end of the plan. */
  add(spec: FaultSpec, matchesPath: PathMatcher): Fault {
    this.#added += 1;
    const planned: PlannedFault = {
      spec,
      id: `f${this.#added}`,
      matchesPath,
      bodySteps: spec.matchJsonPath === null ? null : parseJsonPath(spec.matchJsonPath.path),
      draw: spec.seed === null ? () => this.random.randomUnit() : seededRandom(spec.seed),
      remaining: spec.times,
    };
    this.#faults.push(planned);
    return viewOf(planned);
  }

  /** Whether a fault matches on the body: the host then reads the body's text for `take`. */
  get readsBodies(): boolean {
    return this.#faults.some((fault) => fault.bodySteps !== null);
  }

  /** How many faults are waiting for requests. */
  get size(): number {
    return this.#faults.length;
  }

  /** The faults still waiting for requests, oldest first. */
  list(): Fault[] {
    return this.#faults.map(viewOf);
  }

  /** Removes one fault; false when there is none of that id. */
  remove(id: string): boolean {
    const before = this.#faults.length;
    this.#faults = this.#faults.filter((fault) => fault.id !== id);
    return this.#faults.length < before;
  }

  /** Removes every fault (DELETE /admin/faults, POST /admin/reset). Ids keep counting up. */
  clear(): void {
    this.#faults = [];
  }

  /**
   * The fault that answers this request, counted down (and removed when spent), or null. Without faults
   * it returns at the first look: the collection endpoint passes here on every event.
   */
  take(method: string, path: string, query: string, parts?: FaultRequestParts): Fault | null {
    if (this.#faults.length === 0) return null;
    let account: string | null | undefined;
    for (const fault of this.#faults) {
      const { spec } = fault;
      if (spec.method !== null && spec.method !== method) continue;
      if (!fault.matchesPath(path)) continue;
      if (spec.account !== null) {
        account ??= accountOfRequest(path, query);
        if (account !== spec.account) continue;
      }
      const headers = Object.entries(spec.matchHeaders);
      if (headers.some(([name, value]) => parts?.header(name) !== value)) continue;
      if (fault.bodySteps !== null && !jsonBodyHolds(parts?.body ?? null, fault.bodySteps, spec.matchJsonPath?.equals))
        continue;
      // Drawn only for a request that matches: a seed's sequence is the same whatever else arrives.
      if (spec.probability < 1 && !(fault.draw() < spec.probability)) continue;
      fault.remaining -= 1;
      if (fault.remaining === 0) this.#faults = this.#faults.filter((other) => other !== fault);
      return viewOf(fault);
    }
    return null;
  }
}

function viewOf(fault: PlannedFault): Fault {
  return { id: fault.id, ...fault.spec, remaining: fault.remaining };
}
