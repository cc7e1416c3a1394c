/**
 * DEC-SES-01, DEC-AUT-01, SES-09: login lockout. `maxFailures` failed attempts for one name within the
 * window lock it until `lockMs` after the failure that reached the limit; while locked every attempt is
 * refused (even with the right secret) and is not counted. A success resets the count.
 *
 * The attempt is counted *before* the secret is checked (a reservation), so that parallel attempts cannot
 * check more secrets than the limit allows; a success then clears the state.
 */
export interface LockoutPolicy {
  readonly maxFailures: number;
  readonly windowMs: number;
  readonly lockMs: number;
}

export interface LockoutState {
  /** Times of the counted attempts still inside the window, oldest first (at most maxFailures). */
  readonly failures: readonly number[];
  readonly lockedUntil: number | null;
}

export const noFailures: LockoutState = { failures: [], lockedUntil: null };

export type AttemptDecision = { readonly kind: "locked"; readonly until: number } | { readonly kind: "proceed" };

export function lockoutPolicyFromLimits(limits: { readonly lockoutAttempts: number; readonly lockoutMinutes: number }): LockoutPolicy {
  const minutes = limits.lockoutMinutes * 60_000;
  return { maxFailures: limits.lockoutAttempts, windowMs: minutes, lockMs: minutes };
}

/** Whether an attempt at `now` may check its secret, and the state with the attempt counted. */
export function reserveAttempt(state: LockoutState, now: number, policy: LockoutPolicy): { decision: AttemptDecision; next: LockoutState } {
  if (state.lockedUntil !== null && now < state.lockedUntil) {
    return { decision: { kind: "locked", until: state.lockedUntil }, next: state };
  }
  const lockOver = state.lockedUntil !== null;
  const recent = lockOver ? [] : state.failures.filter((at) => at > now - policy.windowMs && at <= now);
  const failures = [...recent, now].slice(-policy.maxFailures);
  const lockedUntil = failures.length >= policy.maxFailures ? now + policy.lockMs : null;
  return { decision: { kind: "proceed" }, next: { failures, lockedUntil } };
}

/** The state after the attempt's secret was checked: a success clears everything, a failure stays counted. */
export function settleAttempt(reserved: LockoutState, succeeded: boolean): LockoutState {
  return succeeded ? noFailures : reserved;
}

/**
 * The state once a reserved attempt is withdrawn, its secret never checked (the service was too busy to
 * check it): as if it had not been made, the lock it would have set included. Locks of earlier failures stay.
 */
export function withdrawAttempt(state: LockoutState, at: number, policy: LockoutPolicy): LockoutState {
  const index = state.failures.lastIndexOf(at);
  if (index < 0) return state;
  const failures = [...state.failures.slice(0, index), ...state.failures.slice(index + 1)];
  const lockedByIt = state.lockedUntil === at + policy.lockMs && failures.length < policy.maxFailures;
  return { failures, lockedUntil: lockedByIt ? null : state.lockedUntil };
}

/**
 * DEC-SES-01, DEC-AUT-01: the time from which a stored lockout state no longer matters, so that its record
 * may be deleted (anyone can make records, one per name tried): the end of its lock, or else the time its
 * newest failure leaves the window; 0 for a state without failures, which is the same as no record.
 * A lock's end is the end even for the failures before it: once a lock is over, the next attempt starts the
 * count again (reserveAttempt).
 */
export function lockoutRelevantUntil(state: LockoutState, policy: LockoutPolicy): number {
  if (state.lockedUntil !== null) return state.lockedUntil;
  if (state.failures.length === 0) return 0;
  return Math.max(...state.failures) + policy.windowMs;
}
