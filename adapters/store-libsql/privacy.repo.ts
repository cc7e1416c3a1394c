import { and, eq, sql } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { DeletionSettlement, PrivacyAuditRecord, PrivacyTransaction } from "../../core/ports/index.ts";
import { SqlPrivacyRepo, settledChanges, toTransaction } from "../store-sql/privacy.repo.ts";
import { privacyAudit, privacyTransactions } from "./privacy.schema.ts";

/**
 * The privacy transactions and audit in libSQL (adapters/store-sql/privacy.repo.ts). "Insert unless one is
 * pending" and "settle if still pending" are each one `db.batch` (one transaction): the write, then the audit
 * record inserted only when that write changed a row (`changes() = 1`).
 */
export class LibsqlPrivacyRepo extends SqlPrivacyRepo {
  constructor(private readonly libsql: LibSQLDatabase) {
    super(libsql, { transactions: privacyTransactions, audit: privacyAudit });
  }

  /** An INSERT of the audit record that happens only when the statement before it changed exactly one row. */
  private auditIfChanged(record: PrivacyAuditRecord) {
    return this.libsql.run(sql`
      insert into ${privacyAudit} (transaction_id, account, profile, action, attribute_id, value_hash, requested_by, at, detail)
      select ${record.transactionId}, ${record.account}, ${record.profile}, ${record.action}, ${record.attributeId},
             ${record.valueHash}, ${record.requestedBy}, ${record.at}, ${JSON.stringify(record.detail)}
      where changes() = 1`);
  }

  async recordRead(transaction: PrivacyTransaction, audit: PrivacyAuditRecord): Promise<void> {
    await this.libsql.batch([
      this.libsql.insert(privacyTransactions).values(transaction),
      this.libsql.insert(privacyAudit).values(audit),
    ]);
  }

  async requestDeletion(
    transaction: PrivacyTransaction,
    audit: PrivacyAuditRecord,
  ): Promise<{ transaction: PrivacyTransaction; created: boolean }> {
    const [, , pending] = await this.libsql.batch([
      // The partial unique index on pending deletions makes this a no-op when one is pending already.
      this.libsql.insert(privacyTransactions).values(transaction).onConflictDoNothing(),
      this.auditIfChanged(audit),
      this.libsql.select().from(privacyTransactions).where(this.pendingLike(transaction)),
    ]);
    const row = pending[0];
    if (!row) throw new Error("the pending deletion was neither recorded nor found");
    return { transaction: toTransaction(row), created: row.id === transaction.id };
  }

  async settleDeletion(settlement: DeletionSettlement): Promise<boolean> {
    const [, updated] = await this.libsql.batch([
      // Forgetting the value rewrites the row; secure_delete (re-asserted here, it is per connection) zeroes the old bytes.
      this.libsql.run(sql`PRAGMA secure_delete = ON`),
      this.libsql
        .update(privacyTransactions)
        .set(settledChanges(settlement))
        .where(and(eq(privacyTransactions.id, settlement.id), this.isPending)),
      this.auditIfChanged(settlement.audit),
    ]);
    return updated.rowsAffected === 1;
  }

  async flushErasures(): Promise<boolean> {
    // TRUNCATE copies every page of the WAL into the database file and empties the WAL, so the old versions
    // of erased pages are gone from both files. busy = 1 when another connection's reader held it back.
    const result = await this.libsql.run(sql`PRAGMA wal_checkpoint(TRUNCATE)`);
    const row = result.rows[0] as Record<string, unknown> | undefined;
    return Number(row?.busy ?? row?.[0] ?? 0) === 0;
  }
}
