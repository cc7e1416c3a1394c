/**
 * Tools for testing against svc-hub (issue 33): faults that make chosen requests fail on purpose, and the
 * journal of the requests the interface routes answered. Matching a request on its headers and a body JSON
 * path (issue 43) is request-matcher.rules.ts, which the faults and the journal share.
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
  defaultRequestJournalBytes,
  defaultRequestJournalLimit,
  type JournaledRequestText,
  maxRequestJournalLimit,
  RequestJournal,
  type RequestJournalEntry,
  type RequestJournalFilter,
  requestJournalAccountChars,
  requestJournalQueryChars,
} from "./request-journal.ts";
