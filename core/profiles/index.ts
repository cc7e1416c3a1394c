/**
 * Visitor profiles (DEC-PRO-*, VID-*): applying an event to a profile, visits and audiences, and stitching
 * the visitor IDs that name one person into one group.
 */

export {
  type AttributeValue,
  applyEvent,
  audiencesOf,
  buildProfile,
  isVisitOpen,
  numberOf,
  type ProfileEvent,
  type ProfilePolicy,
  profilePolicyFromLimits,
  type VisitorProfile,
} from "./profile.rules.ts";
export {
  chooseCanonical,
  type GroupSummary,
  identitiesOfEvent,
  isKnownVisitorKey,
  type KnownIdentity,
} from "./stitching.rules.ts";
