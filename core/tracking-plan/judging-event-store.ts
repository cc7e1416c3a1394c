import type { CollectedEvent, EventStore } from "../ports/events.store.ts";
import type { Stores } from "../ports/stores.ts";
import type { TrackingPlans } from "../ports/tracking-plans.port.ts";
import { judgeEvent } from "./verdict.rules.ts";

/**
 * The event store with every event judged by the tracking plan as it is appended, whatever appends it
 * (collection, file imports): the verdict is stored with the event, in the same commit. The host puts it where
 * the events are committed (svc-hub: the background thread of a libSQL service), so a collection request's
 * answer waits for no validation on the HTTP thread, and answers the same whatever the verdict.
 */
export function judgingEventStore(store: EventStore, plans: TrackingPlans): EventStore {
  const judged = (events: readonly CollectedEvent[]) =>
    events.map((event): CollectedEvent => ({ ...event, ...judgeEvent(plans, event) }));
  return {
    append: (events, options) => store.append(judged(events), options),
    query: (query) => store.query(query),
    indexVisitors: (upToSeq) => store.indexVisitors(upToSeq),
    countVerdicts: (query) => store.countVerdicts(query),
    deleteVisitors: (account, profile, visitorIds) => store.deleteVisitors(account, profile, visitorIds),
    eraseValue: (account, profile, erased) => store.eraseValue(account, profile, erased),
    deleteReceivedBefore: (before, options) => store.deleteReceivedBefore(before, options),
  };
}

/** The stores with their events judged as they are appended (judgingEventStore); as they are without plans. */
export function withJudgedEvents(stores: Stores, plans: TrackingPlans | null): Stores {
  return plans === null ? stores : { ...stores, events: judgingEventStore(stores.events, plans) };
}
