/**
 * What an event costs, and what a rate of events needs (docs/scaling.md). Pure: `bun bench/postgres.ts` measures
 * the CPU ticks and the bytes, these functions turn them into microseconds an event and into cores and disk.
 */
import { clockTicksPerSecond } from "./proc.ts";

/** CPU microseconds an event: `ticks` of CPU (Linux's USER_HZ) spent storing `events` events. */
export function microsPerEvent(ticks: number, events: number): number | null {
  return events > 0 ? ((ticks / clockTicksPerSecond) * 1e6) / events : null;
}

export interface NodeCost {
  readonly ticks: number;
  /** Events this node collected (answered 200) over the same span. */
  readonly events: number;
}

/**
 * Two nodes under the same load: one of them holds the profiles lease and folds every event of the cluster into
 * its visitor's profile, the other only collects. The cheaper node's microseconds an event are the collection's;
 * what the other spent beyond its own collection, over every event, is the fold's.
 */
export function splitNodeCost(nodes: readonly [NodeCost, NodeCost]): { collect: number; fold: number } | null {
  const [first, second] = nodes;
  const perEvent = nodes.map((node) => microsPerEvent(node.ticks, node.events));
  if (perEvent[0] == null || perEvent[1] == null) return null;
  const collector = perEvent[0] <= perEvent[1] ? 0 : 1;
  const collect = perEvent[collector] as number;
  const folder = collector === 0 ? second : first;
  const total = first.events + second.events;
  const foldMicros = ((folder.ticks / clockTicksPerSecond) * 1e6 - collect * folder.events) / total;
  return { collect, fold: Math.max(0, foldMicros) };
}

export interface EventCosts {
  /** A node's CPU for collecting an event (HTTP, the use case, the commit's share), microseconds. */
  readonly collectMicros: number;
  /** The profile fold's CPU an event, on the one node that holds the lease, microseconds. */
  readonly foldMicros: number;
  /** PostgreSQL's CPU an event, every backend together, microseconds. */
  readonly postgresMicros: number;
  /** Bytes the events table (with its indexes) takes an event. */
  readonly eventBytes: number;
}

export interface Capacity {
  readonly eventsPerSecond: number;
  /** Cores of collecting nodes, each kept at `busy` of its cores. */
  readonly nodeCores: number;
  /** Share of one core the fold takes on the lease holder (it runs on one thread: above 1 it cannot keep up). */
  readonly foldCores: number;
  /** Cores of PostgreSQL's one primary, kept at `busy`. */
  readonly postgresCores: number;
  /** The events table's growth a day, in GiB. */
  readonly gibPerDay: number;
}

/** What `eventsPerSecond` needs with these costs, each machine kept at `busy` (0.7: room for peaks) of its cores. */
export function capacityFor(eventsPerSecond: number, costs: EventCosts, busy = 0.7): Capacity {
  const cores = (micros: number) => (eventsPerSecond * micros) / 1e6;
  return {
    eventsPerSecond,
    nodeCores: cores(costs.collectMicros) / busy,
    foldCores: cores(costs.foldMicros),
    postgresCores: cores(costs.postgresMicros) / busy,
    gibPerDay: (eventsPerSecond * costs.eventBytes * 86_400) / 1024 ** 3,
  };
}
