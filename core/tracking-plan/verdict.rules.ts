/**
 * The tracking plan's verdict on an event (docs/decisions.md, "The tracking plan"): the schemas that apply are
 * the one for all events of its profile and the one for its name (svc_event); the event is `valid` when its
 * parameters as stored fit both, `invalid` with every violation of either (those of the schema for all events
 * first), and `none` when neither exists. Validation observes: the verdict never refuses an event.
 */
import type { CollectedEvent, Verdict, Violation } from "../ports/events.store.ts";
import type { TrackingPlans } from "../ports/tracking-plans.port.ts";

/** An event's verdict and its violations (empty unless `invalid`). */
export interface EventJudgement {
  readonly verdict: Verdict;
  readonly violations: readonly Violation[];
}

const noSchema: EventJudgement = { verdict: "none", violations: [] };

/** The verdict of the profile's tracking plan on one event. */
export function judgeEvent(
  plans: TrackingPlans,
  event: Pick<CollectedEvent, "account" | "profile" | "event" | "data">,
): EventJudgement {
  const plan = plans.checksOf(event.account, event.profile);
  if (plan === undefined) return noSchema;
  const named = event.event === null ? undefined : plan.byEvent.get(event.event);
  const checks = [plan.allEvents, named].filter((check) => check !== null && check !== undefined);
  if (checks.length === 0) return noSchema;
  const violations = checks.flatMap((check) => check(event.data));
  return violations.length === 0 ? { verdict: "valid", violations: [] } : { verdict: "invalid", violations };
}
