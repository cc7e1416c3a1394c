import type { Violation } from "./events.store.ts";

/**
 * One compiled JSON Schema of a tracking plan: the violations of an event's parameters, none when they fit.
 * The host compiles the configuration's schemas with a validator of its choosing (svc-hub: ajv, in
 * adapters/config/tracking-plans.ts); the core only asks them.
 */
export type EventSchemaCheck = (params: Readonly<Record<string, unknown>>) => readonly Violation[];

/** The compiled tracking plan of one profile: a schema per event name, and one for every event. */
export interface ProfilePlanChecks {
  readonly byEvent: ReadonlyMap<string, EventSchemaCheck>;
  readonly allEvents: EventSchemaCheck | null;
}

/** The compiled tracking plans of the configuration, by account and profile. */
export interface TrackingPlans {
  /** The plan of a profile; undefined when it has none. */
  checksOf(account: string, profile: string): ProfilePlanChecks | undefined;
}
