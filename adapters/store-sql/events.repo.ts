import {
  type AnyColumn,
  and,
  asc,
  count,
  desc,
  eq,
  gt,
  gte,
  inArray,
  lt,
  lte,
  or,
  type SQL,
  sql,
  type Table,
} from "drizzle-orm";
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
import { eventBucketBits, visitorIndexMarkKey } from "./events.schema.ts";
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

/** The `event_visitors` table (events.schema.ts of each store): the per-visitor index built off the commit path. */
export type EventVisitorsTable = Table & {
  readonly bucket: SqlColumn<number>;
  readonly account: SqlColumn<string>;
  readonly profile: SqlColumn<string>;
  readonly visitorId: SqlColumn<string>;
  readonly seq: SqlColumn<number>;
};

/** The bucket of `event_visitors` a sequence number falls in (`seq >> eventBucketBits`, past 32 bits too). */
export function bucketOf(seq: number): number {
  return Math.floor(seq / 2 ** eventBucketBits);
}

/** Which visitors' events a read or a deletion by visitor selects: the account and profile when given. */
export interface VisitorScope {
  readonly account?: string | undefined;
  readonly profile?: string | undefined;
  readonly visitorIds: readonly string[];
  /** Only events after this sequence number (the buckets before it are not searched). */
  readonly afterSeq?: number | undefined;
}

/**
 * The events of the per-visitor index (events.schema.ts): the part of each store's events repository that reads
 * and writes `event_visitors`, in statements both databases run alike. Every event up to the mark (a settings
 * entry that only grows) has its entry; the events past it are found by a scan of the table's last rows.
 */
export class VisitorIndex {
  constructor(
    private readonly events: EventsTable,
    private readonly index: EventVisitorsTable,
    private readonly dialect: SqlDialect,
  ) {}

  /** The mark, read in the statement that uses it. */
  private get mark(): SQL<number> {
    return this.dialect.integerSetting(visitorIndexMarkKey);
  }

  /** The first or the last bucket the index holds (0 when it holds none), read in the statement that uses it. */
  private endBucket(end: "min" | "max"): SQL {
    return sql`coalesce((select ${sql.raw(end)}(${this.index.bucket}) from ${this.index}), 0)`;
  }

  /** True for the buckets from the first the index holds (or `afterSeq`'s) to the mark's. */
  private bucketsUpToMark(afterSeq: number | undefined): SQL {
    const { index, dialect } = this;
    const first = this.endBucket("min");
    const lowest = afterSeq === undefined ? first : dialect.greater(first, sql`${bucketOf(afterSeq + 1)}`);
    return dialect.isIntegerBetween(index.bucket, lowest, sql`${this.mark} >> ${sql.raw(String(eventBucketBits))}`);
  }

  /** The conditions on `table`'s account and profile that the scope names. */
  private scoped(table: EventsTable | EventVisitorsTable, scope: VisitorScope, unindexed = false): SQL[] {
    const column = (column: AnyColumn) => (unindexed ? this.dialect.unindexed(column) : column);
    const conditions: SQL[] = [];
    if (scope.account !== undefined) conditions.push(sql`${column(table.account)} = ${scope.account}`);
    if (scope.profile !== undefined) conditions.push(sql`${column(table.profile)} = ${scope.profile}`);
    return conditions;
  }

  /**
   * True for the events of the scope's visitors: their sequence numbers from the index (a seek per bucket) and
   * from the events past the mark (a scan of the rows appended since the last copy).
   */
  eventsOf(scope: VisitorScope): SQL {
    const { events, index } = this;
    const indexed = and(
      this.bucketsUpToMark(scope.afterSeq),
      ...this.scoped(index, scope),
      inArray(index.visitorId, [...scope.visitorIds]),
    );
    // Past the mark by sequence number alone: an index by account and profile would scan all of theirs.
    const recent = and(
      sql`${events.seq} > ${this.mark}`,
      ...this.scoped(events, scope, true),
      inArray(events.visitorId, [...scope.visitorIds]),
    );
    return sql`${events.seq} in (select ${index.seq} from ${index} where ${indexed} union all select ${events.seq} from ${events} where ${recent})`;
  }

