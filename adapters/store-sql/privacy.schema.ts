import { sql } from "drizzle-orm";
import type { PrivacyAuditAction, PrivacyTransactionKind, PrivacyTransactionState } from "../../core/ports/index.ts";
import type { ColumnKit, ColumnTypes } from "./sql-columns.ts";

export function privacyTables<D extends ColumnTypes>(c: ColumnKit<D>) {
  /**
   * PRV-05..07, PRV-10, PRV-12, DEC-PRV-03: every get and delete of the visitor privacy API. `value` is held
   * only while a deletion is PENDING and set to NULL when it settles (SQLite's secure_delete zeroes the old
   * bytes). PRV-06: at most one PENDING deletion per account, profile, attribute and value hash, enforced by a
   * partial unique index, so concurrent requests on any node end up with one transaction.
   */
  const privacyTransactions = c.table(
    "privacy_transactions",
    {
      id: c.textKey("id"),
      account: c.text("account"),
      profile: c.text("profile"),
      kind: c.text<PrivacyTransactionKind>("kind"),
      attributeId: c.int("attribute_id"),
      valueHash: c.text("value_hash"),
      value: c.textOrNull("value"),
      state: c.text<PrivacyTransactionState>("state"),
      requestedBy: c.text("requested_by"),
      createdAt: c.int64("created_at"),
      runAt: c.int64OrNull("run_at"),
      attempts: c.intFrom0("attempts"),
      settledAt: c.int64OrNull("settled_at"),
    },
    (table) => [
      c.uniqueIndex(
        "privacy_pending_deletion_idx",
        [table.account, table.profile, table.attributeId, table.valueHash],
        sql`"state" = 'PENDING'`,
      ),
      c.index("privacy_due_idx", [table.runAt], sql`"state" = 'PENDING'`),
      // The console's list of a profile's transactions, newest first.
      c.index("privacy_list_idx", [table.account, table.profile, table.createdAt, table.id]),
    ],
  );

  /** DEC-PRV-04: the audit, append-only: transaction, attribute id, value hash, who and when; never the value. */
  const privacyAudit = c.table(
    "privacy_audit",
    {
      id: c.serialKey("id"),
      transactionId: c.text("transaction_id"),
      account: c.text("account"),
      profile: c.text("profile"),
      action: c.text<PrivacyAuditAction>("action"),
      attributeId: c.int("attribute_id"),
      valueHash: c.text("value_hash"),
      requestedBy: c.text("requested_by"),
      at: c.int64("at"),
      detail: c.json<Record<string, number>>("detail"),
    },
    (table) => [c.index("privacy_audit_transaction_idx", [table.transactionId])],
  );

  return { privacyTransactions, privacyAudit };
}
