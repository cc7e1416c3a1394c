/** Revisions (REV-*, DEC-REV-*): publishing a revision, its id, its manifest and the members of its bundle. */

export {
  type BundleMemberKind,
  type BundleMemberName,
  bundleFileName,
  classifyMemberName,
  defaultRevisionFilePrefix,
  manifestFileName,
  mobileFileName,
} from "./bundle-members.rules.ts";
export {
  buildManifest,
  completeDetails,
  decideBundleRequest,
  decideDetailsRequest,
  defaultPublicationLimits,
  type ManifestInput,
  manifestOfDetails,
  type Publication,
  type PublicationField,
  type PublicationInput,
  type PublicationLimits,
  type PublicationProblem,
  publicationError,
  type RevisionDetails,
  serializeManifest,
  validatePublication,
} from "./revision.rules.ts";
export {
  formatTimeCreated,
  newestFirst,
  nextFreeRevisionId,
  parseRevisionId,
  revisionIdOf,
} from "./revision-id.rules.ts";
