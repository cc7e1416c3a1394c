import { and, asc, desc, eq, inArray, lte, min, type SQL, sql, type Table } from "drizzle-orm";
import type { SelectResultFields } from "drizzle-orm/query-builders/select.types";
import type {
  DeletionSettlement,
  ListedPrivacyTransaction,
  PrivacyAuditAction,
  PrivacyAuditRecord,
  PrivacyStore,
  PrivacyTransaction,
  PrivacyTransactionKind,
  PrivacyTransactionState,
} from "../../core/ports/index.ts";
import { columnsOf, type SqlColumn, type SqlDatabase } from "./sql-database.ts";

/** The `privacy_transactions` table (privacy.schema.ts of each store), as this area reads and writes it. */
export type PrivacyTransactionsTable = Table & {
  readonly id: SqlColumn<string>;
  readonly account: SqlColumn<string>;
  readonly profile: SqlColumn<string>;
  readonly kind: SqlColumn<PrivacyTransactionKind>;
  readonly attributeId: SqlColumn<number>;
  readonly valueHash: SqlColumn<string>;
  readonly value: SqlColumn<string, true>;
  readonly state: SqlColumn<PrivacyTransactionState>;
  readonly requestedBy: SqlColumn<string>;
  readonly createdAt: SqlColumn<number>;
  readonly runAt: SqlColumn<number, true>;
  readonly attempts: SqlColumn<number>;
  readonly settledAt: SqlColumn<number, true>;
};

/** The `privacy_audit` table (privacy.schema.ts of each store), append-only. */
export type PrivacyAuditTable = Table & {
  readonly id: SqlColumn<number>;
  readonly transactionId: SqlColumn<string>;
  readonly account: SqlColumn<string>;
  readonly profile: SqlColumn<string>;
  readonly action: SqlColumn<PrivacyAuditAction>;
  readonly attributeId: SqlColumn<number>;
  readonly valueHash: SqlColumn<string>;
  readonly requestedBy: SqlColumn<string>;
  readonly at: SqlColumn<number>;
  readonly detail: SqlColumn<Record<string, number>>;
};

export interface PrivacyTables {
  readonly transactions: PrivacyTransactionsTable;
  readonly audit: PrivacyAuditTable;
}

const transactionColumnNames = [
  "id",
  "account",
  "profile",
  "kind",
  "attributeId",
  "valueHash",
  "value",
  "state",
  "requestedBy",
  "createdAt",
  "runAt",
  "attempts",
  "settledAt",
] as const;

type TransactionColumns = Pick<PrivacyTransactionsTable, (typeof transactionColumnNames)[number]>;

const auditColumnNames = [
  "transactionId",
  "account",
  "profile",
  "action",
  "attributeId",
  "valueHash",
  "requestedBy",
  "at",
  "detail",
] as const;

