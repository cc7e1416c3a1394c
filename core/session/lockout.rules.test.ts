import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { lockoutPolicyFromLimits, lockoutRelevantUntil, noFailures, reserveAttempt, settleAttempt, withdrawAttempt, type LockoutState } from "./lockout.rules.ts";

const policy = lockoutPolicyFromLimits({ lockoutAttempts: 5, lockoutMinutes: 10 });
const minute = 60_000;

/** One login attempt through the rules: the answer the service gives and the state after it. */
function attempt(state: LockoutState, now: number, rightSecret: boolean): { answer: "ok" | 1401 | 1402; state: LockoutState } {
  const { decision, next } = reserveAttempt(state, now, policy);
  if (decision.kind === "locked") return { answer: 1402, state: next };
  return { answer: rightSecret ? "ok" : 1401, state: settleAttempt(next, rightSecret) };
}

describe("login lockout (DEC-SES-01, SES-09)", () => {
  it("attempts 1 to 5 answer 1401, the 6th answers 1402 even with the right password", () => {
    let state = noFailures;
    const answers: Array<"ok" | 1401 | 1402> = [];
    for (let i = 0; i < 5; i += 1) {
      const step = attempt(state, i * 1000, false);
      answers.push(step.answer);
      state = step.state;
    }
    answers.push(attempt(state, 6000, true).answer);
    assert.deepEqual(answers, [1401, 1401, 1401, 1401, 1401, 1402]);
  });

  it("the lock ends 10 minutes after the 5th failure, and the count starts again", () => {
    let state = noFailures;
    for (let i = 0; i < 5; i += 1) state = attempt(state, i * minute, false).state;
    const fifth = 4 * minute;
    assert.equal(attempt(state, fifth + 10 * minute - 1, true).answer, 1402);
    const after = attempt(state, fifth + 10 * minute, false);
    assert.equal(after.answer, 1401);
    assert.deepEqual(after.state.failures, [fifth + 10 * minute]);
  });

  it("failures older than the window do not count", () => {
    let state = noFailures;
    for (let i = 0; i < 4; i += 1) state = attempt(state, i * 1000, false).state;
    const later = attempt(state, 11 * minute, false);
    assert.equal(later.answer, 1401);
    assert.deepEqual(later.state.failures, [11 * minute]);
  });

  it("a success resets the count", () => {
    let state = noFailures;
    for (let i = 0; i < 4; i += 1) state = attempt(state, i, false).state;
    state = attempt(state, 10, true).state;
    assert.deepEqual(state, noFailures);
    for (let i = 0; i < 4; i += 1) state = attempt(state, 20 + i, false).state;
    assert.equal(attempt(state, 30, true).answer, "ok");
  });

  it("a locked attempt is not counted and does not extend the lock", () => {
    let state = noFailures;
    for (let i = 0; i < 5; i += 1) state = attempt(state, i, false).state;
    const locked = attempt(state, 1000, false);
    assert.deepEqual(locked.state, state);
  });

  it("matches a model written from the decision's words, for any sequence of attempts and waits", () => {
    /** The decision's words: 5 failures within 10 minutes lock the name until 10 minutes after the 5th. */
    class Model {
      private counted: number[] = [];
      private lockEnd: number | null = null;
      attempt(now: number, right: boolean): "ok" | 1401 | 1402 {
        if (this.lockEnd !== null && now < this.lockEnd) return 1402;
        if (this.lockEnd !== null) {
          this.counted = [];
          this.lockEnd = null;
        }
        if (right) {
          this.counted = [];
          return "ok";
        }
        this.counted.push(now);
        if (this.counted.filter((at) => at > now - 10 * minute).length >= 5) this.lockEnd = now + 10 * minute;
        return 1401;
      }
    }
    const step = fc.record({ waitMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 4 * minute }), fc.integer({ min: 9 * minute, max: 11 * minute })), right: fc.boolean() });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const model = new Model();
        let state = noFailures;
        let now = 1_000_000;
        for (const { waitMs, right } of steps) {
          now += waitMs;
          const result = attempt(state, now, right);
          state = result.state;
          assert.equal(result.answer, model.attempt(now, right));
          assert.ok(state.failures.length <= policy.maxFailures);
        }
      }),
      { seed: 20261121, numRuns: 500 },
    );
  });
});

