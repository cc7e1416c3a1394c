import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { PrivacyAuditAction, PrivacyTransactionKind, PrivacyTransactionState } from "../../core/ports/index.ts";

/**
 * PRV-05..07, PRV-10, PRV-12, DEC-PRV-03: every get and delete of the visitor privacy API. `value` is held
 * only while a deletion is PENDING and set to NULL when it settles (secure_delete zeroes the old bytes).
 * PRV-06: at most one PENDING deletion per account, profile, attribute and value hash, enforced by a partial
 * unique index, so concurrent requests on any node end up with one transaction.
 */
export const privacyTransactions = sqliteTable(
  "privacy_transactions",
  {
    id: text("id").primaryKey(),
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    kind: text("kind").$type<PrivacyTransactionKind>().notNull(),
    attributeId: integer("attribute_id").notNull(),
    valueHash: text("value_hash").notNull(),
    value: text("value"),
    state: text("state").$type<PrivacyTransactionState>().notNull(),
    requestedBy: text("requested_by").notNull(),
    createdAt: integer("created_at").notNull(),
    runAt: integer("run_at"),
    attempts: integer("attempts").notNull().default(0),
    settledAt: integer("settled_at"),
  },
  (table) => [
    uniqueIndex("privacy_pending_deletion_idx")
      .on(table.account, table.profile, table.attributeId, table.valueHash)
      .where(sql`"state" = 'PENDING'`),
    index("privacy_due_idx").on(table.runAt).where(sql`"state" = 'PENDING'`),
    // The console's list of a profile's transactions, newest first.
    index("privacy_list_idx").on(table.account, table.profile, table.createdAt, table.id),
  ],
);

/** DEC-PRV-04: the audit, append-only: transaction, attribute id, value hash, who and when; never the value. */
export const privacyAudit = sqliteTable(
  "privacy_audit",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    transactionId: text("transaction_id").notNull(),
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    action: text("action").$type<PrivacyAuditAction>().notNull(),
    attributeId: integer("attribute_id").notNull(),
    valueHash: text("value_hash").notNull(),
    requestedBy: text("requested_by").notNull(),
    at: integer("at").notNull(),
    detail: text("detail", { mode: "json" }).$type<Record<string, number>>().notNull(),
  },
  (table) => [index("privacy_audit_transaction_idx").on(table.transactionId)],
);
