/**
 * The tracking plan (event validation): the verdict of a profile's JSON Schemas on each event, given as it is
 * stored. The schemas are compiled by the host (ports: TrackingPlans); the rules of the verdict live here.
 */

export { withJudgedEvents } from "./judging-event-store.ts";
export { judgeEvent } from "./verdict.rules.ts";
