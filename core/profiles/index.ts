/**
 * Visitor profiles (DEC-PRO-*, VID-*): applying an event to a profile, visits and audiences, stitching the
 * visitor IDs that name one person into one group, the worker that folds stored events into profiles, and
 * the retention of the events it has folded.
 */

export { eventRetentionWorker } from "./event-retention.worker.ts";
export {
  type AttributeValue,
  numberOf,
  type ProfileEvent,
  type ProfilePolicy,
  profilePolicyFromLimits,
  type VisitorProfile,
} from "./profile.rules.ts";
export { profilesCursorKey, profileWorker } from "./profile-folding.worker.ts";
export { ProfileStoreOfSingleReads } from "./profile-store-reads.ts";
export { ProfilesService, syncEngineStates } from "./profiles.use-cases.ts";
