import { and, eq, lt, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import { alias } from "drizzle-orm/sqlite-core";
import { GroupCommitWriter } from "../../core/collect/index.ts";
import type { ChangeSettlement, DataLayerChange, DataLayerKey, DataLayerRecord } from "../../core/ports/index.ts";
import { nextEventLoopTurn } from "../runtime/event-loop.ts";
import { layerSettlementOf, newestColumnsOf, newestOf, SqlDataLayerRepo } from "../store-sql/datalayer.repo.ts";
import { dataLayerChanges, dataLayers } from "./datalayer.schema.ts";
import { libsqlDialect } from "./libsql.dialect.ts";
import { type ReaderQuery, readerQuery, type StatementReader } from "./statement-reader.ts";

const tables = { layers: dataLayers, changes: dataLayerChanges, earlier: alias(dataLayerChanges, "earlier") };

/** The names of `newestColumnsOf`, in their order: a row of the statement reader (an array) maps by position. */
const newestNames = Object.keys(newestColumnsOf(tables));

/**
 * The hosted data layers in libSQL (adapters/store-sql/datalayer.repo.ts). Every write that touches several
 * rows is one `db.batch` (one transaction on the single connection); "the next change is seq n" is a
 * compare-and-set on last_seq, backed by the changes' primary key, so concurrent writers on any node never
 * record two changes as one.
 */
export class LibsqlDataLayerRepo extends SqlDataLayerRepo {
  /**
   * Changes accepted together (the uploads, updates and deletes of calls that arrive in the same turn of the
   * event loop) share one transaction, one WAL sync, as collected events and session touches do; each call
   * still waits for its own to be committed before it answers. Its second statement records the change.
   */
  private readonly appends = this.sharedCommits<{ readonly change: DataLayerChange; readonly exists: boolean }>(
    ({ change, exists }) => this.appendStatements(change, exists),
    1,
  );

  /**
   * Settlements that arrive together (the publisher settles a pass's changes at once) share one transaction,
   * one WAL sync: each in a commit of its own made publishing on the HTTP thread as costly as the uploads
   * themselves (bench/FINDINGS.md). Its first statement settles the change.
   */
  private readonly settles = this.sharedCommits<ChangeSettlement>(
    (settlement) => this.settlementStatements(settlement),
    0,
  );

  /** The get-status read of the v1 API, on the statement reader (a `file:` database), prepared once. */
  private readonly newestQuery: ReaderQuery | null;

  constructor(
    private readonly libsql: LibSQLDatabase,
    private readonly reader: StatementReader | null = null,
  ) {
    super(libsql, tables, libsqlDialect);
    this.newestQuery = reader
      ? readerQuery(
          this.selectNewest()
            .where(
              and(
                eq(dataLayers.account, sql.placeholder("account")),
                eq(dataLayers.profile, sql.placeholder("profile")),
                eq(dataLayers.dlId, sql.placeholder("dlId")),
              ),
            )
            .toSQL(),
        )
      : null;
  }

  override async read(key: DataLayerKey): Promise<{ layer: DataLayerRecord; newest: DataLayerChange } | null> {
    if (!this.reader || !this.newestQuery) return super.read(key);
    const row = this.reader.row(this.newestQuery, { ...key });
    if (!row) return null;
    const named = Object.fromEntries(newestNames.map((name, index) => [name, row[index]]));
    // A boolean column: drizzle answers true or false, the statement reader 1 or 0.
    return newestOf({ ...named, present: Boolean(named["present"]) } as Parameters<typeof newestOf>[0]);
  }

  append(change: DataLayerChange, exists: boolean): Promise<boolean> {
    return this.appends({ change, exists });
  }

  settle(settlement: ChangeSettlement): Promise<boolean> {
    return this.settles(settlement);
  }

  /**
   * Compare-and-set writes that share one transaction with the others that arrive together (GroupCommitWriter):
   * each answers whether its `deciding` statement (an index into its statements) changed exactly one row.
   */
  private sharedCommits<T>(
    statementsOf: (item: T) => readonly BatchItem<"sqlite">[],
    deciding: number,
  ): (item: T) => Promise<boolean> {
    const writer = new GroupCommitWriter<{ readonly item: T; changed: boolean }>(
      async (batch) => {
        const perItem = batch.map(({ item }) => statementsOf(item));
        const [first, ...rest] = perItem.flat();
        if (!first) return;
        const results = (await this.libsql.batch([first, ...rest])) as ReadonlyArray<{ rowsAffected: number }>;
        let offset = 0;
        batch.forEach((waiting, index) => {
          waiting.changed = results[offset + deciding]?.rowsAffected === 1;
          offset += (perItem[index] as readonly BatchItem<"sqlite">[]).length;
        });
      },
      { gather: nextEventLoopTurn },
    );
    return async (item) => {
      const waiting = { item, changed: false };
      await writer.write(waiting);
      return waiting.changed;
    };
  }

  private appendStatements(change: DataLayerChange, exists: boolean) {
    const { libsql } = this;
    const { account, profile, dlId } = change.key;
    return [
      // Moves last_seq from seq - 1 to seq (creates the row for seq 1); a row that moved on is left alone.
      change.seq === 1
        ? libsql
            .insert(dataLayers)
            .values({ account, profile, dlId, present: exists, lastSeq: 1, lastDueAt: change.dueAt })
            .onConflictDoNothing()
        : libsql
            .update(dataLayers)
            .set({ present: exists, lastSeq: change.seq, lastDueAt: change.dueAt })
            .where(and(this.isLayer(change.key), eq(dataLayers.lastSeq, change.seq - 1))),
      // Recorded only if the row above now names this seq and no change holds it yet.
      libsql.run(sql`
        insert into ${dataLayerChanges}
          (account, profile, dl_id, seq, kind, body, state, accepted_at, due_at, run_at, attempts, settled_at)
        select ${account}, ${profile}, ${dlId}, ${change.seq}, ${change.kind}, ${change.body}, ${change.state},
               ${change.acceptedAt}, ${change.dueAt}, ${change.runAt}, ${change.attempts}, ${change.settledAt}
        where (select last_seq from ${dataLayers} where account = ${account} and profile = ${profile} and dl_id = ${dlId}) = ${change.seq}
        on conflict do nothing`),
    ] as const;
  }

  private settlementStatements(settlement: ChangeSettlement) {
    const { libsql } = this;
    const { key, seq } = settlement;
    return [
      libsql
        .update(dataLayerChanges)
        .set({ state: settlement.state, settledAt: settlement.settledAt, attempts: settlement.attempts })
        .where(this.isPendingChange(key, seq)),
      // A node that settled this change first moved settled_seq already, so this changes nothing then.
      libsql
        .update(dataLayers)
        .set(layerSettlementOf(settlement))
        .where(and(this.isLayer(key), lt(dataLayers.settledSeq, seq))),
      libsql.delete(dataLayerChanges).where(this.isSettledBefore(key, seq)),
    ] as const;
  }
}
