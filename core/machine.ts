/**
 * One shape for every state machine of the core: `transition(state, event) -> { next, effects }`. A
 * machine decides and never acts: its effects are data that the caller (a use case, a worker) carries out
 * through the ports, so a machine is pure and can be tested from a table. Machines whose work can fail
 * and be tried again share one retry policy and one backoff.
 */
import type { Result } from "./result.ts";

/** The answer of a state machine: the next state and what must happen, as data for the caller to carry out. */
export interface Transition<State, Effect> {
  readonly next: State;
  readonly effects: readonly Effect[];
}

/** A transition, or why the event does not apply to the state (which then stays as it was). */
export type TransitionResult<State, Effect, Refusal> = Result<Transition<State, Effect>, Refusal>;

/** A state machine: from a state and an event, its transition. */
export type Machine<State, Event, Effect, Refusal, Next = State> = (
  state: State,
  event: Event,
) => TransitionResult<Next, Effect, Refusal>;

/** How often work that fails is tried, and how long to wait between tries. */
export interface RetryPolicy {
  /** Tries in all, the first one included; the work is given up after this many failures. */
  readonly maxAttempts: number;
  /** The wait after the first failure; it doubles after each further one. */
  readonly firstDelayMs: number;
  /** The longest wait between two tries. */
  readonly maxDelayMs: number;
}

/** The wait before the next try once `failures` tries have failed (1 or more): doubling, capped. */
export function backoffDelay(policy: RetryPolicy, failures: number): number {
  return Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** (failures - 1));
}

/** After a failed try: try again at `runAt`, or give up once the policy's tries are spent. */
export type RetryDecision =
  | { readonly retry: true; readonly attempts: number; readonly runAt: number }
  | { readonly retry: false; readonly attempts: number };

/** Decides a try that failed at `at`, after `attempts` earlier failed tries. */
export function decideRetry(policy: RetryPolicy, attempts: number, at: number): RetryDecision {
  const failures = attempts + 1;
  if (failures >= policy.maxAttempts) return { retry: false, attempts: failures };
  return { retry: true, attempts: failures, runAt: at + backoffDelay(policy, failures) };
}

/** When work asked for at `at`, to run after `delayMs`, is due: a negative delay counts as none. */
export function dueAfter(at: number, delayMs: number): number {
  return at + Math.max(0, delayMs);
}
