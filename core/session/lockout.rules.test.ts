import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  type LockoutState,
  lockoutPolicyFromLimits,
  lockoutRelevantUntil,
  noFailures,
  pendingAttemptMs,
  reserveAttempt,
  settleAttempt,
  unlockAttempts,
  withdrawAttempt,
} from "./lockout.rules.ts";

const policy = lockoutPolicyFromLimits({ lockoutAttempts: 5, lockoutMinutes: 10 }, "password");
const keyPolicy = lockoutPolicyFromLimits({ lockoutAttempts: 5, lockoutMinutes: 10 }, "api-key");
const minute = 60_000;

/** One login attempt through the rules: the answer the service gives and the state after it. */
function attempt(
  state: LockoutState,
  now: number,
  rightSecret: boolean,
): { answer: "ok" | 1401 | 1402; state: LockoutState } {
  const { decision, next } = reserveAttempt(state, now, policy);
  if (decision.kind === "locked") return { answer: 1402, state: next };
  assert.equal(decision.kind, "proceed", "one attempt after another never waits");
  return { answer: rightSecret ? "ok" : 1401, state: settleAttempt(next, now, rightSecret, policy) };
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
    const step = fc.record({
      waitMs: fc.oneof(
        fc.constant(0),
        fc.integer({ min: 0, max: 4 * minute }),
        fc.integer({ min: 9 * minute, max: 11 * minute }),
      ),
      right: fc.boolean(),
    });
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

describe("API key lockout (DEC-AUT-01): the right key passes a lock", () => {
  /** One key attempt through the rules, as the service makes it. */
  function keyAttempt(
    state: LockoutState,
    now: number,
    rightKey: boolean,
  ): { answer: "ok" | 1401 | 1402; state: LockoutState } {
    const { decision, next } = reserveAttempt(state, now, keyPolicy);
    assert.notEqual(decision.kind, "wait", "one attempt after another never waits");
    if (decision.kind === "locked") return { answer: 1402, state: next };
    if (decision.kind === "check-locked") return { answer: rightKey ? "ok" : 1402, state: next };
    return { answer: rightKey ? "ok" : 1401, state: settleAttempt(next, now, rightKey, keyPolicy) };
  }

  it("after five wrong keys, a wrong key is 1402 and the right key passes; neither is counted nor lifts or extends the lock", () => {
    let state = noFailures;
    for (let i = 0; i < 5; i += 1) state = keyAttempt(state, i * 1000, false).state;
    const locked = state;
    const answers = [];
    for (const [at, right] of [
      [5_000, false],
      [6_000, true],
      [7_000, false],
      [8_000, true],
    ] as const) {
      const step = keyAttempt(state, at, right);
      answers.push(step.answer);
      state = step.state;
    }
    assert.deepEqual(answers, [1402, "ok", 1402, "ok"]);
    assert.deepEqual(state, locked);
  });

  it("while locked, any number of keys may be checked at once: a flood of wrong keys holds no place the right one needs", () => {
    let state = noFailures;
    for (let i = 0; i < 5; i += 1) state = keyAttempt(state, i, false).state;
    const locked = state;
    for (let i = 0; i < 300; i += 1) {
      const { decision, next } = reserveAttempt(state, 100 + i, keyPolicy);
      assert.equal(decision.kind, "check-locked");
      state = next;
    }
    assert.deepEqual(state, locked);
  });

  it("the password lockout still refuses the right password while locked (DEC-SES-01)", () => {
    let state = noFailures;
    for (let i = 0; i < 5; i += 1) state = settleAttempt(reserveAttempt(state, i, policy).next, i, false, policy);
    assert.equal(reserveAttempt(state, 10, policy).decision.kind, "locked");
  });
});

describe("attempts made together (DEC-SES-01, SES-09): at most five secrets in flight or failed, and the right one is never refused", () => {
  /** Reserves `count` attempts at `now`, one after another as the store serializes them: the decisions and the state. */
  function reserveMany(state: LockoutState, now: number, count: number): { decisions: string[]; state: LockoutState } {
    const decisions: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const { decision, next } = reserveAttempt(state, now, policy);
      decisions.push(decision.kind);
      if (decision.kind === "proceed") state = next;
    }
    return { decisions, state };
  }

  it("twelve right secrets at once: five are checked, seven wait; once those succeed, the seven go on, and none is refused", () => {
    const first = reserveMany(noFailures, 1_000, 12);
    assert.deepEqual(first.decisions, [...Array(5).fill("proceed"), ...Array(7).fill("wait")]);
    let state = first.state;
    for (let i = 0; i < 5; i += 1) state = settleAttempt(state, 1_000, true, policy);
    assert.deepEqual(state, noFailures);
    assert.deepEqual(reserveMany(state, 1_001, 7).decisions, Array(5).fill("proceed").concat(Array(2).fill("wait")));
  });

  it("fifty wrong secrets at once: five are checked and fail, which locks the name; the forty-five waiting are refused unchecked", () => {
    const first = reserveMany(noFailures, 1_000, 50);
    assert.equal(first.decisions.filter((kind) => kind === "proceed").length, 5);
    let state = first.state;
    for (let i = 0; i < 5; i += 1) state = settleAttempt(state, 1_000, false, policy);
    assert.equal(state.lockedUntil, 1_000 + 10 * minute);
    assert.deepEqual(reserveMany(state, 1_002, 45).decisions, Array(45).fill("locked"));
  });

  it("a right secret among four failures in flight: it succeeds, and the failures that settle after it count again from there", () => {
    let { state } = reserveMany(noFailures, 1_000, 4);
    ({ state } = reserveMany(state, 1_001, 1));
    state = settleAttempt(state, 1_001, true, policy);
    assert.deepEqual(state.failures, []);
    for (let i = 0; i < 4; i += 1) state = settleAttempt(state, 1_000, false, policy);
    assert.deepEqual(state, { failures: [1_000, 1_000, 1_000, 1_000], pending: [], lockedUntil: null });
  });

  it("an attempt still in flight after a minute (its process stopped) counts as a failure", () => {
    let { state } = reserveMany(noFailures, 1_000, 5);
    const later = reserveAttempt(state, 1_000 + pendingAttemptMs, policy);
    assert.equal(later.decision.kind, "locked");
    // One stopped, four settled as failures: the fifth failure is the stopped one's, at its own time.
    ({ state } = reserveMany(noFailures, 1_000, 1));
    state = reserveMany(state, 2_000, 4).state;
    for (let i = 0; i < 4; i += 1) state = settleAttempt(state, 2_000, false, policy);
    assert.equal(reserveAttempt(state, 3_000, policy).decision.kind, "wait");
    assert.deepEqual(reserveAttempt(state, 1_000 + pendingAttemptMs, policy).decision, {
      kind: "locked",
      until: 2_000 + 10 * minute,
    });
  });

  it("for any interleaving of attempts, no more secrets fail than the limit before the lock, and the right ones are only waited, never refused, while no lock is set", () => {
    const step = fc.record({
      reserve: fc.boolean(),
      right: fc.boolean(),
      busy: fc.boolean(),
      waitMs: fc.integer({ min: 0, max: 900 }),
      earlierMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2_000 })),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        let state = noFailures;
        let now = 1_000_000;
        const inFlight: Array<{ at: number; right: boolean }> = [];
        let failedBeforeLock = 0;
        for (const { reserve, right, busy, waitMs, earlierMs } of steps) {
          now += waitMs;
          if (reserve || inFlight.length === 0) {
            // A reservation may carry an earlier time than the last one recorded (another process's clock).
            const at = now - earlierMs;
            const { decision, next } = reserveAttempt(state, at, policy);
            if (decision.kind === "proceed") {
              state = next;
              inFlight.push({ at, right });
            } else if (decision.kind === "locked") {
              assert.notEqual(state.lockedUntil, null, "refused only under a lock");
            }
          } else if (busy) {
            const withdrawn = inFlight.shift() as { at: number; right: boolean };
            state = withdrawAttempt(state, withdrawn.at);
          } else {
            const settled = inFlight.shift() as { at: number; right: boolean };
            if (!settled.right && state.lockedUntil === null) failedBeforeLock += 1;
            state = settleAttempt(state, settled.at, settled.right, policy);
            if (settled.right) failedBeforeLock = 0;
          }
          assert.ok(inFlight.length + state.failures.length <= policy.maxFailures || state.lockedUntil !== null);
          assert.ok(failedBeforeLock <= policy.maxFailures);
        }
      }),
      { seed: 20261121, numRuns: 300 },
    );
  });
});