export function toTransaction(row: SelectResultFields<TransactionColumns>): PrivacyTransaction {
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

/** What settling a deletion writes on its transaction: the value is forgotten. */
export function settledChanges(settlement: DeletionSettlement) {
  return {
    state: settlement.state,
    settledAt: settlement.settledAt,
    attempts: settlement.attempts,
    runAt: null,
    value: null,
  };
}

/**
 * The privacy transactions and audit in SQL, for both stores. "Insert unless one is pending" and "settle if
 * still pending" write the audit record only when their first write changed a row, so the audit never
 * records what did not happen, on any node: each store does that in its own way (the `*Deletion` and
 * `recordRead` writes, and making the erased bytes go).
 */
export abstract class SqlPrivacyRepo implements PrivacyStore {
  protected readonly transactionColumns: TransactionColumns;

  /**
   * A pending transaction, written as the partial indexes' own predicate (a literal, not a bound value), so the
   * planner can prove it and use them: privacy_due_idx for the due ones, privacy_pending_deletion_idx for
   * requestDeletion.
   */
  protected readonly isPending: SQL;

  constructor(
    protected readonly db: SqlDatabase,
    protected readonly tables: PrivacyTables,
  ) {
    this.transactionColumns = columnsOf(tables.transactions, transactionColumnNames);
    this.isPending = sql`${tables.transactions.state} = 'PENDING'`;
  }

  abstract recordRead(transaction: PrivacyTransaction, audit: PrivacyAuditRecord): Promise<void>;
  abstract requestDeletion(
    transaction: PrivacyTransaction,
    audit: PrivacyAuditRecord,
  ): Promise<{ transaction: PrivacyTransaction; created: boolean }>;
  abstract settleDeletion(settlement: DeletionSettlement): Promise<boolean>;
  abstract flushErasures(): Promise<boolean>;

  /** The pending deletion of the same value as `transaction`, as requestDeletion reads it back. */
  protected pendingLike(transaction: PrivacyTransaction): SQL | undefined {
    const { transactions } = this.tables;
    return and(
      eq(transactions.account, transaction.account),
      eq(transactions.profile, transaction.profile),
      eq(transactions.attributeId, transaction.attributeId),
      eq(transactions.valueHash, transaction.valueHash),
      this.isPending,
    );
  }

  async find(account: string, profile: string, id: string): Promise<PrivacyTransaction | null> {
    const { transactions } = this.tables;
    const [row] = await this.db
      .select(this.transactionColumns)
      .from(transactions)
      .where(and(eq(transactions.id, id), eq(transactions.account, account), eq(transactions.profile, profile)));
    return row ? toTransaction(row) : null;
  }

  /**
   * One query: the transactions through `privacy_list_idx`, each with the audit record that settled it, if any
   * (ids are hex, so any collation orders them alike).
   */
  async list(account: string, profile: string, limit: number): Promise<ListedPrivacyTransaction[]> {
    const { transactions, audit } = this.tables;
    const rows = await this.db
      .select({
        ...this.transactionColumns,
        // Null where no audit record joined (the left join), decoded as the column decodes it.
        settlement: sql<Record<string, number> | null>`${audit.detail}`.mapWith(audit.detail),
      })
      .from(transactions)
      .leftJoin(
        audit,
        and(eq(audit.transactionId, transactions.id), inArray(audit.action, ["deletion-succeeded", "deletion-failed"])),
      )
      .where(and(eq(transactions.account, account), eq(transactions.profile, profile)))
      .orderBy(desc(transactions.createdAt), desc(transactions.id))
      .limit(Math.max(0, limit));
    return rows.map((row) => ({ transaction: toTransaction(row), settlement: row.settlement }));
  }

  async dueDeletions(now: number, limit: number): Promise<PrivacyTransaction[]> {
    const { transactions } = this.tables;
    const rows = await this.db
      .select(this.transactionColumns)
      .from(transactions)
      .where(and(this.isPending, lte(transactions.runAt, now)))
      .orderBy(asc(transactions.runAt), asc(transactions.createdAt))
      .limit(limit);
    return rows.map(toTransaction);
  }

  async nextDeletionAt(): Promise<number | null> {
    const { transactions } = this.tables;
    const [row] = await this.db
      .select({ next: min(transactions.runAt) })
      .from(transactions)
      .where(this.isPending);
    return row?.next ?? null;
  }

  async retryDeletion(id: string, attempts: number, runAt: number): Promise<void> {
    const { transactions } = this.tables;
    await this.db
      .update(transactions)
      .set({ attempts, runAt })
      .where(and(eq(transactions.id, id), this.isPending));
  }

  async auditOf(transactionId: string): Promise<PrivacyAuditRecord[]> {
    const { audit } = this.tables;
    return this.db
      .select(columnsOf(audit, auditColumnNames))
      .from(audit)
      .where(eq(audit.transactionId, transactionId))
      .orderBy(asc(audit.id));
  }
}
