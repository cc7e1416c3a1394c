/**
 * How scenarios wait for background work without depending on the target's speed. A conformance suite runs on
 * other people's busy machines: a scenario that passes only when the target is quick tells them something
 * false about their implementation. So a scenario never sleeps for background work nor races it:
 *
 * - what background work does is asked for again until it shows (`askUntil`), within a generous limit that
 *   only a target that never does the work reaches, and no longer than the condition takes;
 * - what can only be seen before a delay has passed (a deletion still PENDING, DEC-PRV-04) is judged only when
 *   the scenario can tell that the delay had not passed (`judgeInAttempts`): an observation made too late is
 *   no verdict, and the attempt starts again with new data.
 */
import { ScenarioSkip } from "../harness/client.ts";
import type { ScenarioContext } from "../harness/scenario.ts";

/**
 * How long a scenario asks again for background work to show (events applied to a profile) when no wait call
 * (DEC-OPS-04) is at hand: one minute, half the runner's default limit per scenario. A target doing the work
 * is asked again within a quarter of a second of it.
 */
export const backgroundWorkLimitMs = 60_000;

/**
 * Asks (`ask`) until `ready` holds for the answer, every 250 ms, for at most `limitMs`; answers the last answer
 * either way, so that the scenario's assertions fail on what the target answered last. Stops early when the
 * runner abandons the scenario.
 */
export async function askUntil<A>(
  ctx: ScenarioContext,
  ask: () => Promise<A>,
  ready: (answer: A) => boolean,
  limitMs = backgroundWorkLimitMs,
): Promise<A> {
  const deadline = performance.now() + limitMs;
  for (;;) {
    const answer = await ask();
    if (ready(answer) || performance.now() > deadline || ctx.signal.aborted) return answer;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** What one attempt found: a verdict (its assertions ran and passed) with what the scenario goes on with, or none, and why. */
export type AttemptOutcome<T> =
  | { readonly judged: true; readonly value: T }
  | { readonly judged: false; readonly why: string };

export function judged<T>(value: T): AttemptOutcome<T> {
  return { judged: true, value };
}

export function noVerdict(why: string): AttemptOutcome<never> {
  return { judged: false, why };
}

/**
 * Runs `attempt` (with its number, from 1) until one is judged, at most `attempts` times, and answers what that
 * one found. An attempt fails the scenario by throwing as usual; one that could not judge (the background work
 * it wanted to see before its delay had already happened, because the target or the machine was slower than the
 * delay) answers `noVerdict(why)`, and the next attempt starts with new data. When none could judge, the
 * scenario is skipped with the reasons: it tells nothing about the implementation.
 */
export async function judgeInAttempts<T>(
  what: string,
  attempt: (index: number) => Promise<AttemptOutcome<T>>,
  attempts = 5,
): Promise<T> {
  const reasons: string[] = [];
  for (let index = 1; index <= attempts; index += 1) {
    const outcome = await attempt(index);
    if (outcome.judged) return outcome.value;
    reasons.push(`attempt ${index}: ${outcome.why}`);
  }
  throw new ScenarioSkip(`${what} could not be observed in ${attempts} attempts; ${reasons.join("; ")}`);
}
