/**
 * Revisions (REV-*, DEC-REV-*): publishing a revision, its id, its manifest and the members of its bundle;
 * the use cases of the revisions API and of the configured revisions.
 */

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
export {
  type ConfiguredPublication,
  type PublishedFile,
  type PublishRefusal,
  type PublishRequest,
  RevisionsService,
  type RevisionsServiceDeps,
} from "./revisions.use-cases.ts";
