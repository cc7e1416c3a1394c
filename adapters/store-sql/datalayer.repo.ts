import { and, asc, eq, lt, min, ne, notExists, sql, type Table } from "drizzle-orm";
import type { SelectResultFields } from "drizzle-orm/query-builders/select.types";
import {
  type ChangeSettlement,
  type DataLayerChange,
  type DataLayerChangeKind,
  type DataLayerChangeState,
  type DataLayerKey,
  type DataLayerRecord,
  type DataLayerStore,
  type ListedDataLayer,
  listedDataLayerOf,
  type ServedDataLayer,
  servedHeadCharacters,
} from "../../core/ports/index.ts";
import { columnsOf, type SqlColumn, type SqlDatabase } from "./sql-database.ts";
import type { SqlDialect } from "./sql-dialect.ts";

/** The `data_layers` table (datalayer.schema.ts of each store): one row per hosted data layer. */
export type DataLayersTable = Table & {
  readonly account: SqlColumn<string>;
  readonly profile: SqlColumn<string>;
  readonly dlId: SqlColumn<string>;
  readonly present: SqlColumn<boolean>;
  readonly lastSeq: SqlColumn<number>;
  readonly lastDueAt: SqlColumn<number>;
  readonly settledSeq: SqlColumn<number>;
  readonly servedBody: SqlColumn<string, true>;
  readonly servedSeq: SqlColumn<number, true>;
  readonly servedAt: SqlColumn<number, true>;
};

/** The `data_layer_changes` table: the changes of each data layer, by seq. */
export type DataLayerChangesTable = Table & {
  readonly account: SqlColumn<string>;
  readonly profile: SqlColumn<string>;
  readonly dlId: SqlColumn<string>;
  readonly seq: SqlColumn<number>;
  readonly kind: SqlColumn<DataLayerChangeKind>;
  readonly body: SqlColumn<string, true>;
  readonly state: SqlColumn<DataLayerChangeState>;
  readonly acceptedAt: SqlColumn<number>;
  readonly dueAt: SqlColumn<number>;
  readonly runAt: SqlColumn<number>;
  readonly attempts: SqlColumn<number>;
  readonly settledAt: SqlColumn<number, true>;
};

export interface DataLayerTables {
  readonly layers: DataLayersTable;
  readonly changes: DataLayerChangesTable;
  /** `changes` again under another name (each dialect's `alias`), for an earlier change of the same layer. */
  readonly earlier: DataLayerChangesTable;
}

const changeColumnNames = [
  "account",
  "profile",
  "dlId",
  "seq",
  "kind",
  "body",
  "state",
  "acceptedAt",
  "dueAt",
  "runAt",
  "attempts",
  "settledAt",
] as const;

type ChangeColumns = Pick<DataLayerChangesTable, (typeof changeColumnNames)[number]>;

/** What `read` selects, flat and in a fixed order, so that a row read as an array maps by position. */
export function newestColumnsOf({ layers, changes }: DataLayerTables) {
  return {
    account: layers.account,
    profile: layers.profile,
    dlId: layers.dlId,
    present: layers.present,
    lastSeq: layers.lastSeq,
    lastDueAt: layers.lastDueAt,
    settledSeq: layers.settledSeq,
    servedBody: layers.servedBody,
    servedSeq: layers.servedSeq,
    servedAt: layers.servedAt,
    kind: changes.kind,
    body: changes.body,
    state: changes.state,
    acceptedAt: changes.acceptedAt,
    dueAt: changes.dueAt,
    runAt: changes.runAt,
    attempts: changes.attempts,
    settledAt: changes.settledAt,
  };
}

type NewestRow = SelectResultFields<ReturnType<typeof newestColumnsOf>>;

function toServed(row: Pick<NewestRow, "servedBody" | "servedSeq" | "servedAt">): ServedDataLayer | null {
  return row.servedBody === null
    ? null
    : { body: row.servedBody, seq: row.servedSeq ?? 0, publishedAt: row.servedAt ?? 0 };
}

