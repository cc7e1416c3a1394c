/**
 * Visitor privacy (PRV-*, DEC-PRV-*): reading a visitor's record, the delete transaction and its retries,
 * and erasing a deleted value from events and profiles.
 */

export {
  type EventErasure,
  eraseValueFromEvent,
  eraseValueFromProfile,
  erasureNeedle,
  holdsErasedValue,
  isErasedValue,
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
export { type VisitorRecord, type VisitorRecordAnswer, visitorRecordAnswer } from "./visitor-record.rules.ts";
