import { eq, sql } from "drizzle-orm";
import type { CollectedEvent, ValueErasure } from "../../core/ports/index.ts";
import { maxVisitorIdsPerQuery } from "../../core/ports/index.ts";
import { chunks } from "../../core/values/index.ts";
import { erasureCandidatesOf, eventErasureOf, SqlEventRepo, violationsText } from "../store-sql/events.repo.ts";
import { visitorIndexMarkKey } from "../store-sql/events.schema.ts";
import type { PgDatabase } from "./database.ts";
import { events, eventVisitors } from "./events.schema.ts";
import { postgresDialect } from "./postgres.dialect.ts";

/**
 * The key of the events lock, the transaction-level advisory lock every append takes before it inserts: "svc-evts"
 * in ASCII. Any 64-bit number no other lock of the database uses (database.ts takes "svc-hub" for migrations).
 */
const eventsLockKey = 0x7376_632d_6576_7473n;

/**
 * Rows per INSERT statement: 13 bound values a row, far below PostgreSQL's limit of 65,535 a statement. A group
 * commit is one statement; an import batch is a few in one transaction.
 */
const rowsPerStatement = 1_000;

/** Visitor ids per DELETE statement (bound values), far below PostgreSQL's limit. */
const idsPerStatement = maxVisitorIdsPerQuery;

/** How many sequence numbers one page of a scan covers: a statement reads at most this many rows. */
const seqPageSize = 5_000;

/** The inserted columns, by their names in the database. */
const insertedColumns = [
  "account",
  "profile",
  "visitor_id",
  "visitor_id_source",
  "third_party_visitor_id",
  "first_party_visitor_id",
  "event",
  "datasource",
  "trace_id",
  "received_at",
  "data",
  "verdict",
  "violations",
] as const;

/** An event as the row postgres.js inserts (its columns by their names in the database). */
function toColumns(event: CollectedEvent): Record<(typeof insertedColumns)[number], string | number | null> {
  return {
    account: event.account,
    profile: event.profile,
    visitor_id: event.visitorId,
    visitor_id_source: event.visitorIdSource,
    third_party_visitor_id: event.thirdPartyVisitorId,
    first_party_visitor_id: event.firstPartyVisitorId,
    event: event.event,
    datasource: event.datasource,
    trace_id: event.traceId,
    received_at: event.receivedAt,
    data: JSON.stringify(event.data),
    verdict: event.verdict ?? "none",
    violations: violationsText(event),
  };
}

/** The collected events in PostgreSQL (adapters/store-sql/events.repo.ts), shared by every node on the database. */
export class PgEventRepo extends SqlEventRepo {
  constructor(private readonly pg: PgDatabase) {
    super(pg, events, eventVisitors, postgresDialect);
  }

  /**
   * DEC-COL-08: the events (in statements of rowsPerStatement rows) and the mark are one transaction, so a group
   * is stored whole or not at all, and acknowledged once committed.
   *
   * The transaction first takes the events lock. The sequence hands out numbers at insert, but transactions
   * commit in their own order: without the lock, an append given n+1 could commit before one given n, and a
   * reader paging by `afterSeq` (the profile worker's cursor, on any node) would pass n+1 and never see n.
   * Under the lock, appends that insert run one after another, and PostgreSQL releases a transaction's locks
   * only once its commit is visible: numbers become visible in the order they were given, so a reader that
   * has seen n never sees a smaller one appear later (and retention's ranges, deleteReceivedBefore, hold too).
   * The cost: appends of every node wait for each other's commits.
   */
  async append(
    collected: readonly CollectedEvent[],
    options: { readonly mark?: { readonly key: string; readonly value: string } } = {},
  ): Promise<void> {
    const { mark } = options;
    if (collected.length === 0 && !mark) return;
    // Sent as one pipeline (BEGIN, the lock, the inserts, the mark, COMMIT without waiting for each answer): a
    // group commit costs about one round trip to the server, not one a statement.
    await this.pg.$client.begin((tx) => [
      ...(collected.length > 0 ? [tx`select pg_advisory_xact_lock(${String(eventsLockKey)}::bigint)`] : []),
      ...chunks(collected.map(toColumns), rowsPerStatement).map(
        (chunk) => tx`insert into events ${tx(chunk, ...insertedColumns)}`,
      ),
      ...(mark
        ? [
            tx`insert into settings (key, value) values (${mark.key}, ${mark.value})
               on conflict (key) do update set value = excluded.value`,
          ]
        : []),
    ]);
  }

