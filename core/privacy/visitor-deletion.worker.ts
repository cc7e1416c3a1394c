import { describeError } from "../errors/describe-error.ts";
import type { RetryPolicy } from "../machine.ts";
import type { BackgroundWorker } from "../ports/background.port.ts";
import type { Logger } from "../ports/logger.port.ts";
import type { PrivacyStore, PrivacyTransaction } from "../ports/privacy.store.ts";
import { deletionRetryPolicy, privacyTransactionLifecycle, transitionPrivacy } from "./privacy.machine.ts";
import { type ErasureCounts, ImportsStillRunning, privacyAuditRecord } from "./privacy.use-cases.ts";

/** Deletions run per look, so one pass stays short however many are waiting. */
const batchSize = 20;
/** How long (virtual clock) a deletion waits before it looks again at imports of its profile still running. */
export const importWaitMs = 5_000;

export interface VisitorDeletionWorkerDeps {
  readonly store: PrivacyStore;
  /** Removes everything of the visitor a deletion names (idempotent). */
  readonly erase: (transaction: PrivacyTransaction) => Promise<ErasureCounts>;
  /**
   * Runs before a batch is erased: applies every stored event to the profiles first, so that a visitor
   * stitched by an event not yet applied is found, and deleted, with its group.
   */
  readonly beforeErasing?: (now: number) => Promise<void>;
  /**
   * Whether this node may erase now (svc-hub: it holds the profiles lease, so no profile update runs on
   * another node while a group is erased, which could write the group back). Absent: always.
   */
  readonly mayRun?: () => Promise<boolean>;
  readonly logger: Logger;
  readonly policy?: RetryPolicy;
}

/**
 * PRV-09, PRV-10, LIM-05, DEC-PRV-04: runs each pending deletion once its delay has passed on the virtual
 * clock. A deletion that ran becomes SUCCESS, its value forgotten and an audit record written in the same
 * commit; then the store's files are flushed (the WAL checkpointed and truncated), so the erased values are
 * not left on disk. A storage error is retried (1, 2, 4, 8 s); the fifth makes the deletion FAILED. The
 * deletions live in the store, so one requested before a restart runs after it, on any node; running one
 * twice (a crash before its settlement, two nodes) erases nothing more and settles it once.
 */
export function visitorDeletionWorker(deps: VisitorDeletionWorkerDeps): BackgroundWorker {
  const policy = deps.policy ?? deletionRetryPolicy;
  /** Erasures whose WAL checkpoint could not finish yet; the next look tries again. */
  let unflushed = false;

  async function settleFailed(transaction: PrivacyTransaction, now: number, error: unknown): Promise<boolean> {
    deps.logger.warn("visitor deletion failed", {
      transaction: transaction.id,
      attempt: transaction.attempts + 1,
      error: describeError(error),
    });
    const decided = transitionPrivacy(
      privacyTransactionLifecycle(transaction),
      { type: "deletion-failed", at: now },
      policy,
    );
    if (!decided.ok) return false;
    const { next } = decided.value;
    if (next.state === "PENDING") {
      await deps.store.retryDeletion(transaction.id, next.attempts, next.runAt);
      return false;
    }
    if (next.state !== "FAILED") return false;
    deps.logger.error("visitor deletion FAILED", { transaction: transaction.id, attempts: next.attempts });
    return deps.store.settleDeletion({
      id: transaction.id,
      state: "FAILED",
      settledAt: next.settledAt,
      attempts: next.attempts,
      audit: privacyAuditRecord(transaction, "deletion-failed", now, { attempts: next.attempts }),
    });
  }

  async function run(transaction: PrivacyTransaction, now: number): Promise<boolean> {
    const decided = transitionPrivacy(
      privacyTransactionLifecycle(transaction),
      { type: "deletion-done", at: now },
      policy,
    );
    if (!decided.ok || decided.value.next.state !== "SUCCESS") return false;
    const { next } = decided.value;
    try {
      const counts = await deps.erase(transaction);
      return await deps.store.settleDeletion({
        id: transaction.id,
        state: "SUCCESS",
        settledAt: next.settledAt,
        attempts: next.attempts,
        audit: privacyAuditRecord(transaction, "deletion-succeeded", now, counts),
      });
    } catch (error) {
      if (error instanceof ImportsStillRunning) {
        // Not a failure: nothing was erased, and the deletion runs once the imports are done.
        deps.logger.info("visitor deletion waits for imports to finish", {
          transaction: transaction.id,
          files: error.files,
        });
        await deps.store.retryDeletion(transaction.id, transaction.attempts, now + importWaitMs);
        return false;
      }
      return settleFailed(transaction, now, error);
    }
  }

  async function flush(): Promise<void> {
    unflushed = !(await deps.store.flushErasures());
    if (unflushed)
      deps.logger.warn(
        "the WAL could not be checkpointed after a visitor deletion (a reader held it); trying again at the next look",
      );
  }

  return {
    name: "visitor-deletion",
    async runDue(now) {
      const due = await deps.store.dueDeletions(now, batchSize);
      if (due.length === 0) {
        if (unflushed) await flush();
        return 0;
      }
      if (deps.mayRun && !(await deps.mayRun())) return 0;
      await deps.beforeErasing?.(now);
      let settled = 0;
      let erased = false;
      for (const transaction of due) {
        if (await run(transaction, now)) settled += 1;
        erased = true;
      }
      if (erased) await flush();
      return settled;
    },
    nextDueAt() {
      return deps.store.nextDeletionAt();
    },
  };
}
