import { and, asc, desc, eq, gt, gte, inArray, lt, lte, or, type SQL, sql } from "drizzle-orm";
import type { CollectedEvent, EventQuery, EventStore, StoredEvent, ValueErasure } from "../../core/ports/index.ts";
import { checkVisitorIds, deleteRunReceivedBefore, maxVisitorIdsPerQuery } from "../../core/ports/index.ts";
import { eraseValueFromEvent, erasureNeedle } from "../../core/privacy/index.ts";
import { events } from "./events.schema.ts";
import { type ClientDatabase, chunks, rowStatements } from "./row-statements.ts";
import { forEachRowidPage } from "./rowid-pages.ts";
import { type ReaderQuery, readerQuery, type StatementReader } from "./statement-reader.ts";

/**
 * Rows per INSERT statement (11 bound values a row, far below SQLite's limit of 32766): a group commit is one
 * statement; an import batch is a few in one transaction. It also bounds the statement texts kept (one per
 * row count).
 */
const rowsPerStatement = 250;

/** Visitor ids per DELETE statement (bound values), far below SQLite's limit. */
const idsPerStatement = maxVisitorIdsPerQuery;

type EventRow = typeof events.$inferInsert;

function toRow(event: CollectedEvent): EventRow {
  return {
    account: event.account,
    profile: event.profile,
    visitorId: event.visitorId,
    visitorIdSource: event.visitorIdSource,
    thirdPartyVisitorId: event.thirdPartyVisitorId,
    firstPartyVisitorId: event.firstPartyVisitorId,
    event: event.event,
    datasource: event.datasource,
    traceId: event.traceId,
    receivedAt: event.receivedAt,
    data: JSON.stringify(event.data),
  };
}

/** The stored columns in a fixed order, for reads whose rows come back as arrays. */
const storedColumns = {
  seq: events.seq,
  account: events.account,
  profile: events.profile,
  visitorId: events.visitorId,
  visitorIdSource: events.visitorIdSource,
  thirdPartyVisitorId: events.thirdPartyVisitorId,
  firstPartyVisitorId: events.firstPartyVisitorId,
  event: events.event,
  datasource: events.datasource,
  traceId: events.traceId,
  receivedAt: events.receivedAt,
  data: events.data,
};

function storedEventOf(row: unknown[]): StoredEvent {
  const [
    seq,
    account,
    profile,
    visitorId,
    visitorIdSource,
    thirdPartyVisitorId,
    firstPartyVisitorId,
    event,
    datasource,
    traceId,
    receivedAt,
    data,
  ] = row;
  return {
    seq: seq as number,
    account: account as string,
    profile: profile as string,
    visitorId: visitorId as string,
    visitorIdSource: visitorIdSource as StoredEvent["visitorIdSource"],
    thirdPartyVisitorId: thirdPartyVisitorId as string | null,
    firstPartyVisitorId: firstPartyVisitorId as string | null,
    event: event as string | null,
    datasource: datasource as string | null,
    traceId: traceId as string | null,
    receivedAt: receivedAt as number,
    data: JSON.parse(data as string) as Record<string, unknown>,
  };
}

/** The profile worker's read: every event after a sequence number, oldest first, with no other filter. */
function isInOrderRead(query: EventQuery): boolean {
  return (
    query.order !== "desc" &&
    query.account === undefined &&
    query.profile === undefined &&
    query.visitorId === undefined &&
    query.visitorIds === undefined &&
    query.event === undefined &&
    query.traceId === undefined &&
    query.from === undefined &&
    query.to === undefined &&
    query.beforeSeq === undefined
  );
}

const eventColumns = [
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
] as const;

export class LibsqlEventRepo implements EventStore {
  /** The INSERT of n events, its text built once per n (n up to rowsPerStatement). */
  private readonly insertEvents;

  /** The profile worker's read (every event after a sequence number, in order) on the statement reader. */
  private readonly inOrder: ReaderQuery | null;

  constructor(
    private readonly db: ClientDatabase,
    private readonly reader: StatementReader | null = null,
  ) {
    this.insertEvents = rowStatements<EventRow>(eventColumns, (rows) => db.insert(events).values(rows));
    this.inOrder = reader
      ? readerQuery(
          db
            .select(storedColumns)
            .from(events)
            .where(gt(events.seq, sql.placeholder("afterSeq")))
            .orderBy(asc(events.seq))
            .limit(sql.placeholder("limit"))
            .toSQL(),
        )
      : null;
  }

  /**
   * DEC-COL-08: one multi-row INSERT is one implicit transaction, so a group of events costs one WAL sync
   * (synchronous=FULL) and is stored whole or not at all. A larger group is split into statements that
   * run in one `db.batch` (one transaction).
   */
  async append(
    collected: readonly CollectedEvent[],
    options: { readonly mark?: { readonly key: string; readonly value: string } } = {},
  ): Promise<void> {
    const rows = collected.map(toRow);
    const mark = options.mark
      ? [
          {
            sql: "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            args: [options.mark.key, options.mark.value],
          },
        ]
      : [];
    if (rows.length === 0 && mark.length === 0) return;
    if (rows.length <= rowsPerStatement && mark.length === 0) {
      await this.db.$client.execute(this.insertEvents(rows));
      return;
    }
    await this.db.$client.batch([...chunks(rows, rowsPerStatement).map(this.insertEvents), ...mark], "write");
  }

