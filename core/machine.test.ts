import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  type ChangeEffect,
  type ChangeEvent,
  type ChangeLifecycle,
  type ChangeTransitionError,
  transitionChange,
} from "./datalayer/datalayer.machine.ts";
import {
  type FileImportEffect,
  type FileImportEvent,
  type FileImportState,
  transitionFileImport,
} from "./files/file-import.machine.ts";
import { backoffDelay, decideRetry, dueAfter, type Machine, type RetryPolicy } from "./machine.ts";
import {
  type PrivacyEffect,
  type PrivacyEvent,
  type PrivacyTransitionError,
  type TransactionLifecycle,
  transitionPrivacy,
} from "./privacy/privacy.machine.ts";

const policy: RetryPolicy = { maxAttempts: 5, firstDelayMs: 1_000, maxDelayMs: 60_000 };

describe("the machine kernel", () => {
  it("every machine of the core has the one shape transition(state, event) -> { next, effects }", () => {
    const machines = [
      transitionFileImport satisfies Machine<FileImportState, FileImportEvent, FileImportEffect, string>,
      transitionPrivacy satisfies Machine<
        TransactionLifecycle | null,
        PrivacyEvent,
        PrivacyEffect,
        PrivacyTransitionError,
        TransactionLifecycle
      >,
      transitionChange satisfies Machine<
        Parameters<typeof transitionChange>[0],
        ChangeEvent,
        ChangeEffect,
        ChangeTransitionError,
        ChangeLifecycle
      >,
    ];
    assert.equal(machines.length, 3);
  });

  it("the backoff doubles from the first delay and stops at the longest", () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 8].map((failures) => backoffDelay(policy, failures));
    assert.deepEqual(delays, [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
  });

  it("a failed try is retried after the backoff until the policy's tries are spent", () => {
    assert.deepEqual(decideRetry(policy, 0, 10_000), { retry: true, attempts: 1, runAt: 11_000 });
    assert.deepEqual(decideRetry(policy, 3, 10_000), { retry: true, attempts: 4, runAt: 18_000 });
    assert.deepEqual(decideRetry(policy, 4, 10_000), { retry: false, attempts: 5 });
  });

  it("for any policy, work is tried exactly maxAttempts times, never sooner than it failed", () => {
    fc.assert(
      fc.property(
        fc.record({
          maxAttempts: fc.integer({ min: 1, max: 20 }),
          firstDelayMs: fc.nat({ max: 100_000 }),
          maxDelayMs: fc.nat({ max: 1_000_000 }),
        }),
        fc.nat({ max: 1_000_000_000 }),
        (anyPolicy, at) => {
          let attempts = 0;
          let tries = 1;
          for (;;) {
            const decided = decideRetry(anyPolicy, attempts, at);
            assert.equal(decided.attempts, attempts + 1);
            if (!decided.retry) break;
            assert.ok(decided.runAt >= at && decided.runAt <= at + anyPolicy.maxDelayMs);
            attempts = decided.attempts;
            tries += 1;
          }
          assert.equal(tries, anyPolicy.maxAttempts);
        },
      ),
    );
  });

  it("work is due after its delay; a negative delay counts as none", () => {
    assert.equal(dueAfter(5_000, 2_000), 7_000);
    assert.equal(dueAfter(5_000, 0), 5_000);
    assert.equal(dueAfter(5_000, -3_000), 5_000);
  });
});
