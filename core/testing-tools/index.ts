/**
 * Tools for testing against svc-hub (issue 33): faults that make chosen requests fail on purpose, and the
 * journal of the requests the interface routes answered.
 */

export {
  type FaultMethod,
  type FaultSpec,
  maxFaultDelayMs,
  type PathMatcher,
  validateFaultInput,
} from "./fault-plan.rules.ts";
export { type Fault, FaultPlan } from "./fault-plan.ts";
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
