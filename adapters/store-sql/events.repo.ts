import { and, asc, count, desc, eq, gt, gte, inArray, lt, lte, or, type SQL, type Table } from "drizzle-orm";
import {
  type CollectedEvent,
  checkVisitorIds,
  deleteRunReceivedBefore,
  type EventQuery,
  type EventStore,
  type StoredEvent,
  searchNeedle,
  tallyVerdicts,
  type ValueErasure,
  type Verdict,
  type VerdictCount,
  type VerdictCountQuery,
  type Violation,
} from "../../core/ports/index.ts";
import { eraseValueFromEvent, erasureNeedle } from "../../core/privacy/index.ts";
import type { VisitorIdSource } from "../../core/visitors/index.ts";
import { columnsOf, type SqlColumn, type SqlDatabase } from "./sql-database.ts";
import type { SqlDialect } from "./sql-dialect.ts";

/** The `events` table (events.schema.ts of each store). */
export type EventsTable = Table & {
  readonly seq: SqlColumn<number>;
  readonly account: SqlColumn<string>;
  readonly profile: SqlColumn<string>;
  readonly visitorId: SqlColumn<string>;
  readonly visitorIdSource: SqlColumn<VisitorIdSource>;
  readonly thirdPartyVisitorId: SqlColumn<string, true>;
  readonly firstPartyVisitorId: SqlColumn<string, true>;
  readonly event: SqlColumn<string, true>;
  readonly datasource: SqlColumn<string, true>;
  readonly traceId: SqlColumn<string, true>;
  readonly receivedAt: SqlColumn<number>;
  readonly data: SqlColumn<string>;
  readonly verdict: SqlColumn<Verdict>;
  readonly violations: SqlColumn<string, true>;
};

/** The columns an event is written with, in a fixed order: all but `seq`, which the database gives. */
export const writtenEventColumns = [
  "account",
  "profile",
  "visitorId",
  "visitorIdSource",
  "thirdPartyVisitorId",
  "firstPartyVisitorId",
  "event",
  "datasource",
  "traceId",
  "receivedAt",
  "data",
  "verdict",
  "violations",
] as const;

/** The `violations` column of an event: the JSON of its violations, null when it has none. */
export function violationsText(event: Pick<CollectedEvent, "violations">): string | null {
  return event.violations === undefined || event.violations.length === 0 ? null : JSON.stringify(event.violations);
}

/** An event's violations as its `violations` column holds them. */
export function violationsOf(text: string | null): Violation[] {
  return text === null ? [] : (JSON.parse(text) as Violation[]);
}

/** A stored row with its JSON columns read. */
export function storedEventOfRow(
  row: Omit<StoredEvent, "data" | "violations"> & { readonly data: string; readonly violations: string | null },
): StoredEvent {
  return {
    ...row,
    data: JSON.parse(row.data) as Record<string, unknown>,
    violations: violationsOf(row.violations),
  };
}

/** The stored columns in a fixed order (libSQL's statement reader answers rows as arrays in this order). */
export function storedColumnsOf<T extends EventsTable>(events: T) {
  return columnsOf(events, ["seq", ...writtenEventColumns]);
}

/**
 * What a deletion's search for a value reads of a page of events (`seq` from `from` to `to`): the events of
 * the account and profile whose JSON text in `data`, or whose text in a column, holds it; no other is parsed.
 */
export function erasureCandidatesOf<T extends EventsTable>(
  events: T,
  dialect: SqlDialect,
  scope: { readonly account: string; readonly profile: string; readonly erased: string },
  from: number,
  to: number,
) {
  const { account, profile, erased } = scope;
  const texts = [
    events.visitorId,
    events.thirdPartyVisitorId,
    events.firstPartyVisitorId,
    events.event,
    events.datasource,
    events.traceId,
  ];
  return {
    columns: columnsOf(events, [
      "seq",
      "visitorId",
      "thirdPartyVisitorId",
      "firstPartyVisitorId",
      "event",
      "datasource",
      "traceId",
      "data",
      "violations",
    ]),
    where: and(
      gte(events.seq, from),
      lte(events.seq, to),
      eq(events.account, account),
      eq(events.profile, profile),
      or(
        dialect.contains(events.data, erasureNeedle(erased)),
        ...texts.map((column) => dialect.contains(column, erased)),
      ),
    ),
  };
}

/**
 * DEC-PRV-05: what the rules decide for a candidate of `erasureCandidatesOf`: the changes of its row when it is
 * edited (null otherwise), and whether its visitor is the value's subject (its events then go with it).
 */
