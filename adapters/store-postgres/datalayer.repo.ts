import { and, asc, eq, lt, min, ne, notExists, type SQL, sql } from "drizzle-orm";
import { alias, type PgColumn } from "drizzle-orm/pg-core";
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
import type { PgDatabase } from "./database.ts";
import { dataLayerChanges, dataLayers } from "./datalayer.schema.ts";

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

/**
 * DEC-DLE-09: names in code-unit order. Account, profile and dl_id hold only `A-Z a-z 0-9 _ - ~` (DLE-ERR-02),
 * so byte order (the "C" collation) is code-unit order; the database's default collation may not be.
 */
function inCodeUnitOrder(column: PgColumn): SQL {
  return sql`${column} collate "C"`;
}

/** An earlier pending change of the same data layer as the outer `data_layer_changes` row. */
const earlier = alias(dataLayerChanges, "earlier");

/**
 * The hosted data layers in PostgreSQL, shared by every node. Each write of several rows is one transaction
 * whose first statement is a compare-and-set on a row, so that the row lock it takes (held until commit) orders
 * writers on any node. Under READ COMMITTED, PostgreSQL's default, a statement that waited for that lock
 * evaluates its WHERE again on the row as committed:
 * - append: `last_seq` moves from seq - 1 to seq by a conditional UPDATE (an INSERT … ON CONFLICT DO NOTHING
 *   for seq 1) that locks the layer's row until the change is recorded in the same transaction. A writer on
 *   another node that decided the same seq waits for that lock, then finds `last_seq` moved on and records
 *   nothing: seqs stay 1, 2, 3, … per data layer with no gap and no duplicate (DEC-DLE-05).
 * - settle: the change goes from pending to settled by `UPDATE … WHERE state = 'pending'`. There is no claim:
 *   two publishers may read the same change from `due`, and the second one's UPDATE waits for the first, finds
 *   the change settled and answers false, so a change is settled (and served) once.
 */
export class PgDataLayerRepo implements DataLayerStore {
  /**
   * The writes of this node on one data layer, each after the previous one ended: calls made together take
   * effect in the order they were made, as in the other stores (of two settlements of one change, the first
   * made wins). Across nodes the row locks above decide.
   */
  private readonly layerWrites = new Map<string, Promise<unknown>>();

  constructor(private readonly db: PgDatabase) {}

  async read(key: DataLayerKey): Promise<{ layer: DataLayerRecord; newest: DataLayerChange } | null> {
    const [row] = await this.db
      .select({ layer: dataLayers, newest: dataLayerChanges })
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
      .where(isLayer(key));
    return row ? { layer: toLayer(row.layer), newest: toChange(row.newest) } : null;
  }

  append(change: DataLayerChange, exists: boolean): Promise<boolean> {
    const { account, profile, dlId } = change.key;
    return this.inLayerOrder(change.key, () =>
      this.db.transaction(async (tx) => {
        // Moves last_seq from seq - 1 to seq (creates the row for seq 1), locking the row until commit.
        const moved =
          change.seq === 1
            ? await tx
                .insert(dataLayers)
                .values({ account, profile, dlId, present: exists, lastSeq: 1, lastDueAt: change.dueAt })
                .onConflictDoNothing()
                .returning({ lastSeq: dataLayers.lastSeq })
            : await tx
                .update(dataLayers)
                .set({ present: exists, lastSeq: change.seq, lastDueAt: change.dueAt })
                .where(and(isLayer(change.key), eq(dataLayers.lastSeq, change.seq - 1)))
                .returning({ lastSeq: dataLayers.lastSeq });
        if (moved.length === 0) return false;
        await tx.insert(dataLayerChanges).values({
          account,
          profile,
          dlId,
          seq: change.seq,
          kind: change.kind,
          body: change.body,
          state: change.state,
          acceptedAt: change.acceptedAt,
          dueAt: change.dueAt,
          runAt: change.runAt,
          attempts: change.attempts,
          settledAt: change.settledAt,
        });
        return true;
      }),
    );
  }

  async listExisting(account: string, profile: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .select({ dlId: dataLayers.dlId })
      .from(dataLayers)
      .where(and(eq(dataLayers.account, account), eq(dataLayers.profile, profile), eq(dataLayers.present, true)))
      .orderBy(inCodeUnitOrder(dataLayers.dlId))
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
        // Bytes: the text's encoding (the database's is UTF-8); characters: left counts code points.
        servedBytes: sql<number | null>`octet_length(${dataLayers.servedBody})`,
        servedHead: sql<string | null>`left(${dataLayers.servedBody}, ${servedHeadCharacters})`,
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
      .orderBy(inCodeUnitOrder(dataLayers.dlId))
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
        inCodeUnitOrder(dataLayerChanges.account),
        inCodeUnitOrder(dataLayerChanges.profile),
        inCodeUnitOrder(dataLayerChanges.dlId),
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
    return this.inLayerOrder(key, () =>
      this.db.transaction(async (tx) => {
        // The claim and the settlement in one: of two nodes settling this change, the second finds it settled.
        const settled = await tx
          .update(dataLayerChanges)
          .set({ state: settlement.state, settledAt: settlement.settledAt, attempts: settlement.attempts })
          .where(and(isChangeOf(key), eq(dataLayerChanges.seq, seq), eq(dataLayerChanges.state, "pending")))
          .returning({ seq: dataLayerChanges.seq });
        if (settled.length === 0) return false;
        await tx
          .update(dataLayers)
          .set(layerUpdate)
          .where(and(isLayer(key), lt(dataLayers.settledSeq, seq)));
        // Settled changes older than this one are no longer needed: get status reads only the newest.
        await tx
          .delete(dataLayerChanges)
          .where(and(isChangeOf(key), lt(dataLayerChanges.seq, seq), ne(dataLayerChanges.state, "pending")));
        return true;
      }),
    );
  }

  async retry(key: DataLayerKey, seq: number, attempts: number, runAt: number): Promise<void> {
    await this.inLayerOrder(key, () =>
      this.db
        .update(dataLayerChanges)
        .set({ attempts, runAt })
        .where(and(isChangeOf(key), eq(dataLayerChanges.seq, seq), eq(dataLayerChanges.state, "pending"))),
    );
  }

  async served(key: DataLayerKey): Promise<ServedDataLayer | null> {
    const [row] = await this.db
      .select({ servedBody: dataLayers.servedBody, servedSeq: dataLayers.servedSeq, servedAt: dataLayers.servedAt })
      .from(dataLayers)
      .where(isLayer(key));
    return row ? toServed(row) : null;
  }

  /** Runs `write` once this node's earlier writes on the data layer have ended (succeeded or failed). */
  private inLayerOrder<T>(key: DataLayerKey, write: () => Promise<T>): Promise<T> {
    const name = JSON.stringify([key.account, key.profile, key.dlId]);
    const written = (this.layerWrites.get(name) ?? Promise.resolve()).then(write);
    const ended = written.then(
      () => undefined,
      () => undefined,
    );
    this.layerWrites.set(name, ended);
    void ended.then(() => {
      if (this.layerWrites.get(name) === ended) this.layerWrites.delete(name);
    });
    return written;
  }
}