describe("an attempt reserved at a time earlier than recorded failures (it waited, or another process's clock runs ahead)", () => {
  it("keeps those failures: it never dates them out of the window", () => {
    const state: LockoutState = { failures: [2_000, 2_000, 2_000, 2_000], pending: [], lockedUntil: null };
    const { decision, next } = reserveAttempt(state, 1_000, policy);
    assert.equal(decision.kind, "proceed");
    assert.deepEqual(next.failures, [2_000, 2_000, 2_000, 2_000]);
    assert.equal(reserveAttempt(next, 1_500, policy).decision.kind, "wait");
  });

  it("for any state and time, a reservation keeps every failure inside the window, and the failures, the attempts in flight and it never pass the limit", () => {
    const times = fc.array(fc.integer({ min: 0, max: 20 * minute }), { maxLength: 6 });
    fc.assert(
      fc.property(times, times, fc.integer({ min: 0, max: 20 * minute }), (failures, pending, now) => {
        const state: LockoutState = {
          failures: [...failures].sort((a, b) => a - b).slice(-5),
          pending,
          lockedUntil: null,
        };
        const { decision, next } = reserveAttempt(state, now, policy);
        const inWindow = state.failures.filter((at) => at > now - policy.windowMs);
        if (decision.kind !== "proceed") return;
        for (const at of inWindow) assert.ok(next.failures.includes(at), `failure at ${at} kept at ${now}`);
        assert.ok(next.failures.length + (next.pending ?? []).length <= policy.maxFailures);
      }),
      { seed: 20261121, numRuns: 1000 },
    );
  });
});