  /** The index's entries of the scope's visitors, in every bucket: what their deletion removes with their events. */
  entriesOf(scope: VisitorScope): SQL | undefined {
    const { index, dialect } = this;
    return and(
      dialect.isIntegerBetween(index.bucket, this.endBucket("min"), this.endBucket("max")),
      ...this.scoped(index, scope),
      inArray(index.visitorId, [...scope.visitorIds]),
    );
  }

  /** The index's entries of the events up to `seq` (retention removes them after the events). */
  entriesUpTo(seq: number): SQL | undefined {
    return and(lte(this.index.bucket, bucketOf(seq)), lte(this.index.seq, seq));
  }

  /**
   * The statements that copy the events past the mark, up to `upToSeq`, into the index, in key order, and move
   * the mark to `upToSeq` (never back). Run in one transaction; an entry copied twice is kept once.
   */
  copyUpTo(upToSeq: number): SQL[] {
    const { events, index, mark } = this;
    const bits = sql.raw(String(eventBucketBits));
    return [
      sql`insert into ${index} (${sql.identifier("bucket")}, ${sql.identifier("account")}, ${sql.identifier("profile")}, ${sql.identifier("visitor_id")}, ${sql.identifier("seq")})
          select ${events.seq} >> ${bits}, ${events.account}, ${events.profile}, ${events.visitorId}, ${events.seq}
          from ${events} where ${events.seq} > ${mark} and ${events.seq} <= ${upToSeq}
          order by 1, 2, 3, 4, 5 on conflict do nothing`,
      sql`insert into settings (key, value) values (${visitorIndexMarkKey}, '0') on conflict do nothing`,
      sql`update settings set value = ${String(upToSeq)} where key = ${visitorIndexMarkKey} and ${mark} < ${upToSeq}`,
    ];
  }
}

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

/** The visitor ids a query selects by (both filters at once select the ids in both), undefined for none. */
function visitorsOf(query: EventQuery): readonly string[] | undefined {
  const { visitorId, visitorIds } = query;
  if (visitorIds === undefined) return visitorId === undefined ? undefined : [visitorId];
  return visitorId === undefined ? visitorIds : visitorIds.filter((id) => id === visitorId);
}

/**
 * COL-16, DEC-COL-08: the collected events in SQL, for both stores: their reads and retention. Appending
 * (the collection's hot path), removing a visitor's events and rewriting erased values are each store's own.
 */
export abstract class SqlEventRepo implements EventStore {
  protected readonly visitorIndex: VisitorIndex;

  constructor(
    protected readonly db: SqlDatabase,
    protected readonly events: EventsTable,
    protected readonly eventVisitors: EventVisitorsTable,
    private readonly dialect: SqlDialect,
  ) {
    this.visitorIndex = new VisitorIndex(events, eventVisitors, dialect);
  }

  abstract append(events: readonly CollectedEvent[], options?: Parameters<EventStore["append"]>[1]): Promise<void>;
  abstract indexVisitors(upToSeq: number): Promise<void>;
  abstract deleteVisitors(account: string, profile: string, visitorIds: readonly string[]): Promise<number>;
  abstract eraseValue(account: string, profile: string, erased: string): Promise<ValueErasure>;

  async query(query: EventQuery): Promise<StoredEvent[]> {
    checkVisitorIds(query);
    const { events } = this;
    const visitorIds = visitorsOf(query);
    if (visitorIds?.length === 0) return [];
    // A read by visitor: the account and profile narrow the sequence numbers the index finds, not the scan of
    // an index by account and profile.
    const { account, profile, afterSeq } = query;
    const conditions =
      visitorIds === undefined
        ? this.filtersOf(query)
        : [
            ...this.filtersOf({ ...query, account: undefined, profile: undefined }),
            this.visitorIndex.eventsOf({ account, profile, visitorIds, afterSeq }),
          ];
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
      // The events first: an entry left by a stop in between points at nothing, and the next run removes it.
      deleteUpTo: async (seq) => {
        const removed = this.dialect.rowsChanged(await this.db.delete(this.events).where(lte(this.events.seq, seq)));
        await this.db.delete(this.eventVisitors).where(this.visitorIndex.entriesUpTo(seq));
        return removed;
      },
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
