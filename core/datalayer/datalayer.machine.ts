import { type ManagementError, managementError } from "../errors/index.ts";
import { decideRetry, dueAfter, type RetryPolicy, type TransitionResult } from "../machine.ts";
import type { DataLayerChange, DataLayerChangeKind, DataLayerKey } from "../ports/datalayer.store.ts";
import { err, ok } from "../result.ts";

// ---------------------------------------------------------------------------------------------------
// A data layer: which changes it accepts (DLE-01..03, DLE-10, DLE-11, DEC-DLE-01, DEC-DLE-05)
// ---------------------------------------------------------------------------------------------------

/** What deciding a change needs to know of a data layer. */
export interface DataLayerSummary {
  /** DEC-DLE-05: the newest accepted change is an upload or an update, completed or not. */
  readonly exists: boolean;
  /** seq of the newest accepted change; 0 before the first. */
  readonly lastSeq: number;
  /** When the newest accepted change is due; null before the first. */
  readonly lastDueAt: number | null;
}

/** A data layer for which no change was ever accepted. */
export const untouchedDataLayer: DataLayerSummary = { exists: false, lastSeq: 0, lastDueAt: null };

/** A call of the API on one data layer, at virtual time `at`, to be published after `delayMs` (DEC-DLE-06). */
export type DataLayerCommand =
  | { readonly type: "upload"; readonly body: string; readonly at: number; readonly delayMs: number }
  | { readonly type: "update"; readonly body: string; readonly at: number; readonly delayMs: number }
  | { readonly type: "delete"; readonly at: number; readonly delayMs: number };

/** Record the accepted change, pending, as the data layer's newest. */
export type DataLayerEffect = { readonly type: "record-change"; readonly change: DataLayerChange };

/**
 * DLE-01, DLE-02, DLE-03, DLE-10, DLE-11, DEC-DLE-01, DEC-DLE-05, DEC-DLE-06: decides a call on a data layer.
 *
 * - upload of a data layer that exists: 405 1464; update or delete of one that does not: 404 1404 naming it;
 * - otherwise the change is accepted as pending, even while earlier changes are pending; it is due after its
 *   delay but never before the previous change, so changes are published in the order they were accepted.
 */
export function transitionDataLayer(
  key: DataLayerKey,
  state: DataLayerSummary,
  command: DataLayerCommand,
): TransitionResult<DataLayerSummary, DataLayerEffect, ManagementError> {
  if (command.type === "upload" && state.exists) return err(managementError("resourceAlreadyExists"));
  if (command.type !== "upload" && !state.exists) {
    return err(managementError("dataLayerNotFound", { account: key.account, profile: key.profile, dl_id: key.dlId }));
  }
  const ownDue = dueAfter(command.at, command.delayMs);
  const dueAt = state.lastDueAt === null ? ownDue : Math.max(ownDue, state.lastDueAt);
  const seq = state.lastSeq + 1;
  const kind: DataLayerChangeKind = command.type;
  const change: DataLayerChange = {
    key,
    seq,
    kind,
    body: command.type === "delete" ? null : command.body,
    state: "pending",
    acceptedAt: command.at,
    dueAt,
    runAt: dueAt,
    attempts: 0,
    settledAt: null,
  };
  return ok({
    next: { exists: command.type !== "delete", lastSeq: seq, lastDueAt: dueAt },
    effects: [{ type: "record-change", change }],
  });
}

// ---------------------------------------------------------------------------------------------------
// A change: pending -> completed | failed (DLE-07, DEC-DLE-06)
// ---------------------------------------------------------------------------------------------------

export type ChangeLifecycle =
  | { readonly state: "pending"; readonly runAt: number; readonly attempts: number }
  | { readonly state: "completed"; readonly settledAt: number; readonly attempts: number }
  | { readonly state: "failed"; readonly settledAt: number; readonly attempts: number };

/**
 * `publish`: the publisher's turn for a due change (it is the oldest pending one of its data layer);
 * `publish-failed`: carrying out the effects of `publish` failed at `at`.
 */
export type ChangeEvent = { readonly type: "publish" } | { readonly type: "publish-failed"; readonly at: number };

/** Serve this content from now on; stop serving (a delete); or try again at `at`. */
export type ChangeEffect =
  | { readonly type: "serve"; readonly body: string }
  | { readonly type: "stop-serving" }
  | { readonly type: "retry-at"; readonly at: number };

/** DEC-DLE-06: how often a change whose publishing fails is tried again before it is failed. */
export const publishRetryPolicy: RetryPolicy = { maxAttempts: 5, firstDelayMs: 1_000, maxDelayMs: 60_000 };

export type ChangeTransitionError = "not-pending";

/**
 * DLE-07, DEC-DLE-06: a pending change becomes completed when published, serving its content (upload,
 * update) or nothing (delete). It counts as published at its scheduled time (runAt), so when a late worker
 * gets to it does not change what its status says (DEC-DLE-08 counts retention from then). A failed try
 * is retried with a doubling delay; after `maxAttempts` failed tries the change is failed and what is
 * served stays as it was. Completed and failed are final.
 */
export function transitionChange(
  change: { readonly kind: DataLayerChangeKind; readonly body: string | null; readonly lifecycle: ChangeLifecycle },
  event: ChangeEvent,
  policy: RetryPolicy = publishRetryPolicy,
): TransitionResult<ChangeLifecycle, ChangeEffect, ChangeTransitionError> {
  const current = change.lifecycle;
  if (current.state !== "pending") return err("not-pending");
  switch (event.type) {
    case "publish": {
      const effect: ChangeEffect =
        change.kind === "delete" || change.body === null
          ? { type: "stop-serving" }
          : { type: "serve", body: change.body };
      return ok({
        next: { state: "completed", settledAt: current.runAt, attempts: current.attempts },
        effects: [effect],
      });
    }
    case "publish-failed": {
      const retry = decideRetry(policy, current.attempts, event.at);
      if (!retry.retry)
        return ok({ next: { state: "failed", settledAt: event.at, attempts: retry.attempts }, effects: [] });
      const { attempts, runAt } = retry;
      return ok({ next: { state: "pending", runAt, attempts }, effects: [{ type: "retry-at", at: runAt }] });
    }
  }
}

/** The lifecycle part of a stored change. */
export function dataLayerChangeLifecycle(change: DataLayerChange): ChangeLifecycle {
  if (change.state === "pending") return { state: "pending", runAt: change.runAt, attempts: change.attempts };
  return { state: change.state, settledAt: change.settledAt ?? change.runAt, attempts: change.attempts };
}
