import { and, asc, desc, eq, inArray, lte, min, sql } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type {
  DeletionSettlement,
  ListedPrivacyTransaction,
  PrivacyAuditRecord,
  PrivacyStore,
  PrivacyTransaction,
} from "../../core/ports/index.ts";
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

const isPending = eq(privacyTransactions.state, "PENDING");

/**
 * The privacy transactions and audit in libSQL. "Insert unless one is pending" and "settle if still
 * pending" are each one `db.batch` (one transaction): the write, then the audit record inserted only when
 * that write changed a row (`changes() = 1`), so the audit never records what did not happen, on any node.
 */
export class LibsqlPrivacyRepo implements PrivacyStore {
  constructor(private readonly db: LibSQLDatabase) {}

  /** An INSERT of the audit record that happens only when the statement before it changed exactly one row. */
  private auditIfChanged(record: PrivacyAuditRecord) {
    return this.db.run(sql`
      insert into ${privacyAudit} (transaction_id, account, profile, action, attribute_id, value_hash, requested_by, at, detail)
      select ${record.transactionId}, ${record.account}, ${record.profile}, ${record.action}, ${record.attributeId},
             ${record.valueHash}, ${record.requestedBy}, ${record.at}, ${JSON.stringify(record.detail)}
      where changes() = 1`);
  }

  async recordRead(transaction: PrivacyTransaction, audit: PrivacyAuditRecord): Promise<void> {
    await this.db.batch([
      this.db.insert(privacyTransactions).values(transaction),
      this.db.insert(privacyAudit).values(audit),
    ]);
  }

  async requestDeletion(
    transaction: PrivacyTransaction,
    audit: PrivacyAuditRecord,
  ): Promise<{ transaction: PrivacyTransaction; created: boolean }> {
    const [, , pending] = await this.db.batch([
      // The partial unique index on pending deletions makes this a no-op when one is pending already.
      this.db.insert(privacyTransactions).values(transaction).onConflictDoNothing(),
      this.auditIfChanged(audit),
      this.db
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
        ),
    ]);
    const row = pending[0];
    if (!row) throw new Error("the pending deletion was neither recorded nor found");
    return { transaction: toTransaction(row), created: row.id === transaction.id };
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

  /** One query: the transactions through `privacy_list_idx`, each with the audit record that settled it, if any. */
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
    const [, updated] = await this.db.batch([
      // Forgetting the value rewrites the row; secure_delete (re-asserted here, it is per connection) zeroes the old bytes.
      this.db.run(sql`PRAGMA secure_delete = ON`),
      this.db
        .update(privacyTransactions)
        .set({
          state: settlement.state,
          settledAt: settlement.settledAt,
          attempts: settlement.attempts,
          runAt: null,
          value: null,
        })
        .where(and(eq(privacyTransactions.id, settlement.id), isPending)),
      this.auditIfChanged(settlement.audit),
    ]);
    return updated.rowsAffected === 1;
  }

  async auditOf(transactionId: string): Promise<PrivacyAuditRecord[]> {
    const rows = await this.db
      .select()
      .from(privacyAudit)
      .where(eq(privacyAudit.transactionId, transactionId))
      .orderBy(asc(privacyAudit.id));
    return rows.map(({ id: _id, ...record }) => record);
  }

  async flushErasures(): Promise<boolean> {
    // TRUNCATE copies every page of the WAL into the database file and empties the WAL, so the old versions
    // of erased pages are gone from both files. busy = 1 when another connection's reader held it back.
    const result = await this.db.run(sql`PRAGMA wal_checkpoint(TRUNCATE)`);
    const row = result.rows[0] as Record<string, unknown> | undefined;
    return Number(row?.busy ?? row?.[0] ?? 0) === 0;
  }
}
