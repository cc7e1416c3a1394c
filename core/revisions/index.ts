/**
 * Revisions (REV-*, DEC-REV-*): publishing a revision, its id, its manifest and the members of its bundle;
 * the use cases of the revisions API and of the configured revisions.
 */

export { type BundleMemberKind, type BundleMemberName, defaultRevisionFilePrefix } from "./bundle-members.rules.ts";
export {
  type ManifestInput,
  manifestOfDetails,
  type Publication,
  type PublicationField,
  type PublicationInput,
  type PublicationLimits,
  type PublicationProblem,
  type RevisionDetails,
  serializeManifest,
  validatePublication,
} from "./revision.rules.ts";
export { newestFirst } from "./revision-id.rules.ts";
export {
  type ConfiguredPublication,
  type PublishedFile,
  type PublishRefusal,
  type PublishRequest,
  RevisionsService,
  type RevisionsServiceDeps,
} from "./revisions.use-cases.ts";
