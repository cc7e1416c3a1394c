import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  deletionRetryPolicy,
  type PrivacyEvent,
  privacyTransactionLifecycle,
  type TransactionLifecycle,
  transitionPrivacy,
} from "./privacy.machine.ts";

function decide(current: TransactionLifecycle | null, event: PrivacyEvent) {
  const decided = transitionPrivacy(current, event);
  assert.ok(decided.ok, JSON.stringify(decided));
  return decided.value;
}

const pending: TransactionLifecycle = { state: "PENDING", runAt: 12_000, attempts: 0 };

describe("the visitor privacy transaction (PRV-05, PRV-06, PRV-10, PRV-12, DEC-PRV-03, DEC-PRV-04)", () => {
  it("[PRV-12, DEC-PRV-03] a get is recorded as SUCCESS at once, with an audit record", () => {
    assert.deepEqual(decide(null, { type: "visitor-read", at: 5_000 }), {
      next: { state: "SUCCESS", settledAt: 5_000, attempts: 0 },
      effects: [
        { type: "record", kind: "get" },
        { type: "audit", action: "visitor-read" },
      ],
    });
  });

  it("[PRV-05, DEC-PRV-04] a delete request without a pending one is a new PENDING transaction, due after the delay", () => {
    assert.deepEqual(decide(null, { type: "deletion-requested", at: 10_000, delayMs: 2_000 }), {
      next: { state: "PENDING", runAt: 12_000, attempts: 0 },
      effects: [
        { type: "record", kind: "delete" },
        { type: "audit", action: "deletion-requested" },
        { type: "schedule-deletion", at: 12_000 },
      ],
    });
  });

  it("[PRV-06] a delete request while one is PENDING answers the existing transaction and records nothing", () => {
    assert.deepEqual(decide(pending, { type: "deletion-requested", at: 11_000, delayMs: 2_000 }), {
      next: pending,
      effects: [{ type: "reuse-pending" }],
    });
  });

  it("[PRV-06] a settled transaction does not hold back a new request: it makes a new PENDING one", () => {
    for (const settled of [
      { state: "SUCCESS", settledAt: 1, attempts: 0 },
      { state: "FAILED", settledAt: 1, attempts: 5 },
    ] as const) {
      const { next, effects } = decide(settled, { type: "deletion-requested", at: 20_000, delayMs: 0 });
      assert.deepEqual(next, { state: "PENDING", runAt: 20_000, attempts: 0 });
      assert.deepEqual(effects[0], { type: "record", kind: "delete" });
    }
  });

  it("[PRV-10, DEC-PRV-04] a pending deletion that ran becomes SUCCESS, forgets the value and is audited", () => {
    assert.deepEqual(decide(pending, { type: "deletion-done", at: 12_500 }), {
      next: { state: "SUCCESS", settledAt: 12_500, attempts: 0 },
      effects: [{ type: "forget-value" }, { type: "audit", action: "deletion-succeeded" }],
    });
  });

  it("[DEC-PRV-04] a failed try is retried after 1, 2, 4, 8 s; the fifth failure makes it FAILED, forgetting the value", () => {
    let state: TransactionLifecycle = pending;
    const retries: number[] = [];
    for (let at = 100_000; state.state === "PENDING"; at += 100_000) {
      const { next, effects } = decide(state, { type: "deletion-failed", at });
      if (next.state === "PENDING") {
        retries.push(next.runAt - at);
        assert.deepEqual(effects, [{ type: "schedule-deletion", at: next.runAt }]);
      } else {
        assert.deepEqual(next, { state: "FAILED", settledAt: at, attempts: 5 });
        assert.deepEqual(effects, [{ type: "forget-value" }, { type: "audit", action: "deletion-failed" }]);
      }
      state = next;
    }
    assert.deepEqual(retries, [1_000, 2_000, 4_000, 8_000]);
  });

  it("SUCCESS and FAILED are final: finishing or failing them again is not applicable (an idempotent worker)", () => {
    for (const settled of [
      { state: "SUCCESS", settledAt: 1, attempts: 0 },
      { state: "FAILED", settledAt: 1, attempts: 5 },
    ] as const) {
      assert.deepEqual(transitionPrivacy(settled, { type: "deletion-done", at: 2 }), {
        ok: false,
        error: "not-applicable",
      });
      assert.deepEqual(transitionPrivacy(settled, { type: "deletion-failed", at: 2 }), {
        ok: false,
        error: "not-applicable",
      });
    }
    assert.deepEqual(transitionPrivacy(null, { type: "deletion-done", at: 2 }), { ok: false, error: "not-applicable" });
    assert.deepEqual(transitionPrivacy(pending, { type: "visitor-read", at: 2 }), {
      ok: false,
      error: "not-applicable",
    });
  });

  it("privacyTransactionLifecycle reads a stored transaction back", () => {
    assert.deepEqual(
      privacyTransactionLifecycle({ state: "PENDING", runAt: 9, attempts: 2, settledAt: null, createdAt: 1 }),
      {
        state: "PENDING",
        runAt: 9,
        attempts: 2,
      },
    );
    assert.deepEqual(
      privacyTransactionLifecycle({ state: "SUCCESS", runAt: null, attempts: 0, settledAt: 4, createdAt: 1 }),
      {
        state: "SUCCESS",
        settledAt: 4,
        attempts: 0,
      },
    );
  });
});

const eventArbitrary: fc.Arbitrary<PrivacyEvent> = fc.oneof(
  fc.record({ type: fc.constant("visitor-read" as const), at: fc.nat() }),
  fc.record({
    type: fc.constant("deletion-requested" as const),
    at: fc.nat(),
    delayMs: fc.integer({ min: -10, max: 1_000_000 }),
  }),
  fc.record({ type: fc.constant("deletion-done" as const), at: fc.nat() }),
  fc.record({ type: fc.constant("deletion-failed" as const), at: fc.nat() }),
);

describe("the transaction machine, for any sequence of events", () => {
  it("a settled transaction is never moved by the worker's events, and PENDING always has a due time >= its request", () => {
    fc.assert(
      fc.property(fc.array(eventArbitrary, { maxLength: 30 }), (events) => {
        let state: TransactionLifecycle | null = null;
        for (const event of events) {
          const decided = transitionPrivacy(state, event);
          if (!decided.ok) continue;
          const { next, effects } = decided.value;
          if (
            state &&
            state.state !== "PENDING" &&
            (event.type === "deletion-done" || event.type === "deletion-failed")
          )
            assert.fail("a settled transaction moved");
          if (next.state === "PENDING" && event.type === "deletion-requested" && state?.state !== "PENDING")
            assert.ok(next.runAt >= event.at);
          if (next.state !== "PENDING" && state?.state === "PENDING")
            assert.ok(
              effects.some((effect) => effect.type === "forget-value"),
              "settling a deletion forgets the value",
            );
          state = next;
        }
      }),
    );
  });

  it("a deletion that keeps failing is FAILED after exactly maxAttempts tries", () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 1_000_000 }), { minLength: deletionRetryPolicy.maxAttempts, maxLength: 20 }),
        (times) => {
          let state: TransactionLifecycle = { state: "PENDING", runAt: 0, attempts: 0 };
          let tries = 0;
          for (const at of times) {
            const decided = transitionPrivacy(state, { type: "deletion-failed", at });
            if (!decided.ok) break;
            tries += 1;
            state = decided.value.next;
          }
          assert.equal(state.state, "FAILED");
          assert.equal(tries, deletionRetryPolicy.maxAttempts);
        },
      ),
    );
  });
});
