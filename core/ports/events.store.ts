import type { VisitorIdSource } from "../visitors/visitor-id.rules.ts";

/**
 * What the tracking plan says of a stored event (docs/decisions.md, "The tracking plan"): its parameters fit
 * every schema that applies, break one, or no schema applies (no plan, or none for its name and none for all).
 */
export type Verdict = "valid" | "invalid" | "none";

export const verdicts: readonly Verdict[] = ["valid", "invalid", "none"];

/** One way an event breaks its tracking plan. */
export interface Violation {
  /** The event parameter at fault (the first segment of `path`); "" for the event as a whole. */
  readonly parameter: string;
  /** Where in the parameters, as a JSON Pointer (`/items/0/sku`); "" for the event as a whole. */
  readonly path: string;
  /** The JSON Schema keyword that failed (`type`, `required`, `pattern`, ...). */
  readonly rule: string;
  /** The offending value; absent where there is none (a required parameter missing). */
  readonly value?: unknown;
  /** The validator's sentence ("must be number"). */
  readonly message: string;
}

/** One collected event, as committed before its 200 answer (COL-16, DEC-COL-08). */
export interface CollectedEvent {
  readonly account: string;
  readonly profile: string;
  /** The resolved svc_visitor_id (DEC-COL-09). */
  readonly visitorId: string;
  /** Which row of the precedence table gave it, or `new`. */
  readonly visitorIdSource: VisitorIdSource;
  /** svc_thirdparty_visitor_id (the TAPID entry), where known. */
  readonly thirdPartyVisitorId: string | null;
  /** svc_firstparty_visitor_id, where known. */
  readonly firstPartyVisitorId: string | null;
  /** svc_event */
  readonly event: string | null;
  /** svc_datasource */
  readonly datasource: string | null;
  /** svc_trace_id */
  readonly traceId: string | null;
  /** Virtual-clock time the event was received, epoch milliseconds. */
  readonly receivedAt: number;
  /** Every parameter as stored (COL-14): custom parameters, the resolved visitor IDs, svc_referrer_host. */
  readonly data: Readonly<Record<string, unknown>>;
  /** The tracking plan's verdict, given as the event is stored (judgingEventStore); absent: none. */
  readonly verdict?: Verdict;
  /** With `invalid`, every violation; otherwise empty or absent. */
  readonly violations?: readonly Violation[];
}

/** A stored event with its sequence number (increasing in commit order, never reused) and its verdict. */
export interface StoredEvent extends CollectedEvent {
  readonly seq: number;
  readonly verdict: Verdict;
  readonly violations: readonly Violation[];
}

/** How many events of one name each verdict has (EventStore.countVerdicts). */
export interface VerdictCount {
  /** svc_event; null for events without one. */
  readonly event: string | null;
  readonly valid: number;
  readonly invalid: number;
  readonly none: number;
}

/** A filter over stored events; every given field must match. Times are inclusive. */
/** EventQuery.search as it occurs in the JSON text of an event's `data`: its quotes and backslashes escaped. */
export function searchNeedle(search: string): string {
  return JSON.stringify(search).slice(1, -1);
}

/** The most visitor ids one EventQuery may name (one statement's worth). */
export const maxVisitorIdsPerQuery = 500;

/** Refuses a query naming more visitor ids than one statement takes: a caller asks in chunks. */
export function checkVisitorIds(query: { readonly visitorIds?: readonly string[] }): void {
  if (query.visitorIds && query.visitorIds.length > maxVisitorIdsPerQuery) {
    throw new RangeError(
      `an event query names at most ${maxVisitorIdsPerQuery} visitor ids, not ${query.visitorIds.length}`,
    );
  }
}

/** An event's sequence number and receipt time: what retention reads of the oldest events. */
export interface EventReceipt {
  readonly seq: number;
  readonly receivedAt: number;
}

/**
 * EventStore.deleteReceivedBefore for a store whose events are ordered by sequence number: reads the first
 * `limit` events up to `upToSeq` in key order (`headOf`) and deletes, as one range of sequence numbers
 * (`deleteUpTo`), the run of them received before `before`, so nothing after the first event to keep is read.
 * The usual answer, nothing old enough, costs one row's read. The store must guarantee that no event enters
 * the range between the read and the delete (sequence numbers are never reused and become visible in order).
 */
export async function deleteRunReceivedBefore(
  before: number,
  options: { readonly upToSeq: number; readonly limit: number },
  store: {
    headOf(upToSeq: number, limit: number): Promise<readonly EventReceipt[]>;
    deleteUpTo(seq: number): Promise<number>;
  },
): Promise<number> {
  const [first] = await store.headOf(options.upToSeq, 1);
  if (first === undefined || first.receivedAt >= before) return 0;
  let last: number | null = null;
  for (const event of await store.headOf(options.upToSeq, options.limit)) {
    if (event.receivedAt >= before) break;
    last = event.seq;
  }
  return last === null ? 0 : store.deleteUpTo(last);
}