  /**
   * One transaction that first locks the mark's row (`for update`), so copies of any node run one after another
   * and never beside a deletion (deleteVisitors): a copy that read an event a deletion then removed would leave
   * its visitor id in the index.
   */
  async indexVisitors(upToSeq: number): Promise<void> {
    const [copy, ...markMove] = this.visitorIndex.copyUpTo(upToSeq);
    await this.pg.transaction(async (tx) => {
      await this.lockMark(tx, "update");
      if (copy) await tx.execute(copy);
      for (const statement of markMove) await tx.execute(statement);
    });
  }

  /**
   * PRV-09, DEC-PRV-04: one transaction, so the visitor's events and their entries in the per-visitor index go
   * all at once. It holds the mark's row (`for share`) so no copy (indexVisitors) runs beside it. PostgreSQL
   * removes the deleted rows' bytes at VACUUM (autovacuum).
   */
  async deleteVisitors(account: string, profile: string, visitorIds: readonly string[]): Promise<number> {
    const ids = [...new Set(visitorIds)];
    if (ids.length === 0) return 0;
    return this.pg.transaction(async (tx) => {
      await this.lockMark(tx, "share");
      let removed = 0;
      for (const chunk of chunks(ids, idsPerStatement)) {
        const scope = { account, profile, visitorIds: chunk };
        removed += (await tx.delete(events).where(this.visitorIndex.eventsOf(scope))).count;
        await tx.delete(eventVisitors).where(this.visitorIndex.entriesOf(scope));
      }
      return removed;
    });
  }

  /** Locks the per-visitor index's mark (its settings row, made if missing) until the transaction ends. */
  private async lockMark(tx: Parameters<Parameters<PgDatabase["transaction"]>[0]>[0], mode: "update" | "share") {
    await tx.execute(
      sql`insert into settings (key, value) values (${visitorIndexMarkKey}, '0') on conflict do nothing`,
    );
    await tx.execute(
      sql`select value from settings where key = ${visitorIndexMarkKey} for ${sql.raw(mode === "update" ? "update" : "share")}`,
    );
  }

  /**
   * DEC-PRV-05: the events that may hold the value are found by PostgreSQL (its JSON text in `data`, or the
   * text in a column: strpos, no parse of the others), the rules decide on each, and each page's rewrites are
   * one transaction. The page's candidates are read `for update`, so no other writer (another node's erasure)
   * changes one between its read and its rewrite. PostgreSQL removes the old row versions' bytes at VACUUM
   * (autovacuum). Reads every event of the account/profile once: a deletion is rare and runs in the background.
   */
  async eraseValue(account: string, profile: string, erased: string): Promise<ValueErasure> {
    const visitorIds = new Set<string>();
    let rewritten = 0;
    // A page of sequence numbers at a time: a short value ("42") is found in nearly every event, and all of
    // them at once would be held in memory and their rows locked together.
    await this.forEachSeqPage(async (from, to) => {
      const candidates = erasureCandidatesOf(events, postgresDialect, { account, profile, erased }, from, to);
      rewritten += await this.pg.transaction(async (tx) => {
        const rewrites = [];
        for (const row of await tx.select(candidates.columns).from(events).where(candidates.where).for("update")) {
          const { subject, changes } = eventErasureOf(row, erased);
          if (subject) visitorIds.add(row.visitorId);
          if (changes) rewrites.push(tx.update(events).set(changes).where(eq(events.seq, row.seq)));
        }
        // Sent together: the connection pipelines them, so a page costs about one round trip, not one per row.
        await Promise.all(rewrites);
        return rewrites.length;
      });
    });
    return { rewritten, visitorIds: [...visitorIds].sort() };
  }

  /**
   * Walks the events by ranges of `seq`, `seqPageSize` numbers a page, from the lowest to the highest there is
   * when the walk begins (both found at once, at the ends of the primary key's index), calling `visit` with
   * each range. A scan of the whole table (a deletion's search for a value) so reads and holds one page at a
   * time.
   */
  private async forEachSeqPage(visit: (fromSeq: number, toSeq: number) => Promise<void>): Promise<void> {
    const [ends] = await this.pg
      .select({ low: sql<number | null>`min(${events.seq})`, high: sql<number | null>`max(${events.seq})` })
      .from(events);
    if (ends?.low == null || ends.high == null) return;
    for (let from = ends.low; from <= ends.high; from += seqPageSize) {
      await visit(from, Math.min(from + seqPageSize - 1, ends.high));
    }
  }
}
