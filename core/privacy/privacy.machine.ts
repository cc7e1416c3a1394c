/**
 * The visitor privacy transaction (interface.md, "Visitor delete transaction"; PRV-05, PRV-06, PRV-10,
 * PRV-12, DEC-PRV-03, DEC-PRV-04): PENDING -> SUCCESS | FAILED, and a get that is SUCCESS at once.
 */
import { decideRetry, dueAfter, type RetryPolicy, type Transition, type TransitionResult } from "../machine.ts";
import type { PrivacyAuditAction, PrivacyTransactionKind } from "../ports/privacy.store.ts";
import { err, ok } from "../result.ts";

/** Where a transaction stands. SUCCESS and FAILED are final. */
export type TransactionLifecycle =
  | { readonly state: "PENDING"; readonly runAt: number; readonly attempts: number }
  | { readonly state: "SUCCESS"; readonly settledAt: number; readonly attempts: number }
  | { readonly state: "FAILED"; readonly settledAt: number; readonly attempts: number };

/**
 * - `visitor-read`: a get-visitor request was answered at `at`;
 * - `deletion-requested`: a delete-visitor request at `at`, to run after `delayMs` (the timing preset);
 * - `deletion-done`: the deletion worker removed everything at `at`;
 * - `deletion-failed`: a try of the deletion failed at `at` (a storage error).
 */
export type PrivacyEvent =
  | { readonly type: "visitor-read"; readonly at: number }
  | { readonly type: "deletion-requested"; readonly at: number; readonly delayMs: number }
  | { readonly type: "deletion-done"; readonly at: number }
  | { readonly type: "deletion-failed"; readonly at: number };

/**
 * What the caller carries out, as data:
 * - `record`: store a new transaction of `kind` (its id is the caller's) in the lifecycle `next`;
 * - `reuse-pending`: answer the pending transaction that exists, recording nothing (PRV-06);
 * - `schedule-deletion`: the deletion is due at `at` (first try, or a retry);
 * - `forget-value`: drop the attribute value kept for the deletion (DEC-PRV-04);
 * - `audit`: append an audit record of `action` (hash of the value, never the value).
 */
export type PrivacyEffect =
  | { readonly type: "record"; readonly kind: PrivacyTransactionKind }
  | { readonly type: "reuse-pending" }
  | { readonly type: "schedule-deletion"; readonly at: number }
  | { readonly type: "forget-value" }
  | { readonly type: "audit"; readonly action: PrivacyAuditAction };

export type PrivacyTransition = Transition<TransactionLifecycle, PrivacyEffect>;

/** DEC-PRV-04: how often a deletion that meets storage errors is tried before it is FAILED. */
export const deletionRetryPolicy: RetryPolicy = { maxAttempts: 5, firstDelayMs: 1_000, maxDelayMs: 60_000 };

/** The event does not apply to the transaction as it stands (for example a second worker finishing it). */
export type PrivacyTransitionError = "not-applicable";

/**
 * PRV-05, PRV-06, PRV-10, PRV-12, DEC-PRV-03, DEC-PRV-04: the one table of the transaction.
 *
 * | State        | Event              | Next                        | Effects                                  |
 * |--------------|--------------------|-----------------------------|------------------------------------------|
 * | (none)       | visitor-read       | SUCCESS                     | record get, audit visitor-read           |
 * | (none)       | deletion-requested | PENDING (due after delay)   | record delete, audit, schedule           |
 * | PENDING      | deletion-requested | PENDING (unchanged)         | reuse-pending                            |
 * | SUCCESS/FAIL | deletion-requested | a new PENDING transaction   | as from (none)                           |
 * | PENDING      | deletion-done      | SUCCESS                     | forget-value, audit deletion-succeeded   |
 * | PENDING      | deletion-failed    | PENDING, retried later      | schedule (doubling delay)                |
 * | PENDING      | deletion-failed    | FAILED (after maxAttempts)  | forget-value, audit deletion-failed      |
 *
 * Anything else is `not-applicable` and changes nothing, so a worker that runs a deletion twice (a
 * restart, a second node) settles it once.
 */
export function transitionPrivacy(
  current: TransactionLifecycle | null,
  event: PrivacyEvent,
  policy: RetryPolicy = deletionRetryPolicy,
): TransitionResult<TransactionLifecycle, PrivacyEffect, PrivacyTransitionError> {
  switch (event.type) {
    case "visitor-read":
      if (current !== null) return err("not-applicable");
      return ok({
        next: { state: "SUCCESS", settledAt: event.at, attempts: 0 },
        effects: [
          { type: "record", kind: "get" },
          { type: "audit", action: "visitor-read" },
        ],
      });
    case "deletion-requested": {
      if (current?.state === "PENDING") return ok({ next: current, effects: [{ type: "reuse-pending" }] });
      const runAt = dueAfter(event.at, event.delayMs);
      return ok({
        next: { state: "PENDING", runAt, attempts: 0 },
        effects: [
          { type: "record", kind: "delete" },
          { type: "audit", action: "deletion-requested" },
          { type: "schedule-deletion", at: runAt },
        ],
      });
    }
    case "deletion-done":
      if (current?.state !== "PENDING") return err("not-applicable");
      return ok({
        next: { state: "SUCCESS", settledAt: event.at, attempts: current.attempts },
        effects: [{ type: "forget-value" }, { type: "audit", action: "deletion-succeeded" }],
      });
    case "deletion-failed": {
      if (current?.state !== "PENDING") return err("not-applicable");
      const retry = decideRetry(policy, current.attempts, event.at);
      if (!retry.retry) {
        return ok({
          next: { state: "FAILED", settledAt: event.at, attempts: retry.attempts },
          effects: [{ type: "forget-value" }, { type: "audit", action: "deletion-failed" }],
        });
      }
      const { attempts, runAt } = retry;
      return ok({ next: { state: "PENDING", runAt, attempts }, effects: [{ type: "schedule-deletion", at: runAt }] });
    }
  }
}

/** The lifecycle part of a stored transaction. */
export function privacyTransactionLifecycle(transaction: {
  readonly state: TransactionLifecycle["state"];
  readonly runAt: number | null;
  readonly attempts: number;
  readonly settledAt: number | null;
  readonly createdAt: number;
}): TransactionLifecycle {
  if (transaction.state === "PENDING")
    return { state: "PENDING", runAt: transaction.runAt ?? transaction.createdAt, attempts: transaction.attempts };
  return {
    state: transaction.state,
    settledAt: transaction.settledAt ?? transaction.createdAt,
    attempts: transaction.attempts,
  };
}