export interface EventQuery {
  readonly account?: string;
  readonly profile?: string;
  readonly visitorId?: string;
  /** Only events of one of these visitor ids (at most maxVisitorIdsPerQuery; none: no event). */
  readonly visitorIds?: readonly string[];
  readonly event?: string;
  readonly traceId?: string;
  /**
   * Only events whose stored parameters hold this text in a name or a value, case-sensitive: the text, written
   * as JSON writes it inside a string (`searchNeedle`), occurs in the JSON text of `data`.
   */
  readonly search?: string;
  /** Only events of this verdict of the tracking plan. */
  readonly verdict?: Verdict;
  readonly from?: number;
  readonly to?: number;
  /** Only events with a larger sequence number (paging forwards, and consuming in order). */
  readonly afterSeq?: number;
  /** Only events with a smaller sequence number (paging backwards). */
  readonly beforeSeq?: number;
  readonly limit: number;
  /** By sequence number; ascending (oldest first) by default. */
  readonly order?: "asc" | "desc";
}

/**
 * EventStore.countVerdicts from counts by event name and verdict (a row per event, or per group a database
 * counted): one count per name, ordered by name, events without one last.
 */
export function tallyVerdicts(
  rows: Iterable<{ readonly event: string | null; readonly verdict: Verdict; readonly count: number }>,
): VerdictCount[] {
  const byEvent = new Map<string | null, { event: string | null; valid: number; invalid: number; none: number }>();
  for (const row of rows) {
    const counts = byEvent.get(row.event) ?? { event: row.event, valid: 0, invalid: 0, none: 0 };
    counts[row.verdict] += Number(row.count);
    byEvent.set(row.event, counts);
  }
  return [...byEvent.values()].sort((a, b) => {
    if (a.event === b.event) return 0;
    if (a.event === null || b.event === null) return a.event === null ? 1 : -1;
    return a.event < b.event ? -1 : 1;
  });
}

/** The filters of EventStore.countVerdicts. */
export type VerdictCountQuery = Pick<EventQuery, "account" | "profile" | "event" | "from" | "to">;

/** The collected events (COL-16, DEC-COL-08), kept in commit order for per-visitor processing. */
export interface EventStore {
  /**
   * Commits the events together: when the promise resolves every one is durable; when it rejects none is
   * stored. With `mark`, that settings entry is set in the same commit (a file import's progress: after a
   * crash it says exactly which rows are events already).
   */
  append(
    events: readonly CollectedEvent[],
    options?: { readonly mark?: { readonly key: string; readonly value: string } },
  ): Promise<void>;
  query(query: EventQuery): Promise<StoredEvent[]>;
  /**
   * Builds the store's per-visitor index of the events up to `upToSeq`, off the commit path (the profile worker
   * calls it before each batch): an append writes the events alone, and a read by visitor finds the events not
   * yet indexed by a scan of the newest. Never undoes what it did; calling it again for the same or a lower
   * number does nothing. A store whose reads by visitor need no index of its own (memory) has nothing to do.
   */
  indexVisitors(upToSeq: number): Promise<void>;
  /**
   * The tracking plan's verdicts counted by event name, of the events the query's filters select (its limit,
   * order and paging are ignored), ordered by event name, events without one last.
   */
  countVerdicts(query: VerdictCountQuery): Promise<VerdictCount[]>;
  /**
   * PRV-09, DEC-PRV-04: removes every event of these visitor ids in the account and profile (collected and
   * imported alike), in one commit, and answers how many were removed. Sequence numbers are never reused.
   */
  deleteVisitors(account: string, profile: string, visitorIds: readonly string[]): Promise<number>;
  /**
   * DEC-PRV-05: takes a deleted value (normalised) out of every event of the account and profile, as
   * eraseValueFromEvent decides, in one commit: events rewritten without the parameters that held it, their
   * old bytes overwritten. The events whose own visitor IDs hold it (the data subject's) are left as they
   * are and their visitor ids answered, for the caller to remove with their visitors (deleteVisitors): so a
   * try that stops before that finds them again.
   */
  eraseValue(account: string, profile: string, erased: string): Promise<ValueErasure>;
  /**
   * Event retention (ours): removes the oldest events in commit order, of every account, that were received
   * before `before`: at most `limit`, none after `upToSeq`, and none after the first (in sequence order) that
   * was received at `before` or later, so it costs what it removes and never a scan of what stays. Answers
   * how many were removed. Sequence numbers are never reused.
   */
  deleteReceivedBefore(before: number, options: { readonly upToSeq: number; readonly limit: number }): Promise<number>;
}

/** What EventStore.eraseValue did and found. */
export interface ValueErasure {
  /** Events rewritten without the value. */
  readonly rewritten: number;
  /** The visitor ids of the events whose own visitor IDs hold the value (eraseValueFromEvent: `subject`), each once. */
  readonly visitorIds: readonly string[];
}
