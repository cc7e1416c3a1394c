import { describeError } from "../errors/describe-error.ts";
import type { RetryPolicy } from "../machine.ts";
import type { BackgroundWorker } from "../ports/background.port.ts";
import type { DataLayerChange, DataLayerStore } from "../ports/datalayer.store.ts";
import type { Logger } from "../ports/logger.port.ts";
import {
  type ChangeEffect,
  dataLayerChangeLifecycle,
  publishRetryPolicy,
  transitionChange,
} from "./datalayer.machine.ts";

/** Changes published per look, so one pass stays short however much is waiting. */
const batchSize = 100;

/** What a completed change serves from now on: its content, or nothing after a delete. */
function servedBy(effects: readonly ChangeEffect[]): string | null {
  for (const effect of effects) {
    if (effect.type === "serve") return effect.body;
    if (effect.type === "stop-serving") return null;
  }
  return null;
}

/**
 * DLE-07, DEC-DLE-05, DEC-DLE-06, DEC-DLE-07: publishes each data layer change once its delay has passed
 * on the virtual clock, the changes of one data layer in the order they were accepted. Publishing makes
 * the change completed and serves its content (or stops serving it, for a delete) in one write. A write
 * that fails is tried again later; after repeated failures the change is failed and what was served stays.
 * The work lives in the store, so a change accepted before a restart is published after it.
 */
export function dataLayerPublisher(deps: {
  store: DataLayerStore;
  logger: Logger;
  policy?: RetryPolicy;
}): BackgroundWorker {
  const policy = deps.policy ?? publishRetryPolicy;

  async function publish(change: DataLayerChange, now: number): Promise<boolean> {
    const decided = transitionChange(
      { kind: change.kind, body: change.body, lifecycle: dataLayerChangeLifecycle(change) },
      { type: "publish" },
      policy,
    );
    if (!decided.ok || decided.value.next.state !== "completed") return false;
    const { next, effects } = decided.value;
    try {
      return await deps.store.settle({
        key: change.key,
        seq: change.seq,
        state: "completed",
        settledAt: next.settledAt,
        attempts: next.attempts,
        serve: servedBy(effects),
      });
    } catch (error) {
      deps.logger.warn("data layer change could not be published", {
        ...change.key,
        seq: change.seq,
        error: describeError(error),
      });
      return failed(change, now);
    }
  }

  async function failed(change: DataLayerChange, now: number): Promise<boolean> {
    const decided = transitionChange(
      { kind: change.kind, body: change.body, lifecycle: dataLayerChangeLifecycle(change) },
      { type: "publish-failed", at: now },
      policy,
    );
    if (!decided.ok) return false;
    const { next } = decided.value;
    if (next.state === "pending") {
      await deps.store.retry(change.key, change.seq, next.attempts, next.runAt);
      return false;
    }
    deps.logger.error("data layer change failed", { ...change.key, seq: change.seq, attempts: next.attempts });
    return deps.store.settle({
      key: change.key,
      seq: change.seq,
      state: "failed",
      settledAt: next.settledAt,
      attempts: next.attempts,
    });
  }

  return {
    name: "datalayer-publisher",
    async runDue(now) {
      // The changes due are the oldest pending change of distinct data layers, so they are published together
      // (a store may commit them together); the order within one data layer is kept by publishing its heads only.
      // Every change's writes end before the pass does, also when one of them fails (that failure is the pass's).
      const outcomes = await Promise.allSettled(
        (await deps.store.due(now, batchSize)).map((change) => publish(change, now)),
      );
      const failed = outcomes.find((outcome) => outcome.status === "rejected");
      if (failed) throw failed.reason;
      return outcomes.filter((outcome) => outcome.status === "fulfilled" && outcome.value).length;
    },
    nextDueAt() {
      return deps.store.nextRunAt();
    },
  };
}
