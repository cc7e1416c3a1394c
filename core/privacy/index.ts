/**
 * Visitor privacy (PRV-*, DEC-PRV-*): reading a visitor's record, the delete transaction and its retries,
 * erasing a deleted value from events and profiles, the privacy API's use cases and the worker that runs
 * each deletion once it is due.
 */

export {
  type EventErasure,
  eraseValueFromEvent,
  eraseValueFromProfile,
  erasureNeedle,
  holdsErasedValue,
  isErasedValue,
  journalEntryHoldsErasedValue,
  journaledRequestHoldsErasedValue,
  type ProfileErasure,
  textHoldsErasedValue,
} from "./erasure.rules.ts";
export {
  deletionRetryPolicy,
  type PrivacyEffect,
  type PrivacyEvent,
  type PrivacyTransition,
  type PrivacyTransitionError,
  privacyTransactionLifecycle,
  type TransactionLifecycle,
  transitionPrivacy,
} from "./privacy.machine.ts";
export {
  type DeletedGroup,
  knownVisitorIdOf,
  readPrettyName,
  readVisitorLookup,
  refuseQueryParameters,
  transactionAnswer,
  type VisitorLookup,
  valueHashInput,
  visitorIdsOfGroup,
} from "./privacy.rules.ts";
export {
  checkNoImportRunning,
  type ErasureCounts,
  eraseVisitor,
  ImportsStillRunning,
  type PrivacyRequest,
  PrivacyService,
  type PrivacyServiceDeps,
  privacyAuditRecord,
  type VisitorErasureDeps,
} from "./privacy.use-cases.ts";
export { importWaitMs, type VisitorDeletionWorkerDeps, visitorDeletionWorker } from "./visitor-deletion.worker.ts";
export { type VisitorRecord, type VisitorRecordAnswer, visitorRecordAnswer } from "./visitor-record.rules.ts";
