import { and, asc, desc, eq, inArray, lte, min, sql } from "drizzle-orm";
import type {
  DeletionSettlement,
  ListedPrivacyTransaction,
  PrivacyAuditRecord,
  PrivacyStore,
  PrivacyTransaction,
} from "../../core/ports/index.ts";
import type { PgDatabase } from "./database.ts";
import { privacyAudit, privacyTransactions } from "./privacy.schema.ts";

type TransactionRow = typeof privacyTransactions.$inferSelect;

function toTransaction(row: TransactionRow): PrivacyTransaction {
  return {
    id: row.id,
    account: row.account,
    profile: row.profile,
    kind: row.kind,
    attributeId: row.attributeId,
    valueHash: row.valueHash,
    value: row.value,
    state: row.state,
    requestedBy: row.requestedBy,
    createdAt: row.createdAt,
    runAt: row.runAt,
    attempts: row.attempts,
    settledAt: row.settledAt,
  };
}

/**
 * A pending transaction, written as the partial indexes' own predicate (a literal, not a bound value), so the
 * planner can prove it and use them: privacy_due_idx for the due ones, privacy_pending_deletion_idx as the
 * conflict target of requestDeletion.
 */
const isPending = sql`${privacyTransactions.state} = 'PENDING'`;

/**
 * How often requestDeletion looks again when its insert met a pending deletion that was settled before it
 * could be read: each look is a new statement that sees what committed meanwhile, so a second look decides.
 */
const requestLooks = 3;

/**
 * The privacy transactions and audit in PostgreSQL, shared by every node on the database. "Insert unless one
 * is pending" and "settle if still pending" are each one transaction: the write, then the audit record only
 * when that write changed a row, so the audit never records what did not happen, on any node. The partial
 * unique index (privacy_pending_deletion_idx) makes a second insert wait for the first to commit and then do
 * nothing; the conditional UPDATE of a settlement makes a second one wait for the first and then find the row
 * no longer pending. The visitor deletion worker reads the due deletions without claiming them (it runs on the
 * node that holds the profiles lease), so a deletion two nodes ran at once is settled once.
 */
export class PgPrivacyRepo implements PrivacyStore {
  constructor(private readonly db: PgDatabase) {}

  async recordRead(transaction: PrivacyTransaction, audit: PrivacyAuditRecord): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.insert(privacyTransactions).values(transaction);
      await tx.insert(privacyAudit).values(audit);
    });
  }

  async requestDeletion(
    transaction: PrivacyTransaction,
    audit: PrivacyAuditRecord,
  ): Promise<{ transaction: PrivacyTransaction; created: boolean }> {
    return this.db.transaction(async (tx) => {
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
        const [pending] = await tx
          .select()
          .from(privacyTransactions)
          .where(
            and(
              eq(privacyTransactions.account, transaction.account),
              eq(privacyTransactions.profile, transaction.profile),
              eq(privacyTransactions.attributeId, transaction.attributeId),
              eq(privacyTransactions.valueHash, transaction.valueHash),
              isPending,
            ),
          );
        if (pending) return { transaction: toTransaction(pending), created: false };
      }
      throw new Error("the pending deletion was neither recorded nor found");
    });
  }

  async find(account: string, profile: string, id: string): Promise<PrivacyTransaction | null> {
    const [row] = await this.db
      .select()
      .from(privacyTransactions)
      .where(
        and(
          eq(privacyTransactions.id, id),
          eq(privacyTransactions.account, account),
          eq(privacyTransactions.profile, profile),
        ),
      );
    return row ? toTransaction(row) : null;
  }

  /**
   * One query: the transactions through `privacy_list_idx`, each with the audit record that settled it, if any
   * (ids are hex, so any collation orders them alike).
   */
  async list(account: string, profile: string, limit: number): Promise<ListedPrivacyTransaction[]> {
    const rows = await this.db
      .select({ transaction: privacyTransactions, settlement: privacyAudit.detail })
      .from(privacyTransactions)
      .leftJoin(
        privacyAudit,
        and(
          eq(privacyAudit.transactionId, privacyTransactions.id),
          inArray(privacyAudit.action, ["deletion-succeeded", "deletion-failed"]),
        ),
      )
      .where(and(eq(privacyTransactions.account, account), eq(privacyTransactions.profile, profile)))
      .orderBy(desc(privacyTransactions.createdAt), desc(privacyTransactions.id))
      .limit(Math.max(0, limit));
    return rows.map((row) => ({ transaction: toTransaction(row.transaction), settlement: row.settlement }));
  }

  async dueDeletions(now: number, limit: number): Promise<PrivacyTransaction[]> {
    const rows = await this.db
      .select()
      .from(privacyTransactions)
      .where(and(isPending, lte(privacyTransactions.runAt, now)))
      .orderBy(asc(privacyTransactions.runAt), asc(privacyTransactions.createdAt))
      .limit(limit);
    return rows.map(toTransaction);
  }

  async nextDeletionAt(): Promise<number | null> {
    const [row] = await this.db
      .select({ next: min(privacyTransactions.runAt) })
      .from(privacyTransactions)
      .where(isPending);
    return row?.next ?? null;
  }

  async retryDeletion(id: string, attempts: number, runAt: number): Promise<void> {
    await this.db
      .update(privacyTransactions)
      .set({ attempts, runAt })
      .where(and(eq(privacyTransactions.id, id), isPending));
  }

  async settleDeletion(settlement: DeletionSettlement): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      // Forgetting the value rewrites the row; PostgreSQL removes the old version's bytes at VACUUM (autovacuum).
      const updated = await tx
        .update(privacyTransactions)
        .set({
          state: settlement.state,
          settledAt: settlement.settledAt,
          attempts: settlement.attempts,
          runAt: null,
          value: null,
        })
        .where(and(eq(privacyTransactions.id, settlement.id), isPending))
        .returning({ id: privacyTransactions.id });
      if (updated.length !== 1) return false;
      await tx.insert(privacyAudit).values(settlement.audit);
      return true;
    });
  }

  async auditOf(transactionId: string): Promise<PrivacyAuditRecord[]> {
    const rows = await this.db
      .select()
      .from(privacyAudit)
      .where(eq(privacyAudit.transactionId, transactionId))
      .orderBy(asc(privacyAudit.id));
    return rows.map(({ id: _id, ...record }) => record);
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