  async query(query: EventQuery): Promise<StoredEvent[]> {
    checkVisitorIds(query);
    if (query.visitorIds?.length === 0) return [];
    if (this.reader && this.inOrder && isInOrderRead(query)) {
      return this.reader.rows(this.inOrder, { afterSeq: query.afterSeq ?? 0, limit: query.limit }).map(storedEventOf);
    }
    const conditions: SQL[] = [];
    if (query.account !== undefined) conditions.push(eq(events.account, query.account));
    if (query.profile !== undefined) conditions.push(eq(events.profile, query.profile));
    if (query.visitorId !== undefined) conditions.push(eq(events.visitorId, query.visitorId));
    if (query.visitorIds !== undefined) conditions.push(inArray(events.visitorId, [...query.visitorIds]));
    if (query.event !== undefined) conditions.push(eq(events.event, query.event));
    if (query.traceId !== undefined) conditions.push(eq(events.traceId, query.traceId));
    if (query.from !== undefined) conditions.push(gte(events.receivedAt, query.from));
    if (query.to !== undefined) conditions.push(lte(events.receivedAt, query.to));
    if (query.afterSeq !== undefined) conditions.push(gt(events.seq, query.afterSeq));
    if (query.beforeSeq !== undefined) conditions.push(lt(events.seq, query.beforeSeq));
    const rows = await this.db
      .select()
      .from(events)
      .where(and(...conditions))
      .orderBy(query.order === "desc" ? desc(events.seq) : asc(events.seq))
      .limit(query.limit);
    return rows.map((row) => ({ ...row, data: JSON.parse(row.data) as Record<string, unknown> }));
  }

  /**
   * PRV-09, DEC-PRV-04: one `db.batch`, so the visitor's events go all at once. secure_delete is per
   * connection, so the batch asserts it itself: the removed rows' bytes are zeroed in the file.
   */
  async deleteVisitors(account: string, profile: string, visitorIds: readonly string[]): Promise<number> {
    const ids = [...new Set(visitorIds)];
    if (ids.length === 0) return 0;
    const deletions = chunks(ids, idsPerStatement).map((chunk) =>
      this.db
        .delete(events)
        .where(and(eq(events.account, account), eq(events.profile, profile), inArray(events.visitorId, chunk))),
    );
    const [, ...results] = await this.db.batch([this.db.run(sql`PRAGMA secure_delete = ON`), ...deletions]);
    return results.reduce((sum, result) => sum + result.rowsAffected, 0);
  }

  /**
   * DEC-PRV-05: the events that may hold the value are found by SQLite (its JSON text in `data`, or the text
   * in a column: instr, no parse of the others), the rules decide on each, and the rewrites go in one
   * `db.batch` with secure_delete on, so the old bytes are zeroed in the file. Reads every event of the
   * account/profile once: a deletion is rare and runs in the background.
   */
  async eraseValue(account: string, profile: string, erased: string): Promise<ValueErasure> {
    const inText = (column: SQL) => sql`instr(coalesce(${column}, ''), ${erased}) > 0`;
    const visitorIds = new Set<string>();
    let rewritten = 0;
    // A page of sequence numbers at a time (forEachRowidPage): a short value ("42") is found in nearly every
    // event, and all of them at once would be held in memory and read in one statement while nothing else runs.
    await forEachRowidPage(this.db, events, async (from, to) => {
      const candidates = await this.db
        .select({
          seq: events.seq,
          visitorId: events.visitorId,
          thirdPartyVisitorId: events.thirdPartyVisitorId,
          firstPartyVisitorId: events.firstPartyVisitorId,
          event: events.event,
          datasource: events.datasource,
          traceId: events.traceId,
          data: events.data,
        })
        .from(events)
        .where(
          and(
            gte(events.seq, from),
            lte(events.seq, to),
            eq(events.account, account),
            eq(events.profile, profile),
            or(
              sql`instr(${events.data}, ${erasureNeedle(erased)}) > 0`,
              ...[
                events.visitorId,
                events.thirdPartyVisitorId,
                events.firstPartyVisitorId,
                events.event,
                events.datasource,
                events.traceId,
              ].map((column) => inText(sql`${column}`)),
            ),
          ),
        );
      const rewrites = [];
      for (const row of candidates) {
        const erasure = eraseValueFromEvent({ ...row, data: JSON.parse(row.data) as Record<string, unknown> }, erased);
        if (erasure.kind === "subject") visitorIds.add(row.visitorId);
        if (erasure.kind !== "edit") continue;
        rewrites.push(
          this.db
            .update(events)
            .set({
              data: JSON.stringify(erasure.data),
              event: erasure.event,
              datasource: erasure.datasource,
              traceId: erasure.traceId,
            })
            .where(eq(events.seq, row.seq)),
        );
      }
      if (rewrites.length > 0) await this.db.batch([this.db.run(sql`PRAGMA secure_delete = ON`), ...rewrites]);
      rewritten += rewrites.length;
    });
    return { rewritten, visitorIds: [...visitorIds].sort() };
  }

  /**
   * Event retention (deleteRunReceivedBefore): AUTOINCREMENT never gives a sequence number at or below one
   * already used, so no event enters the range between the read and the delete.
   */
  async deleteReceivedBefore(
    before: number,
    options: { readonly upToSeq: number; readonly limit: number },
  ): Promise<number> {
    return deleteRunReceivedBefore(before, options, {
      headOf: (upToSeq, limit) => this.headOf(upToSeq, limit),
      deleteUpTo: async (seq) => {
        const result = await this.db.delete(events).where(lte(events.seq, seq));
        return result.rowsAffected;
      },
    });
  }

  /** The sequence numbers and receipt times of the first `limit` events up to `upToSeq`, in key order. */
  private headOf(upToSeq: number, limit: number): Promise<Array<{ seq: number; receivedAt: number }>> {
    return this.db
      .select({ seq: events.seq, receivedAt: events.receivedAt })
      .from(events)
      .where(lte(events.seq, upToSeq))
      .orderBy(asc(events.seq))
      .limit(limit);
  }
}
