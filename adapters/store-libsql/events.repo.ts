import { asc, eq, gt, sql } from "drizzle-orm";
import type { CollectedEvent, EventQuery, StoredEvent, ValueErasure } from "../../core/ports/index.ts";
import { checkVisitorIds, maxVisitorIdsPerQuery } from "../../core/ports/index.ts";
import {
  erasureCandidatesOf,
  eventErasureOf,
  SqlEventRepo,
  storedColumnsOf,
  storedEventOfRow,
  violationsText,
  writtenEventColumns,
} from "../store-sql/events.repo.ts";
import { events, eventVisitors } from "./events.schema.ts";
import { libsqlDialect } from "./libsql.dialect.ts";
import { type ClientDatabase, chunks, rowStatements } from "./row-statements.ts";
import { forEachRowidPage } from "./rowid-pages.ts";
import { type ReaderQuery, readerQuery, type StatementReader } from "./statement-reader.ts";

/**
 * Rows per INSERT statement (13 bound values a row, far below SQLite's limit of 32766): a group commit is one
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
    verdict: event.verdict ?? "none",
    violations: violationsText(event),
  };
}

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
    verdict,
    violations,
  ] = row;
  return storedEventOfRow({
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
    data: data as string,
    verdict: verdict as StoredEvent["verdict"],
    violations: violations as string | null,
  });
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
    query.search === undefined &&
    query.verdict === undefined &&
    query.from === undefined &&
    query.to === undefined &&
    query.beforeSeq === undefined
  );
}

/** COL-16, DEC-COL-08: the collected events in libSQL (adapters/store-sql/events.repo.ts). */
export class LibsqlEventRepo extends SqlEventRepo {
  /** The INSERT of n events, its text built once per n (n up to rowsPerStatement). */
  private readonly insertEvents;

  /** The profile worker's read (every event after a sequence number, in order) on the statement reader. */
  private readonly inOrder: ReaderQuery | null;

  constructor(
    private readonly libsql: ClientDatabase,
    private readonly reader: StatementReader | null = null,
  ) {
    super(libsql, events, eventVisitors, libsqlDialect);
    const db = libsql;
    this.insertEvents = rowStatements<EventRow>(writtenEventColumns, (rows) => db.insert(events).values(rows));
    this.inOrder = reader
      ? readerQuery(
          db
            .select(storedColumnsOf(events))
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
      await this.libsql.$client.execute(this.insertEvents(rows));
      return;
    }
    await this.libsql.$client.batch([...chunks(rows, rowsPerStatement).map(this.insertEvents), ...mark], "write");
  }

  override async query(query: EventQuery): Promise<StoredEvent[]> {
    if (this.reader && this.inOrder && isInOrderRead(query)) {
      checkVisitorIds(query);
      return this.reader.rows(this.inOrder, { afterSeq: query.afterSeq ?? 0, limit: query.limit }).map(storedEventOf);
    }
    return super.query(query);
  }

  /** One `db.batch` (a write transaction): the copy and the mark's move are one commit. */
  async indexVisitors(upToSeq: number): Promise<void> {
    const [first, ...rest] = this.visitorIndex.copyUpTo(upToSeq).map((statement) => this.libsql.run(statement));
    if (first) await this.libsql.batch([first, ...rest]);
  }

  /**
   * PRV-09, DEC-PRV-04: one `db.batch`, so the visitor's events and their entries in the per-visitor index go
   * all at once. secure_delete is per connection, so the batch asserts it itself: the removed rows' bytes are
   * zeroed in the file.
   */
  async deleteVisitors(account: string, profile: string, visitorIds: readonly string[]): Promise<number> {
    const ids = [...new Set(visitorIds)];
    if (ids.length === 0) return 0;
    const deletions = chunks(ids, idsPerStatement).flatMap((chunk) => {
      const scope = { account, profile, visitorIds: chunk };
      return [
        this.libsql.delete(events).where(this.visitorIndex.eventsOf(scope)),
        this.libsql.delete(eventVisitors).where(this.visitorIndex.entriesOf(scope)),
      ];
    });
    const [, ...results] = await this.libsql.batch([this.libsql.run(sql`PRAGMA secure_delete = ON`), ...deletions]);
    // Each chunk's first statement removes its events; the second, their entries.
    return results.reduce((sum, result, index) => (index % 2 === 0 ? sum + result.rowsAffected : sum), 0);
  }

  /**
   * DEC-PRV-05: the events that may hold the value are found by SQLite (its JSON text in `data`, or the text
   * in a column: instr, no parse of the others), the rules decide on each, and the rewrites go in one
   * `db.batch` with secure_delete on, so the old bytes are zeroed in the file. Reads every event of the
   * account/profile once: a deletion is rare and runs in the background.
   */
  async eraseValue(account: string, profile: string, erased: string): Promise<ValueErasure> {
    const { libsql } = this;
    const visitorIds = new Set<string>();
    let rewritten = 0;
    // A page of sequence numbers at a time (forEachRowidPage): a short value ("42") is found in nearly every
    // event, and all of them at once would be held in memory and read in one statement while nothing else runs.
    await forEachRowidPage(libsql, events, async (from, to) => {
      const candidates = erasureCandidatesOf(events, libsqlDialect, { account, profile, erased }, from, to);
      const rewrites = [];
      for (const row of await libsql.select(candidates.columns).from(events).where(candidates.where)) {
        const { subject, changes } = eventErasureOf(row, erased);
        if (subject) visitorIds.add(row.visitorId);
        if (changes) rewrites.push(libsql.update(events).set(changes).where(eq(events.seq, row.seq)));
      }
      if (rewrites.length > 0) await libsql.batch([libsql.run(sql`PRAGMA secure_delete = ON`), ...rewrites]);
      rewritten += rewrites.length;
    });
    return { rewritten, visitorIds: [...visitorIds].sort() };
  }
}
