import { and, eq, sql } from "drizzle-orm";
import type { DeletionSettlement, PrivacyAuditRecord, PrivacyTransaction } from "../../core/ports/index.ts";
import { SqlPrivacyRepo, settledChanges, toTransaction } from "../store-sql/privacy.repo.ts";
import type { PgDatabase } from "./database.ts";
import { privacyAudit, privacyTransactions } from "./privacy.schema.ts";

/**
 * How often requestDeletion looks again when its insert met a pending deletion that was settled before it
 * could be read: each look is a new statement that sees what committed meanwhile, so a second look decides.
 */
const requestLooks = 3;

/**
 * The privacy transactions and audit in PostgreSQL (adapters/store-sql/privacy.repo.ts), shared by every node
 * on the database. "Insert unless one is pending" and "settle if still pending" are each one transaction. The
 * partial unique index (privacy_pending_deletion_idx) makes a second insert wait for the first to commit and
 * then do nothing; the conditional UPDATE of a settlement makes a second one wait for the first and then find
 * the row no longer pending. The visitor deletion worker reads the due deletions without claiming them (it runs
 * on the node that holds the profiles lease), so a deletion two nodes ran at once is settled once.
 */
export class PgPrivacyRepo extends SqlPrivacyRepo {
  constructor(private readonly pg: PgDatabase) {
    super(pg, { transactions: privacyTransactions, audit: privacyAudit });
  }

  async recordRead(transaction: PrivacyTransaction, audit: PrivacyAuditRecord): Promise<void> {
    await this.pg.transaction(async (tx) => {
      await tx.insert(privacyTransactions).values(transaction);
      await tx.insert(privacyAudit).values(audit);
    });
  }

  async requestDeletion(
    transaction: PrivacyTransaction,
    audit: PrivacyAuditRecord,
  ): Promise<{ transaction: PrivacyTransaction; created: boolean }> {
    return this.pg.transaction(async (tx) => {
      for (let look = 0; look < requestLooks; look += 1) {
        // PRV-06: the partial unique index on pending deletions is the conflict target, so an identical pending
        // deletion (committed, or being committed by another node: the insert waits for it) makes this a
        // no-op, while a reused transaction id still fails on the primary key.
        const inserted = await tx
          .insert(privacyTransactions)
          .values(transaction)
          .onConflictDoNothing({
            target: [
              privacyTransactions.account,
              privacyTransactions.profile,
              privacyTransactions.attributeId,
              privacyTransactions.valueHash,
            ],
            where: sql`state = 'PENDING'`,
          })
          .returning({ id: privacyTransactions.id });
        if (inserted.length === 1) {
          await tx.insert(privacyAudit).values(audit);
          return { transaction, created: true };
        }
        const [pending] = await tx.select().from(privacyTransactions).where(this.pendingLike(transaction));
        if (pending) return { transaction: toTransaction(pending), created: false };
      }
      throw new Error("the pending deletion was neither recorded nor found");
    });
  }

  async settleDeletion(settlement: DeletionSettlement): Promise<boolean> {
    return this.pg.transaction(async (tx) => {
      // Forgetting the value rewrites the row; PostgreSQL removes the old version's bytes at VACUUM (autovacuum).
      const updated = await tx
        .update(privacyTransactions)
        .set(settledChanges(settlement))
        .where(and(eq(privacyTransactions.id, settlement.id), this.isPending))
        .returning({ id: privacyTransactions.id });
      if (updated.length !== 1) return false;
      await tx.insert(privacyAudit).values(settlement.audit);
      return true;
    });
  }

  /**
   * DEC-PRV-04: nothing to do now. PostgreSQL has no WAL to checkpoint on demand for this: an erased or
   * rewritten row's old version stays in its table page until VACUUM (autovacuum) removes it, and its bytes in
   * the write-ahead log until the segment is recycled after a checkpoint. Running VACUUM here would scan every
   * index of the events table on each deletion, from whichever node ran it, so that is left to autovacuum
   * (and to the operator's settings for it).
   */
  async flushErasures(): Promise<boolean> {
    return true;
  }
}
