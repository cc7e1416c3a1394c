import { and, asc, eq, lt, min, ne, notExists, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import { alias } from "drizzle-orm/sqlite-core";
import { GroupCommitWriter } from "../../core/collect/index.ts";
import type {
  ChangeSettlement,
  DataLayerChange,
  DataLayerKey,
  DataLayerRecord,
  DataLayerStore,
  ListedDataLayer,
  ServedDataLayer,
} from "../../core/ports/index.ts";
import { listedDataLayerOf, servedHeadCharacters } from "../../core/ports/index.ts";
import { nextEventLoopTurn } from "../runtime/event-loop.ts";
import { dataLayerChanges, dataLayers } from "./datalayer.schema.ts";
import { type ReaderQuery, readerQuery, type StatementReader } from "./statement-reader.ts";

type LayerRow = typeof dataLayers.$inferSelect;
type ChangeRow = typeof dataLayerChanges.$inferSelect;

function toServed(row: Pick<LayerRow, "servedBody" | "servedSeq" | "servedAt">): ServedDataLayer | null {
  return row.servedBody === null
    ? null
    : { body: row.servedBody, seq: row.servedSeq ?? 0, publishedAt: row.servedAt ?? 0 };
}

function toLayer(row: LayerRow): DataLayerRecord {
  return {
    key: { account: row.account, profile: row.profile, dlId: row.dlId },
    exists: row.present,
    lastSeq: row.lastSeq,
    lastDueAt: row.lastDueAt,
    settledSeq: row.settledSeq,
    served: toServed(row),
  };
}

function toChange(row: ChangeRow): DataLayerChange {
  return {
    key: { account: row.account, profile: row.profile, dlId: row.dlId },
    seq: row.seq,
    kind: row.kind,
    body: row.body,
    state: row.state,
    acceptedAt: row.acceptedAt,
    dueAt: row.dueAt,
    runAt: row.runAt,
    attempts: row.attempts,
    settledAt: row.settledAt,
  };
}

/** What `read` selects, flat and in a fixed order, so a row of the statement reader (an array) maps by position. */
const newestColumns = {
  account: dataLayers.account,
  profile: dataLayers.profile,
  dlId: dataLayers.dlId,
  present: dataLayers.present,
  lastSeq: dataLayers.lastSeq,
  lastDueAt: dataLayers.lastDueAt,
  settledSeq: dataLayers.settledSeq,
  servedBody: dataLayers.servedBody,
  servedSeq: dataLayers.servedSeq,
  servedAt: dataLayers.servedAt,
  kind: dataLayerChanges.kind,
  body: dataLayerChanges.body,
  state: dataLayerChanges.state,
  acceptedAt: dataLayerChanges.acceptedAt,
  dueAt: dataLayerChanges.dueAt,
  runAt: dataLayerChanges.runAt,
  attempts: dataLayerChanges.attempts,
  settledAt: dataLayerChanges.settledAt,
};

function newestFromColumns(row: readonly unknown[]): { layer: DataLayerRecord; newest: DataLayerChange } {
  const [
    account,
    profile,
    dlId,
    present,
    lastSeq,
    lastDueAt,
    settledSeq,
    servedBody,
    servedSeq,
    servedAt,
    kind,
    body,
    state,
    acceptedAt,
    dueAt,
    runAt,
    attempts,
    settledAt,
  ] = row;
  const layer = toLayer({
    account: account as string,
    profile: profile as string,
    dlId: dlId as string,
    // A boolean column: drizzle answers true or false, the statement reader 1 or 0.
    present: Boolean(present),
    lastSeq: lastSeq as number,
    lastDueAt: lastDueAt as number,
    settledSeq: settledSeq as number,
    servedBody: servedBody as string | null,
    servedSeq: servedSeq as number | null,
    servedAt: servedAt as number | null,
  });
  const newest = toChange({
    account: account as string,
    profile: profile as string,
    dlId: dlId as string,
    seq: lastSeq as number,
    kind: kind as ChangeRow["kind"],
    body: body as string | null,
    state: state as ChangeRow["state"],
    acceptedAt: acceptedAt as number,
    dueAt: dueAt as number,
    runAt: runAt as number,
    attempts: attempts as number,
    settledAt: settledAt as number | null,
  });
  return { layer, newest };
}

function isLayer(key: DataLayerKey) {
  return and(eq(dataLayers.account, key.account), eq(dataLayers.profile, key.profile), eq(dataLayers.dlId, key.dlId));
}

function isChangeOf(key: DataLayerKey) {
  return and(
    eq(dataLayerChanges.account, key.account),
    eq(dataLayerChanges.profile, key.profile),
    eq(dataLayerChanges.dlId, key.dlId),
  );
}

/** An earlier pending change of the same data layer as the outer `data_layer_changes` row. */
const earlier = alias(dataLayerChanges, "earlier");

/**
 * The hosted data layers in libSQL. Every write that touches several rows is one `db.batch` (one
 * transaction on the single connection); "the next change is seq n" is a compare-and-set on last_seq,
 * backed by the changes' primary key, so concurrent writers on any node never record two changes as one.
 */
export class LibsqlDataLayerRepo implements DataLayerStore {
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
  private readonly newestOf: ReaderQuery | null;

  constructor(
    private readonly db: LibSQLDatabase,
    private readonly reader: StatementReader | null = null,
  ) {
    this.newestOf = reader
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

  async read(key: DataLayerKey): Promise<{ layer: DataLayerRecord; newest: DataLayerChange } | null> {
    if (this.reader && this.newestOf) {
      const row = this.reader.row(this.newestOf, { ...key });
      return row ? newestFromColumns(row) : null;
    }
    const [row] = await this.selectNewest().where(isLayer(key));
    return row ? newestFromColumns(Object.values(row)) : null;
  }

  /** A data layer with its newest change: the columns of `newestColumns`, in their order. */
  private selectNewest() {
    return this.db
      .select(newestColumns)
      .from(dataLayers)
      .innerJoin(
        dataLayerChanges,
        and(
          eq(dataLayerChanges.account, dataLayers.account),
          eq(dataLayerChanges.profile, dataLayers.profile),
          eq(dataLayerChanges.dlId, dataLayers.dlId),
          eq(dataLayerChanges.seq, dataLayers.lastSeq),
        ),
      );
  }

  append(change: DataLayerChange, exists: boolean): Promise<boolean> {
    return this.appends({ change, exists });
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
        const results = (await this.db.batch([first, ...rest])) as ReadonlyArray<{ rowsAffected: number }>;
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
    const { db } = this;
    const { account, profile, dlId } = change.key;
    return [
      // Moves last_seq from seq - 1 to seq (creates the row for seq 1); a row that moved on is left alone.
      change.seq === 1
        ? db
            .insert(dataLayers)
            .values({ account, profile, dlId, present: exists, lastSeq: 1, lastDueAt: change.dueAt })
            .onConflictDoNothing()
        : db
            .update(dataLayers)
            .set({ present: exists, lastSeq: change.seq, lastDueAt: change.dueAt })
            .where(and(isLayer(change.key), eq(dataLayers.lastSeq, change.seq - 1))),
      // Recorded only if the row above now names this seq and no change holds it yet.
      db.run(sql`
        insert into ${dataLayerChanges}
          (account, profile, dl_id, seq, kind, body, state, accepted_at, due_at, run_at, attempts, settled_at)
        select ${account}, ${profile}, ${dlId}, ${change.seq}, ${change.kind}, ${change.body}, ${change.state},
               ${change.acceptedAt}, ${change.dueAt}, ${change.runAt}, ${change.attempts}, ${change.settledAt}
        where (select last_seq from ${dataLayers} where account = ${account} and profile = ${profile} and dl_id = ${dlId}) = ${change.seq}
        on conflict do nothing`),
    ] as const;
  }

  async listExisting(account: string, profile: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .select({ dlId: dataLayers.dlId })
      .from(dataLayers)
      .where(and(eq(dataLayers.account, account), eq(dataLayers.profile, profile), eq(dataLayers.present, true)))
      .orderBy(asc(dataLayers.dlId))
      .limit(Math.max(0, limit));
    return rows.map((row) => row.dlId);
  }

  /**
   * One query for the whole list: each layer with its newest change (the changes' primary key), and of what it
   * serves only the size and the head, so that no body is read whole.
   */
  async list(account: string, profile: string, limit: number): Promise<ListedDataLayer[]> {
    const rows = await this.db
      .select({
        dlId: dataLayers.dlId,
        present: dataLayers.present,
        lastSeq: dataLayers.lastSeq,
        lastDueAt: dataLayers.lastDueAt,
        settledSeq: dataLayers.settledSeq,
        servedSeq: dataLayers.servedSeq,
        servedAt: dataLayers.servedAt,
        // Bytes: the text's UTF-8 encoding; characters: substr counts code points on text.
        servedBytes: sql<number | null>`length(cast(${dataLayers.servedBody} as blob))`,
        servedHead: sql<string | null>`substr(${dataLayers.servedBody}, 1, ${servedHeadCharacters})`,
        kind: dataLayerChanges.kind,
        state: dataLayerChanges.state,
        acceptedAt: dataLayerChanges.acceptedAt,
        dueAt: dataLayerChanges.dueAt,
        runAt: dataLayerChanges.runAt,
        attempts: dataLayerChanges.attempts,
        settledAt: dataLayerChanges.settledAt,
      })
      .from(dataLayers)
      .innerJoin(
        dataLayerChanges,
        and(
          eq(dataLayerChanges.account, dataLayers.account),
          eq(dataLayerChanges.profile, dataLayers.profile),
          eq(dataLayerChanges.dlId, dataLayers.dlId),
          eq(dataLayerChanges.seq, dataLayers.lastSeq),
        ),
      )
      .where(and(eq(dataLayers.account, account), eq(dataLayers.profile, profile)))
      .orderBy(asc(dataLayers.dlId))
      .limit(Math.max(0, limit));
    return rows.map((row) => listedDataLayerOf(account, profile, row));
  }

  /** Pending changes with no earlier pending change of the same data layer. */
  private pendingHeads() {
    return and(
      eq(dataLayerChanges.state, "pending"),
      notExists(
        this.db
          .select({ one: sql`1` })
          .from(earlier)
          .where(
            and(
              eq(earlier.account, dataLayerChanges.account),
              eq(earlier.profile, dataLayerChanges.profile),
              eq(earlier.dlId, dataLayerChanges.dlId),
              eq(earlier.state, "pending"),
              lt(earlier.seq, dataLayerChanges.seq),
            ),
          ),
      ),
    );
  }

  async due(now: number, limit: number): Promise<DataLayerChange[]> {
    const rows = await this.db
      .select()
      .from(dataLayerChanges)
      .where(and(this.pendingHeads(), sql`${dataLayerChanges.runAt} <= ${now}`))
      .orderBy(
        asc(dataLayerChanges.runAt),
        asc(dataLayerChanges.account),
        asc(dataLayerChanges.profile),
        asc(dataLayerChanges.dlId),
      )
      .limit(Math.max(0, limit));
    return rows.map(toChange);
  }

  async nextRunAt(): Promise<number | null> {
    const [row] = await this.db
      .select({ next: min(dataLayerChanges.runAt) })
      .from(dataLayerChanges)
      .where(this.pendingHeads());
    return row?.next ?? null;
  }

  settle(settlement: ChangeSettlement): Promise<boolean> {
    return this.settles(settlement);
  }

  private settlementStatements(settlement: ChangeSettlement) {
    const { db } = this;
    const { key, seq } = settlement;
    const layerUpdate =
      settlement.state === "completed"
        ? {
            settledSeq: seq,
            servedBody: settlement.serve,
            servedSeq: settlement.serve === null ? null : seq,
            servedAt: settlement.serve === null ? null : settlement.settledAt,
          }
        : { settledSeq: seq };
    const statements = [
      db
        .update(dataLayerChanges)
        .set({ state: settlement.state, settledAt: settlement.settledAt, attempts: settlement.attempts })
        .where(and(isChangeOf(key), eq(dataLayerChanges.seq, seq), eq(dataLayerChanges.state, "pending"))),
      // A node that settled this change first moved settled_seq already, so this changes nothing then.
      db
        .update(dataLayers)
        .set(layerUpdate)
        .where(and(isLayer(key), lt(dataLayers.settledSeq, seq))),
      // Settled changes older than this one are no longer needed: get status reads only the newest.
      db
        .delete(dataLayerChanges)
        .where(and(isChangeOf(key), lt(dataLayerChanges.seq, seq), ne(dataLayerChanges.state, "pending"))),
    ] as const;
    return statements;
  }

  async retry(key: DataLayerKey, seq: number, attempts: number, runAt: number): Promise<void> {
    await this.db
      .update(dataLayerChanges)
      .set({ attempts, runAt })
      .where(and(isChangeOf(key), eq(dataLayerChanges.seq, seq), eq(dataLayerChanges.state, "pending")));
  }

  async served(key: DataLayerKey): Promise<ServedDataLayer | null> {
    const [row] = await this.db
      .select({ servedBody: dataLayers.servedBody, servedSeq: dataLayers.servedSeq, servedAt: dataLayers.servedAt })
      .from(dataLayers)
      .where(isLayer(key));
    return row ? toServed(row) : null;
  }
}