describe("withdrawing an attempt whose secret was never checked (the service was too busy)", () => {
  const policy = { maxFailures: 5, windowMs: 600_000, lockMs: 600_000 };

  it("leaves the state as if the attempt had not been made, the lock it would have set included", () => {
    let state = noFailures;
    for (let at = 1; at <= 4; at += 1) state = reserveAttempt(state, at * 1000, policy).next;
    const fifth = reserveAttempt(state, 5000, policy).next;
    assert.equal(fifth.lockedUntil, 5000 + policy.lockMs);
    assert.deepEqual(withdrawAttempt(fifth, 5000, policy), state);
    assert.deepEqual(withdrawAttempt(reserveAttempt(noFailures, 7, policy).next, 7, policy), noFailures);
  });

  it("keeps a lock that earlier failures set, and a state without that attempt as it is", () => {
    const locked = { failures: [1, 2, 3, 4, 5], lockedUntil: 600_005 };
    assert.deepEqual(withdrawAttempt(locked, 9, policy), locked);
    assert.deepEqual(withdrawAttempt({ failures: [1, 2, 3, 4, 5, 6].slice(-5), lockedUntil: 600_005 }, 6, policy).lockedUntil, 600_005);
  });
});

describe("when a lockout record stops mattering, so the store may delete it (DEC-SES-01, DEC-AUT-01)", () => {
  it("a record without failures never matters; one with failures matters for a window after the newest; a locked one until its lock ends", () => {
    assert.equal(lockoutRelevantUntil(noFailures, policy), 0);
    assert.equal(lockoutRelevantUntil({ failures: [1_000, 2_000], lockedUntil: null }, policy), 2_000 + 10 * minute);
    assert.equal(lockoutRelevantUntil({ failures: [1, 2, 3, 4, 5], lockedUntil: 5 + 10 * minute }, policy), 5 + 10 * minute);
  });

  /** Any state the service can store: attempts right and wrong, and attempts withdrawn because the service was busy. */
  const storedStates = fc
    .array(fc.record({ waitMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 4 * minute }), fc.integer({ min: 9 * minute, max: 11 * minute })), outcome: fc.oneof({ arbitrary: fc.constant("wrong"), weight: 6 }, fc.constant("right"), fc.constant("busy")) }), { maxLength: 30 })
    .map((steps) => {
      let state = noFailures;
      let now = 1_000_000;
      for (const { waitMs, outcome } of steps) {
        now += waitMs;
        const { decision, next } = reserveAttempt(state, now, policy);
        if (decision.kind === "locked") continue;
        state = outcome === "busy" ? withdrawAttempt(next, now, policy) : settleAttempt(next, outcome === "right");
      }
      return state;
    });

  it("from that time on, every attempt is answered and counted as if there were no record (deleting it changes nothing)", () => {
    fc.assert(
      fc.property(storedStates, fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 30 * minute })), (state, laterMs) => {
        const at = lockoutRelevantUntil(state, policy) + laterMs;
        assert.deepEqual(reserveAttempt(state, at, policy), reserveAttempt(noFailures, at, policy));
      }),
      { seed: 20261121, numRuns: 500 },
    );
  });

  it("and not a moment sooner: just before it, a lock still refuses or a failure still counts", () => {
    fc.assert(
      fc.property(storedStates, (state) => {
        const until = lockoutRelevantUntil(state, policy);
        if (until === 0) return;
        assert.notDeepEqual(reserveAttempt(state, until - 1, policy), reserveAttempt(noFailures, until - 1, policy));
      }),
      { seed: 20261121, numRuns: 500 },
    );
  });
});
