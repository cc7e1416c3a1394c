/**
 * Tools for testing against svc-hub (issue 33): faults that make chosen requests fail on purpose, and the
 * journal of the requests the interface routes answered, whole, with matchers to find them (issue 43). The
 * faults match on headers and a body's JSON path with the journal's JSON paths (request-matcher.rules.ts).
 */

export {
  type FaultMalformation,
  type FaultMethod,
  type FaultSpec,
  faultTrickleChunkBytes,
  maxFaultDelayMs,
  maxTrickleBytesPerSecond,
  type PathMatcher,
  validateFaultInput,
} from "./fault-plan.rules.ts";
export { type Fault, FaultPlan, type FaultRequestParts } from "./fault-plan.ts";
export {
  type AnsweredRequest,
  type CapturedBody,
  defaultRequestJournalBytes,
  defaultRequestJournalLimit,
  type JournaledRequestText,
  maxRequestJournalLimit,
  RequestJournal,
  type RequestJournalEntry,
  type RequestJournalFilter,
  requestJournalAccountChars,
  requestJournalBodyBytes,
  requestJournalQueryChars,
  requestNearMissCount,
} from "./request-journal.ts";
export { type RequestMatcher, validateRequestMatcher } from "./request-matcher.rules.ts";
