/**
 * Tools for testing against svc-hub (issue 33): faults that make chosen requests fail on purpose, and the
 * journal of the requests the interface routes answered.
 */

export {
  accountOfRequest,
  compilePathPattern,
  type FaultMethod,
  type FaultSpec,
  faultMethods,
  isAdminPath,
  maxFaultDelayMs,
  validateFaultInput,
} from "./fault-plan.rules.ts";
export { type Fault, FaultPlan } from "./fault-plan.ts";
export {
  defaultRequestJournalLimit,
  maxRequestJournalLimit,
  RequestJournal,
  type RequestJournalEntry,
  type RequestJournalFilter,
  redactedValue,
  redactQuery,
  requestJournalCapacity,
} from "./request-journal.ts";
