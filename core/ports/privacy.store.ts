/** PRV-07, DEC-PRV-03: the states of a transaction, answered as they are written. */
export type PrivacyTransactionState = "PENDING" | "SUCCESS" | "FAILED";

/** DEC-PRV-03: every get-visitor and delete-visitor request is a transaction. */
export type PrivacyTransactionKind = "get" | "delete";

/** One transaction of the visitor privacy API (PRV-05..07, PRV-10, PRV-12, DEC-PRV-03). */
export interface PrivacyTransaction {
  readonly id: string;
  readonly account: string;
  readonly profile: string;
  readonly kind: PrivacyTransactionKind;
  /** The visitor ID attribute the request named. */
  readonly attributeId: number;
  /** The keyed SHA-256 of the attribute value: finds a pending duplicate (PRV-06) without keeping the value. */
  readonly valueHash: string;
  /**
   * The attribute value itself, kept only while a deletion is PENDING (the deletion needs it to find the
   * visitor); null for a get and once the transaction is settled (DEC-PRV-04).
   */
  readonly value: string | null;
  readonly state: PrivacyTransactionState;
  /** The user (e-mail) whose token made the request. */
  readonly requestedBy: string;
  readonly createdAt: number;
  /** A pending deletion's next try: its due time, later after a failed try. Null when not pending. */
  readonly runAt: number | null;
  /** Failed tries so far. */
  readonly attempts: number;
  /** When it became SUCCESS or FAILED; null while pending. */
  readonly settledAt: number | null;
}

export type PrivacyAuditAction = "visitor-read" | "deletion-requested" | "deletion-succeeded" | "deletion-failed";

/** DEC-PRV-04: what the audit keeps of a request: never the value, only its hash. */
export interface PrivacyAuditRecord {
  readonly transactionId: string;
  readonly account: string;
  readonly profile: string;
  readonly action: PrivacyAuditAction;
  readonly attributeId: number;
  readonly valueHash: string;
  readonly requestedBy: string;
  readonly at: number;
  /** What a deletion removed (counts) or how many tries a failure took; never a value. */
  readonly detail: Readonly<Record<string, number>>;
}

/** A transaction as `PrivacyStore.list` answers it, with what the audit recorded when it settled. */
export interface ListedPrivacyTransaction {
  readonly transaction: PrivacyTransaction;
  /**
   * DEC-PRV-04: the detail of the audit record that settled a deletion (deletion-succeeded: the counts of what
   * it removed; deletion-failed: the tries it took); null for a get and for a pending deletion.
   */
  readonly settlement: Readonly<Record<string, number>> | null;
}

/** A pending deletion that is over: SUCCESS or FAILED, at `settledAt`, after `attempts` failed tries. */
export interface DeletionSettlement {
  readonly id: string;
  readonly state: "SUCCESS" | "FAILED";
  readonly settledAt: number;
  readonly attempts: number;
  readonly audit: PrivacyAuditRecord;
}

/**
 * The transactions and the audit of the visitor privacy API (PRV-05..07, PRV-10, DEC-PRV-03, DEC-PRV-04).
 * A transaction and its audit record are written in one commit. Pending deletions are stored, so they
 * survive a restart and any node can run them.
 */
export interface PrivacyStore {
  /** DEC-PRV-03: records a get (already SUCCESS) with its audit record. */
  recordRead(transaction: PrivacyTransaction, audit: PrivacyAuditRecord): Promise<void>;
  /**
   * PRV-06: records the pending deletion `transaction` with its audit record, unless a PENDING deletion with
   * the same account, profile, attributeId and valueHash exists; answers the one that is pending (the new
   * one, or the existing one with `created: false`, recording nothing). Atomic in the store: concurrent
   * requests on any node all answer the same transaction.
   */
  requestDeletion(
    transaction: PrivacyTransaction,
    audit: PrivacyAuditRecord,
  ): Promise<{ readonly transaction: PrivacyTransaction; readonly created: boolean }>;
  /** PRV-07: the transaction of this account and profile with this id, or null. */
  find(account: string, profile: string, id: string): Promise<PrivacyTransaction | null>;
  /**
   * The transactions of this account and profile, gets and deletions, newest first (by createdAt, then id,
   * descending), at most `limit`.
   */
  list(account: string, profile: string, limit: number): Promise<ListedPrivacyTransaction[]>;
  /** PRV-10: pending deletions with runAt <= now, earliest first, at most `limit`. */
  dueDeletions(now: number, limit: number): Promise<PrivacyTransaction[]>;
  /** The earliest runAt of the pending deletions, or null when none is pending. */
  nextDeletionAt(): Promise<number | null>;
  /** A failed try of a pending deletion: counts it and moves its next try to `runAt`. */
  retryDeletion(id: string, attempts: number, runAt: number): Promise<void>;
  /**
   * DEC-PRV-04: settles a pending deletion, forgets its value and appends the audit record, in one commit.
   * Resolves false, changing nothing, when it is not pending (another worker settled it).
   */
  settleDeletion(settlement: DeletionSettlement): Promise<boolean>;
  /** The audit records of a transaction, oldest first. */
  auditOf(transactionId: string): Promise<PrivacyAuditRecord[]>;
  /**
   * DEC-PRV-04: makes content erased so far unrecoverable from the store's files (libSQL: freed content is
   * zeroed by secure_delete; this checkpoints the WAL and truncates it, so no old page stays there).
   * Resolves false when it could not finish now (another process is reading); a later call finishes it.
   */
  flushErasures(): Promise<boolean>;
}
