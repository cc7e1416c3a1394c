import type { IdSource } from "../ports/ids.port.ts";
import type { LockoutKind } from "../ports/sessions.store.ts";

/**
 * DEC-SES-01, DEC-AUT-01, SES-09: login lockout. `maxFailures` failed attempts for one name within the
 * window lock it until `lockMs` after the failure that reached the limit; while locked every password
 * attempt is refused (even with the right secret) and is not counted. A success resets the count.
 *
 * An API key lockout (`checkWhileLocked`) checks the key while locked: a wrong one is refused as locked and
 * not counted, the right one passes and leaves the lock as it is (DEC-AUT-01: keys are high-entropy, the lock
 * slows guessing and must not let anyone who knows a name shut its owner out). A key checked while locked
 * reserves nothing of the name's: were it to, a flood of wrong keys would hold every place and turn the
 * owner's right key away. The service slows it per client instead (a check a second for one name and one
 * client), so a guesser is slowed and the owner, elsewhere, is not.
 *
 * An attempt is reserved before its secret is checked (`pending`), so that parallel attempts cannot check
 * more secrets than the limit allows: while the failures and the attempts in flight together reach the
 * limit, the next attempt waits for one of them to settle. A right secret is so never refused for the
 * attempts made beside it, only held back until they are known; the lock comes from failures alone.
 */
export interface LockoutPolicy {
  readonly maxFailures: number;
  readonly windowMs: number;
  readonly lockMs: number;
  /** DEC-AUT-01: whether secrets are still checked while the name is locked (API keys; never passwords). */
  readonly checkWhileLocked: boolean;
}

export interface LockoutState {
  /** Times of the failed attempts still inside the window, oldest first (at most maxFailures). */
  readonly failures: readonly number[];
  /**
   * Times of the attempts whose secret is being checked. Absent in records written before attempts in
   * flight were kept apart from failures (read as none).
   */
  readonly pending?: readonly number[];
  readonly lockedUntil: number | null;
}

export const noFailures: LockoutState = { failures: [], pending: [], lockedUntil: null };

/**
 * How long an attempt may stay in flight: one still pending after this (its process stopped during the
 * check) is counted as a failure at its own time.
 */
export const pendingAttemptMs = 60_000;

export type AttemptDecision =
  | { readonly kind: "locked"; readonly until: number }
  | { readonly kind: "proceed" }
  /**
   * DEC-AUT-01: locked, but the secret is checked (nothing reserved, nothing to settle): a right one passes, a
   * wrong one is answered as locked, never counted.
   */
  | { readonly kind: "check-locked"; readonly until: number }
  /** The failures and the attempts in flight reach the limit: try again once one of those settles. */
  | { readonly kind: "wait" };

/** DEC-SES-01 (passwords), DEC-AUT-01 (API keys: the same thresholds, the right key passes a lock). */
export function lockoutPolicyFromLimits(
  limits: { readonly lockoutAttempts: number; readonly lockoutMinutes: number },
  kind: LockoutKind,
): LockoutPolicy {
  const minutes = limits.lockoutMinutes * 60_000;
  return {
    maxFailures: limits.lockoutAttempts,
    windowMs: minutes,
    lockMs: minutes,
    checkWhileLocked: kind === "api-key",
  };
}

function byTime(a: number, b: number): number {
  return a - b;
}

/** `times` without one occurrence of `at`, or null when `at` is not among them. */
function withoutOne(times: readonly number[], at: number): number[] | null {
  const index = times.indexOf(at);
  return index < 0 ? null : [...times.slice(0, index), ...times.slice(index + 1)];
}

/** DEC-SES-01, SES-09: whether an attempt at `now` may check its secret, and the state with it reserved (in flight). */
export function reserveAttempt(
  state: LockoutState,
  now: number,
  policy: LockoutPolicy,
): { decision: AttemptDecision; next: LockoutState } {
  const pending = state.pending ?? [];
  const live = pending.filter((at) => now - at < pendingAttemptMs);
  if (state.lockedUntil !== null && now < state.lockedUntil)
    return lockedAttempt({ ...state, pending: live }, state.lockedUntil, policy);
  const stopped = pending.filter((at) => now - at >= pendingAttemptMs);
  const lockOver = state.lockedUntil !== null;
  // Failures later than `now` stay: another process's clock may run a little ahead.
  const failures = [...(lockOver ? [] : state.failures), ...stopped]
    .filter((at) => at > now - policy.windowMs)
    .sort(byTime)
    .slice(-policy.maxFailures);
  if (failures.length >= policy.maxFailures) {
    // Attempts whose process stopped reached the limit: the lock their failures set.
    const until = (failures[failures.length - 1] as number) + policy.lockMs;
    if (now < until) return lockedAttempt({ failures, pending: live, lockedUntil: until }, until, policy);
  }
  if (failures.length + live.length >= policy.maxFailures) return { decision: { kind: "wait" }, next: state };
  return { decision: { kind: "proceed" }, next: { failures, pending: [...live, now], lockedUntil: null } };
}