export function eventErasureOf(
  row: Omit<
    StoredEvent,
    "account" | "profile" | "visitorIdSource" | "receivedAt" | "data" | "verdict" | "violations"
  > & {
    readonly data: string;
    readonly violations: string | null;
  },
  erased: string,
) {
  const erasure = eraseValueFromEvent(
    { ...row, data: JSON.parse(row.data) as Record<string, unknown>, violations: violationsOf(row.violations) },
    erased,
  );
  return {
    subject: erasure.kind === "subject",
    changes:
      erasure.kind === "edit"
        ? {
            data: JSON.stringify(erasure.data),
            event: erasure.event,
            datasource: erasure.datasource,
            traceId: erasure.traceId,
            violations: violationsText(erasure),
          }
        : null,
  };
}

/**
 * COL-16, DEC-COL-08: the collected events in SQL, for both stores: their reads and retention. Appending
 * (the collection's hot path), removing a visitor's events and rewriting erased values are each store's own.
 */
export abstract class SqlEventRepo implements EventStore {
  constructor(
    protected readonly db: SqlDatabase,
    protected readonly events: EventsTable,
    private readonly dialect: SqlDialect,
  ) {}

  abstract append(events: readonly CollectedEvent[], options?: Parameters<EventStore["append"]>[1]): Promise<void>;
  abstract deleteVisitors(account: string, profile: string, visitorIds: readonly string[]): Promise<number>;
  abstract eraseValue(account: string, profile: string, erased: string): Promise<ValueErasure>;

  async query(query: EventQuery): Promise<StoredEvent[]> {
    checkVisitorIds(query);
    if (query.visitorIds?.length === 0) return [];
    const { events } = this;
    const conditions = this.filtersOf(query);
    if (query.visitorId !== undefined) conditions.push(eq(events.visitorId, query.visitorId));
    if (query.visitorIds !== undefined) conditions.push(inArray(events.visitorId, [...query.visitorIds]));
    if (query.traceId !== undefined) conditions.push(eq(events.traceId, query.traceId));
    if (query.search !== undefined) conditions.push(this.dialect.contains(events.data, searchNeedle(query.search)));
    if (query.verdict !== undefined) conditions.push(eq(events.verdict, query.verdict));
    if (query.afterSeq !== undefined) conditions.push(gt(events.seq, query.afterSeq));
    if (query.beforeSeq !== undefined) conditions.push(lt(events.seq, query.beforeSeq));
    const rows = await this.db
      .select(storedColumnsOf(events))
      .from(events)
      .where(and(...conditions))
      .orderBy(query.order === "desc" ? desc(events.seq) : asc(events.seq))
      .limit(query.limit);
    return rows.map(storedEventOfRow);
  }

  async countVerdicts(query: VerdictCountQuery): Promise<VerdictCount[]> {
    const { events } = this;
    const rows = await this.db
      .select({ event: events.event, verdict: events.verdict, count: count() })
      .from(events)
      .where(and(...this.filtersOf(query)))
      .groupBy(events.event, events.verdict);
    return tallyVerdicts(rows);
  }

  /** The conditions of the filters that `query` and `countVerdicts` share. */
  private filtersOf(query: VerdictCountQuery): SQL[] {
    const { events } = this;
    const conditions: SQL[] = [];
    if (query.account !== undefined) conditions.push(eq(events.account, query.account));
    if (query.profile !== undefined) conditions.push(eq(events.profile, query.profile));
    if (query.event !== undefined) conditions.push(eq(events.event, query.event));
    if (query.from !== undefined) conditions.push(gte(events.receivedAt, query.from));
    if (query.to !== undefined) conditions.push(lte(events.receivedAt, query.to));
    return conditions;
  }

  /**
   * Event retention (deleteRunReceivedBefore): a sequence number is never reused (libSQL's AUTOINCREMENT;
   * PostgreSQL's sequence, under the events lock of append), so no event enters the range between the read
   * and the delete.
   */
  async deleteReceivedBefore(
    before: number,
    options: { readonly upToSeq: number; readonly limit: number },
  ): Promise<number> {
    return deleteRunReceivedBefore(before, options, {
      headOf: (upToSeq, limit) => this.headOf(upToSeq, limit),
      deleteUpTo: async (seq) =>
        this.dialect.rowsChanged(await this.db.delete(this.events).where(lte(this.events.seq, seq))),
    });
  }

  /** The sequence numbers and receipt times of the first `limit` events up to `upToSeq`, in key order. */
  private async headOf(upToSeq: number, limit: number): Promise<Array<{ seq: number; receivedAt: number }>> {
    const { events } = this;
    return this.db
      .select({ seq: events.seq, receivedAt: events.receivedAt })
      .from(events)
      .where(lte(events.seq, upToSeq))
      .orderBy(asc(events.seq))
      .limit(limit);
  }
}