describe("withdrawing an attempt whose secret was never checked (the service was too busy)", () => {
  it("leaves the state as if the attempt had not been made", () => {
    let state = noFailures;
    for (let at = 1; at <= 4; at += 1)
      state = settleAttempt(reserveAttempt(state, at * 1000, policy).next, at * 1000, false, policy);
    const fifth = reserveAttempt(state, 5000, policy).next;
    assert.deepEqual(withdrawAttempt(fifth, 5000), state);
    assert.deepEqual(withdrawAttempt(reserveAttempt(noFailures, 7, policy).next, 7), noFailures);
  });

  it("keeps a lock that earlier failures set, and a state without that attempt as it is", () => {
    const locked = { failures: [1, 2, 3, 4, 5], pending: [], lockedUntil: 600_005 };
    assert.deepEqual(withdrawAttempt(locked, 9), locked);
  });
});

describe("when a lockout record stops mattering, so the store may delete it (DEC-SES-01, DEC-AUT-01)", () => {
  it("a record without failures never matters; one with failures matters for a window after the newest; a locked one until its lock ends", () => {
    assert.equal(lockoutRelevantUntil(noFailures, policy), 0);
    assert.equal(
      lockoutRelevantUntil({ failures: [1_000, 2_000], pending: [], lockedUntil: null }, policy),
      2_000 + 10 * minute,
    );
    assert.equal(
      lockoutRelevantUntil({ failures: [1, 2, 3, 4, 5], pending: [], lockedUntil: 5 + 10 * minute }, policy),
      5 + 10 * minute,
    );
    // An attempt in flight matters as a failure would: it may become one.
    assert.equal(
      lockoutRelevantUntil({ failures: [1_000], pending: [3_000], lockedUntil: null }, policy),
      3_000 + 10 * minute,
    );
  });

  /** Any state the service can store: attempts right and wrong, withdrawn because the service was busy, or left in flight by a process that stopped. */
  const storedStates = fc
    .array(
      fc.record({
        waitMs: fc.oneof(
          fc.constant(0),
          fc.integer({ min: 0, max: 4 * minute }),
          fc.integer({ min: 9 * minute, max: 11 * minute }),
        ),
        outcome: fc.oneof(
          { arbitrary: fc.constant("wrong"), weight: 6 },
          fc.constant("right"),
          fc.constant("busy"),
          fc.constant("stopped"),
        ),
      }),
      { maxLength: 30 },
    )
    .map((steps) => {
      let state = noFailures;
      let now = 1_000_000;
      for (const { waitMs, outcome } of steps) {
        now += waitMs;
        const { decision, next } = reserveAttempt(state, now, policy);
        if (decision.kind !== "proceed") continue;
        state =
          outcome === "busy"
            ? withdrawAttempt(next, now)
            : outcome === "stopped"
              ? next
              : settleAttempt(next, now, outcome === "right", policy);
      }
      return state;
    });

  it("from that time on, every attempt is answered and counted as if there were no record (deleting it changes nothing)", () => {
    fc.assert(
      fc.property(
        storedStates,
        fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 30 * minute })),
        (state, laterMs) => {
          const at = lockoutRelevantUntil(state, policy) + laterMs;
          assert.deepEqual(reserveAttempt(state, at, policy), reserveAttempt(noFailures, at, policy));
        },
      ),
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

describe("unlocking a name (DEC-SES-01)", () => {
  it("forgets the failures and the lock, and keeps the attempts in flight, which still settle", () => {
    const locked = { failures: [1, 2, 3, 4, 5], pending: [6], lockedUntil: 600_005 };
    assert.deepEqual(unlockAttempts(locked), { failures: [], pending: [6], lockedUntil: null });
    assert.deepEqual(unlockAttempts({ failures: [1], lockedUntil: null } as never), {
      failures: [],
      pending: [],
      lockedUntil: null,
    });
  });
});
