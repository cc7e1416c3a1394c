import { sql } from "drizzle-orm";
import { bigserial, index, integer, json, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { PrivacyAuditAction, PrivacyTransactionKind, PrivacyTransactionState } from "../../core/ports/index.ts";
import { millis } from "./columns.ts";

/** PRV-05..12: privacy transactions; at most one pending deletion per value (the partial unique index). */
export const privacyTransactions = pgTable(
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
    createdAt: millis("created_at").notNull(),
    runAt: millis("run_at"),
    attempts: integer("attempts").notNull().default(0),
    settledAt: millis("settled_at"),
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

/** DEC-PRV-03: the audit of every transaction's steps. */
export const privacyAudit = pgTable(
  "privacy_audit",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    transactionId: text("transaction_id").notNull(),
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    action: text("action").$type<PrivacyAuditAction>().notNull(),
    attributeId: integer("attribute_id").notNull(),
    valueHash: text("value_hash").notNull(),
    requestedBy: text("requested_by").notNull(),
    at: millis("at").notNull(),
    detail: json("detail").$type<Record<string, number>>().notNull(),
  },
  (table) => [index("privacy_audit_transaction_idx").on(table.transactionId)],
);