/**
 * An attempt at `now` while `locked` (its pending attempts those still live) holds the name until `until`:
 * refused, or for an API key (DEC-AUT-01) checked, with the state left as it is.
 */
function lockedAttempt(
  locked: LockoutState,
  until: number,
  policy: LockoutPolicy,
): { decision: AttemptDecision; next: LockoutState } {
  if (!policy.checkWhileLocked) return { decision: { kind: "locked", until }, next: locked };
  return { decision: { kind: "check-locked", until }, next: locked };
}

/**
 * DEC-SES-01, SES-09: the state once the attempt reserved at `at` has had its secret checked: a success
 * clears the failures and any lock; a failure is counted at `at`, and locks the name when it reaches the
 * limit (until `lockMs` after the newest failure counted). An attempt no longer in flight (counted already as
 * stopped) is not counted twice.
 */
export function settleAttempt(
  state: LockoutState,
  at: number,
  succeeded: boolean,
  policy: LockoutPolicy,
): LockoutState {
  const remaining = withoutOne(state.pending ?? [], at);
  const pending = remaining ?? [...(state.pending ?? [])];
  if (succeeded) return { failures: [], pending, lockedUntil: null };
  if (remaining === null) return state;
  const failures = [...state.failures, at].sort(byTime).slice(-policy.maxFailures);
  const reached =
    state.lockedUntil === null && failures.filter((time) => time > at - policy.windowMs).length >= policy.maxFailures;
  return {
    failures,
    pending,
    lockedUntil: reached ? (failures[failures.length - 1] as number) + policy.lockMs : state.lockedUntil,
  };
}

/**
 * DEC-SES-01: the state once an operator unlocks the name (or resets its password): no failures and no lock,
 * the attempts in flight kept, so that each still settles its own.
 */
export function unlockAttempts(state: LockoutState): LockoutState {
  return { failures: [], pending: [...(state.pending ?? [])], lockedUntil: null };
}

/**
 * DEC-SES-01: the state once a reserved attempt is withdrawn, its secret never checked (the service was too
 * busy to check it): as if it had not been made.
 */
export function withdrawAttempt(state: LockoutState, at: number): LockoutState {
  const pending = withoutOne(state.pending ?? [], at);
  return pending === null ? state : { ...state, pending };
}

/**
 * DEC-SES-01, DEC-AUT-01: the time from which a stored lockout state no longer matters, so that its record
 * may be deleted (anyone can make records, one per name tried): the end of its lock, or else the time its
 * newest failure leaves the window, or later while an attempt is in flight (it may become a failure); 0 for
 * a state without failures or attempts in flight, which is the same as no record.
 * A lock's end is the end even for the failures before it: once a lock is over, the next attempt starts the
 * count again (reserveAttempt).
 */
export function lockoutRelevantUntil(state: LockoutState, policy: LockoutPolicy): number {
  const pending = state.pending ?? [];
  // An attempt in flight matters as long as the failure it may become would.
  const fromPending = pending.length === 0 ? 0 : Math.max(...pending) + Math.max(policy.windowMs, pendingAttemptMs);
  if (state.lockedUntil !== null) return Math.max(state.lockedUntil, fromPending);
  if (state.failures.length === 0) return fromPending;
  return Math.max(Math.max(...state.failures) + policy.windowMs, fromPending);
}

/**
 * The version of a new lockout record (LockoutStore.compareAndSet): 48 random bits, so that a record made
 * after one was deleted does not take the version a writer may still hold of the deleted one.
 */
export function newLockoutVersion(ids: IdSource): number {
  return Number.parseInt(ids.randomHex(6), 16) + 1;
}