function toChange(row: SelectResultFields<ChangeColumns>): DataLayerChange {
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

/** A data layer and its newest change, from the row of `newestColumnsOf`. */
export function newestOf(row: NewestRow): { layer: DataLayerRecord; newest: DataLayerChange } {
  const key = { account: row.account, profile: row.profile, dlId: row.dlId };
  return {
    layer: {
      key,
      exists: row.present,
      lastSeq: row.lastSeq,
      lastDueAt: row.lastDueAt,
      settledSeq: row.settledSeq,
      served: toServed(row),
    },
    newest: toChange({ ...row, seq: row.lastSeq }),
  };
}

/** What settling a change writes on its data layer: a completed change serves its body (or nothing). */
export function layerSettlementOf(settlement: ChangeSettlement) {
  const { seq } = settlement;
  return settlement.state === "completed"
    ? {
        settledSeq: seq,
        servedBody: settlement.serve,
        servedSeq: settlement.serve === null ? null : seq,
        servedAt: settlement.serve === null ? null : settlement.settledAt,
      }
    : { settledSeq: seq };
}

/**
 * The hosted data layers in SQL, for both stores: the reads, and the conditions the stores' writes share.
 * Appending and settling a change (compare-and-set writes of several rows) are each store's own.
 */
export abstract class SqlDataLayerRepo implements DataLayerStore {
  constructor(
    protected readonly db: SqlDatabase,
    protected readonly tables: DataLayerTables,
    private readonly dialect: SqlDialect,
  ) {}

  abstract append(change: DataLayerChange, exists: boolean): Promise<boolean>;
  abstract settle(settlement: ChangeSettlement): Promise<boolean>;

  /** Runs a write on one data layer: at once, unless the store orders its writes per layer. */
  protected inLayerOrder<T>(_key: DataLayerKey, write: () => Promise<T>): Promise<T> {
    return write();
  }

  protected isLayer(key: DataLayerKey) {
    const { layers } = this.tables;
    return and(eq(layers.account, key.account), eq(layers.profile, key.profile), eq(layers.dlId, key.dlId));
  }

  protected isChangeOf(key: DataLayerKey) {
    const { changes } = this.tables;
    return and(eq(changes.account, key.account), eq(changes.profile, key.profile), eq(changes.dlId, key.dlId));
  }

  /** The change `seq` of `key` while it is pending. */
  protected isPendingChange(key: DataLayerKey, seq: number) {
    const { changes } = this.tables;
    return and(this.isChangeOf(key), eq(changes.seq, seq), eq(changes.state, "pending"));
  }

  /** Settled changes older than `seq`: no longer needed once it is settled (get status reads only the newest). */
  protected isSettledBefore(key: DataLayerKey, seq: number) {
    const { changes } = this.tables;
    return and(this.isChangeOf(key), lt(changes.seq, seq), ne(changes.state, "pending"));
  }

  /** A data layer with its newest change: the columns of `newestColumnsOf`, in their order. */
  protected selectNewest() {
    const { layers, changes } = this.tables;
    return this.db
      .select(newestColumnsOf(this.tables))
      .from(layers)
      .innerJoin(
        changes,
        and(
          eq(changes.account, layers.account),
          eq(changes.profile, layers.profile),
          eq(changes.dlId, layers.dlId),
          eq(changes.seq, layers.lastSeq),
        ),
      );
  }

  async read(key: DataLayerKey): Promise<{ layer: DataLayerRecord; newest: DataLayerChange } | null> {
    const [row] = await this.selectNewest().where(this.isLayer(key));
    return row ? newestOf(row) : null;
  }

  async listExisting(account: string, profile: string, limit: number): Promise<string[]> {
    const { layers } = this.tables;
    const rows = await this.db
      .select({ dlId: layers.dlId })
      .from(layers)
      .where(and(eq(layers.account, account), eq(layers.profile, profile), eq(layers.present, true)))
      .orderBy(this.dialect.inCodeUnitOrder(layers.dlId))
      .limit(Math.max(0, limit));
    return rows.map((row) => row.dlId);
  }

  /**
   * One query for the whole list: each layer with its newest change (the changes' primary key), and of what it
   * serves only the size and the head, so that no body is read whole.
   */
  async list(account: string, profile: string, limit: number): Promise<ListedDataLayer[]> {
    const { layers, changes } = this.tables;
    const rows = await this.db
      .select({
        dlId: layers.dlId,
        present: layers.present,
        lastSeq: layers.lastSeq,
        lastDueAt: layers.lastDueAt,
        settledSeq: layers.settledSeq,
        servedSeq: layers.servedSeq,
        servedAt: layers.servedAt,
        servedBytes: this.dialect.byteLength(layers.servedBody),
        servedHead: this.dialect.leadingCharacters(layers.servedBody, servedHeadCharacters),
        kind: changes.kind,
        state: changes.state,
        acceptedAt: changes.acceptedAt,
        dueAt: changes.dueAt,
        runAt: changes.runAt,
        attempts: changes.attempts,
        settledAt: changes.settledAt,
      })
      .from(layers)
      .innerJoin(
        changes,
        and(
          eq(changes.account, layers.account),
          eq(changes.profile, layers.profile),
          eq(changes.dlId, layers.dlId),
          eq(changes.seq, layers.lastSeq),
        ),
      )
      .where(and(eq(layers.account, account), eq(layers.profile, profile)))
      .orderBy(this.dialect.inCodeUnitOrder(layers.dlId))
      .limit(Math.max(0, limit));
    return rows.map((row) => listedDataLayerOf(account, profile, row));
  }

  /** Pending changes with no earlier pending change of the same data layer. */
  private pendingHeads() {
    const { changes, earlier } = this.tables;
    return and(
      eq(changes.state, "pending"),
      notExists(
        this.db
          .select({ one: sql`1` })
          .from(earlier)
          .where(
            and(
              eq(earlier.account, changes.account),
              eq(earlier.profile, changes.profile),
              eq(earlier.dlId, changes.dlId),
              eq(earlier.state, "pending"),
              lt(earlier.seq, changes.seq),
            ),
          ),
      ),
    );
  }

  async due(now: number, limit: number): Promise<DataLayerChange[]> {
    const { changes } = this.tables;
    const rows = await this.db
      .select(columnsOf(changes, changeColumnNames))
      .from(changes)
      .where(and(this.pendingHeads(), sql`${changes.runAt} <= ${now}`))
      .orderBy(
        asc(changes.runAt),
        this.dialect.inCodeUnitOrder(changes.account),
        this.dialect.inCodeUnitOrder(changes.profile),
        this.dialect.inCodeUnitOrder(changes.dlId),
      )
      .limit(Math.max(0, limit));
    return rows.map(toChange);
  }

  async nextRunAt(): Promise<number | null> {
    const { changes } = this.tables;
    const [row] = await this.db
      .select({ next: min(changes.runAt) })
      .from(changes)
      .where(this.pendingHeads());
    return row?.next ?? null;
  }

  async retry(key: DataLayerKey, seq: number, attempts: number, runAt: number): Promise<void> {
    await this.inLayerOrder(key, async () => {
      await this.db.update(this.tables.changes).set({ attempts, runAt }).where(this.isPendingChange(key, seq));
    });
  }

  async served(key: DataLayerKey): Promise<ServedDataLayer | null> {
    const { layers } = this.tables;
    const [row] = await this.db
      .select({ servedBody: layers.servedBody, servedSeq: layers.servedSeq, servedAt: layers.servedAt })
      .from(layers)
      .where(this.isLayer(key));
    return row ? toServed(row) : null;
  }
}
