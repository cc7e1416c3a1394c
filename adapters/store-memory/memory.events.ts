import type {
  CollectedEvent,
  EventQuery,
  EventStore,
  StoredEvent,
  ValueErasure,
  VerdictCount,
  VerdictCountQuery,
} from "../../core/ports/index.ts";
import { checkVisitorIds, searchNeedle, tallyVerdicts } from "../../core/ports/index.ts";
import { eraseValueFromEvent } from "../../core/privacy/index.ts";

/** Where an event passes the filters a query shares with countVerdicts. */
function passesFilters(event: StoredEvent, query: VerdictCountQuery): boolean {
  return (
    (query.account === undefined || event.account === query.account) &&
    (query.profile === undefined || event.profile === query.profile) &&
    (query.event === undefined || event.event === query.event) &&
    (query.from === undefined || event.receivedAt >= query.from) &&
    (query.to === undefined || event.receivedAt <= query.to)
  );
}

/** Where an event passes a query's filters (shared with nothing else: the SQL stores do it in SQL). */
function matches(event: StoredEvent, query: EventQuery): boolean {
  return (
    passesFilters(event, query) &&
    (query.visitorId === undefined || event.visitorId === query.visitorId) &&
    (query.visitorIds === undefined || query.visitorIds.includes(event.visitorId)) &&
    (query.traceId === undefined || event.traceId === query.traceId) &&
    (query.search === undefined || JSON.stringify(event.data).includes(searchNeedle(query.search))) &&
    (query.verdict === undefined || event.verdict === query.verdict) &&
    (query.afterSeq === undefined || event.seq > query.afterSeq) &&
    (query.beforeSeq === undefined || event.seq < query.beforeSeq)
  );
}

/**
 * The reference EventStore: events in commit order. `append` copies every event before it changes
 * anything, so a batch is stored whole or not at all; a closed store refuses to commit.
 */
export class MemoryEventStore implements EventStore {
  private readonly events: StoredEvent[] = [];
  private nextSeq = 1;

  constructor(
    private readonly isClosed: () => boolean = () => false,
    /** Sets a settings entry (append's `mark`), synchronously, so it lands with the events or not at all. */
    private readonly setSetting: (key: string, value: string) => void = () => {
      throw new Error("this event store has no settings to mark");
    },
  ) {}

  async append(
    events: readonly CollectedEvent[],
    options: { readonly mark?: { readonly key: string; readonly value: string } } = {},
  ): Promise<void> {
    if (this.isClosed()) throw new Error("store is closed");
    const copies = structuredClone(events);
    for (const event of copies)
      this.events.push({
        ...event,
        verdict: event.verdict ?? "none",
        violations: event.violations ?? [],
        seq: this.nextSeq++,
      });
    if (options.mark) this.setSetting(options.mark.key, options.mark.value);
  }

  /** Removes every record at once, without awaiting (POST /admin/reset, Stores.eraseAll); answers how many there were; `nextSeq` goes on. */
  eraseAll(): number {
    const count = this.events.length;
    this.events.length = 0;
    return count;
  }

  async query(query: EventQuery): Promise<StoredEvent[]> {
    checkVisitorIds(query);
    const found: StoredEvent[] = [];
    const descending = query.order === "desc";
    for (
      let index = descending ? this.events.length - 1 : 0;
      index >= 0 && index < this.events.length && found.length < query.limit;
      index += descending ? -1 : 1
    ) {
      const event = this.events[index] as StoredEvent;
      if (matches(event, query)) found.push(structuredClone(event));
    }
    return found;
  }

  async countVerdicts(query: VerdictCountQuery): Promise<VerdictCount[]> {
    return tallyVerdicts(
      this.events
        .filter((event) => passesFilters(event, query))
        .map(({ event, verdict }) => ({ event, verdict, count: 1 })),
    );
  }

  /** Reads by visitor filter the events in memory: there is no index to build. */
  async indexVisitors(_upToSeq: number): Promise<void> {
    if (this.isClosed()) throw new Error("store is closed");
  }

  async deleteVisitors(account: string, profile: string, visitorIds: readonly string[]): Promise<number> {
    if (this.isClosed()) throw new Error("store is closed");
    const ids = new Set(visitorIds);
    // Compacted in place (no spread), so that a large store does not overflow the call stack.
    let kept = 0;
    for (const event of this.events) {
      if (!(event.account === account && event.profile === profile && ids.has(event.visitorId)))
        this.events[kept++] = event;
    }
    const removed = this.events.length - kept;
    this.events.length = kept;
    return removed;
  }

  async eraseValue(account: string, profile: string, erased: string): Promise<ValueErasure> {
    if (this.isClosed()) throw new Error("store is closed");
    const visitorIds = new Set<string>();
    let rewritten = 0;
    this.events.forEach((event, index) => {
      if (event.account !== account || event.profile !== profile) return;
      const erasure = eraseValueFromEvent(event, erased);
      if (erasure.kind === "subject") visitorIds.add(event.visitorId);
      if (erasure.kind !== "edit") return;
      this.events[index] = {
        ...event,
        data: erasure.data,
        event: erasure.event,
        datasource: erasure.datasource,
        traceId: erasure.traceId,
        violations: erasure.violations,
      };
      rewritten += 1;
    });
    return { rewritten, visitorIds: [...visitorIds].sort() };
  }

  async deleteReceivedBefore(
    before: number,
    options: { readonly upToSeq: number; readonly limit: number },
  ): Promise<number> {
    if (this.isClosed()) throw new Error("store is closed");
    let count = 0;
    for (const event of this.events) {
      if (count >= options.limit || event.seq > options.upToSeq || event.receivedAt >= before) break;
      count += 1;
    }
    this.events.splice(0, count);
    return count;
  }
}
