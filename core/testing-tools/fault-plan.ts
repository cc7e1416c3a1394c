import { accountOfRequest, type FaultSpec, type PathMatcher } from "./fault-plan.rules.ts";

/** A fault in the plan: what was asked for, its id and how many more requests it answers. */
export interface Fault extends FaultSpec {
  /** `f1`, `f2`, ... in the order the faults were added on this node. */
  readonly id: string;
  readonly remaining: number;
}

interface PlannedFault {
  readonly spec: FaultSpec;
  readonly id: string;
  readonly matchesPath: PathMatcher;
  remaining: number;
}

/**
 * The faults set through `POST /admin/faults` (issue 33): each answers the next `times` requests that match
 * its method, path pattern and account, then is gone. The first fault added that matches answers; kept in
 * memory, per node.
 */
export class FaultPlan {
  #faults: PlannedFault[] = [];
  #added = 0;

  /** Adds a checked fault (validateFaultInput), its path pattern compiled by the host, at the end of the plan. */
  add(spec: FaultSpec, matchesPath: PathMatcher): Fault {
    this.#added += 1;
    const planned: PlannedFault = {
      spec,
      id: `f${this.#added}`,
      matchesPath,
      remaining: spec.times,
    };
    this.#faults.push(planned);
    return viewOf(planned);
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
  take(method: string, path: string, query: string): Fault | null {
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
