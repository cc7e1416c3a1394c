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
  isErasedValue,
  journalEntryHoldsErasedValue,
  journaledRequestHoldsErasedValue,
  type ProfileErasure,
} from "./erasure.rules.ts";
export { type DeletedGroup, refuseQueryParameters, type VisitorLookup } from "./privacy.rules.ts";
export {
  type ErasureCounts,
  eraseVisitor,
  type PrivacyRequest,
  PrivacyService,
  type PrivacyServiceDeps,
  privacyAuditRecord,
  type VisitorErasureDeps,
} from "./privacy.use-cases.ts";
export { type VisitorDeletionWorkerDeps, visitorDeletionWorker } from "./visitor-deletion.worker.ts";
