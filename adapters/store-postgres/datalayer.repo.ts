import { and, eq, lt } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { ChangeSettlement, DataLayerChange, DataLayerKey } from "../../core/ports/index.ts";
import { layerSettlementOf, SqlDataLayerRepo } from "../store-sql/datalayer.repo.ts";
import type { PgDatabase } from "./database.ts";
import { dataLayerChanges, dataLayers } from "./datalayer.schema.ts";
import { postgresDialect } from "./postgres.dialect.ts";

const tables = { layers: dataLayers, changes: dataLayerChanges, earlier: alias(dataLayerChanges, "earlier") };

/**
 * The hosted data layers in PostgreSQL (adapters/store-sql/datalayer.repo.ts), shared by every node. Each write of several rows is one transaction
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
export class PgDataLayerRepo extends SqlDataLayerRepo {
  /**
   * The writes of this node on one data layer, each after the previous one ended: calls made together take
   * effect in the order they were made, as in the other stores (of two settlements of one change, the first
   * made wins). Across nodes the row locks above decide.
   */
  private readonly layerWrites = new Map<string, Promise<unknown>>();

  constructor(private readonly pg: PgDatabase) {
    super(pg, tables, postgresDialect);
  }

  append(change: DataLayerChange, exists: boolean): Promise<boolean> {
    const { account, profile, dlId } = change.key;
    return this.inLayerOrder(change.key, () =>
      this.pg.transaction(async (tx) => {
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
                .where(and(this.isLayer(change.key), eq(dataLayers.lastSeq, change.seq - 1)))
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

  settle(settlement: ChangeSettlement): Promise<boolean> {
    const { key, seq } = settlement;
    return this.inLayerOrder(key, () =>
      this.pg.transaction(async (tx) => {
        // The claim and the settlement in one: of two nodes settling this change, the second finds it settled.
        const settled = await tx
          .update(dataLayerChanges)
          .set({ state: settlement.state, settledAt: settlement.settledAt, attempts: settlement.attempts })
          .where(this.isPendingChange(key, seq))
          .returning({ seq: dataLayerChanges.seq });
        if (settled.length === 0) return false;
        await tx
          .update(dataLayers)
          .set(layerSettlementOf(settlement))
          .where(and(this.isLayer(key), lt(dataLayers.settledSeq, seq)));
        await tx.delete(dataLayerChanges).where(this.isSettledBefore(key, seq));
        return true;
      }),
    );
  }

  /** Runs `write` once this node's earlier writes on the data layer have ended (succeeded or failed). */
  protected override inLayerOrder<T>(key: DataLayerKey, write: () => Promise<T>): Promise<T> {
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
