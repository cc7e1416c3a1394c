import type {
  DeletionSettlement,
  ListedPrivacyTransaction,
  PrivacyAuditRecord,
  PrivacyStore,
  PrivacyTransaction,
} from "../../core/ports/index.ts";

/** DEC-PRV-04: the audit record a deletion's settlement appends. */
function settles(record: PrivacyAuditRecord): boolean {
  return record.action === "deletion-succeeded" || record.action === "deletion-failed";
}

/**
 * The reference PrivacyStore: transactions by id and an append-only audit. Each method checks and writes
 * without awaiting in between, so "insert unless a pending one exists" is atomic in this process.
 */
export class MemoryPrivacyStore implements PrivacyStore {
  private readonly transactions = new Map<string, PrivacyTransaction>();
  private readonly audit: PrivacyAuditRecord[] = [];

  constructor(private readonly isClosed: () => boolean = () => false) {}

  private check(): void {
    if (this.isClosed()) throw new Error("store is closed");
  }

  /** Removes every record at once, without awaiting (POST /admin/reset, Stores.eraseAll); answers how many there were. */
  eraseAll(): number {
    this.check();
    const count = this.transactions.size;
    this.transactions.clear();
    this.audit.length = 0;
    return count;
  }

  async recordRead(transaction: PrivacyTransaction, audit: PrivacyAuditRecord): Promise<void> {
    this.check();
    if (this.transactions.has(transaction.id)) throw new Error(`transaction ${transaction.id} exists`);
    this.transactions.set(transaction.id, structuredClone(transaction));
    this.audit.push(structuredClone(audit));
  }

  async requestDeletion(
    transaction: PrivacyTransaction,
    audit: PrivacyAuditRecord,
  ): Promise<{ transaction: PrivacyTransaction; created: boolean }> {
    this.check();
    for (const existing of this.transactions.values()) {
      if (
        existing.kind === "delete" &&
        existing.state === "PENDING" &&
        existing.account === transaction.account &&
        existing.profile === transaction.profile &&
        existing.attributeId === transaction.attributeId &&
        existing.valueHash === transaction.valueHash
      ) {
        return { transaction: structuredClone(existing), created: false };
      }
    }
    if (this.transactions.has(transaction.id)) throw new Error(`transaction ${transaction.id} exists`);
    this.transactions.set(transaction.id, structuredClone(transaction));
    this.audit.push(structuredClone(audit));
    return { transaction: structuredClone(transaction), created: true };
  }

  async find(account: string, profile: string, id: string): Promise<PrivacyTransaction | null> {
    this.check();
    const found = this.transactions.get(id);
    return found && found.account === account && found.profile === profile ? structuredClone(found) : null;
  }

  async list(account: string, profile: string, limit: number): Promise<ListedPrivacyTransaction[]> {
    this.check();
    const listed = [...this.transactions.values()]
      .filter((transaction) => transaction.account === account && transaction.profile === profile)
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .slice(0, Math.max(0, limit));
    const ids = new Set(listed.map((transaction) => transaction.id));
    const settlements = new Map<string, Readonly<Record<string, number>>>();
    for (const record of this.audit) {
      if (ids.has(record.transactionId) && settles(record)) settlements.set(record.transactionId, record.detail);
    }
    return listed.map((transaction) =>
      structuredClone({ transaction, settlement: settlements.get(transaction.id) ?? null }),
    );
  }

  async dueDeletions(now: number, limit: number): Promise<PrivacyTransaction[]> {
    this.check();
    return this.pending()
      .filter((transaction) => (transaction.runAt ?? 0) <= now)
      .slice(0, limit)
      .map((transaction) => structuredClone(transaction));
  }

  async nextDeletionAt(): Promise<number | null> {
    this.check();
    return this.pending()[0]?.runAt ?? null;
  }

  async retryDeletion(id: string, attempts: number, runAt: number): Promise<void> {
    this.check();
    const found = this.transactions.get(id);
    if (found && found.state === "PENDING") this.transactions.set(id, { ...found, attempts, runAt });
  }

  async settleDeletion(settlement: DeletionSettlement): Promise<boolean> {
    this.check();
    const found = this.transactions.get(settlement.id);
    if (found?.state !== "PENDING") return false;
    this.transactions.set(settlement.id, {
      ...found,
      state: settlement.state,
      settledAt: settlement.settledAt,
      attempts: settlement.attempts,
      runAt: null,
      value: null,
    });
    this.audit.push(structuredClone(settlement.audit));
    return true;
  }

  async auditOf(transactionId: string): Promise<PrivacyAuditRecord[]> {
    this.check();
    return this.audit
      .filter((record) => record.transactionId === transactionId)
      .map((record) => structuredClone(record));
  }

  async flushErasures(): Promise<boolean> {
    this.check();
    return true;
  }

  /** Pending deletions, earliest runAt first (then oldest request). */
  private pending(): PrivacyTransaction[] {
    return [...this.transactions.values()]
      .filter((transaction) => transaction.kind === "delete" && transaction.state === "PENDING")
      .sort((a, b) => (a.runAt ?? 0) - (b.runAt ?? 0) || a.createdAt - b.createdAt);
  }
}
