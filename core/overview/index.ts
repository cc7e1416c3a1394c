/**
 * The console's overview of a profile (issue 32): its data layers, revisions, file imports and privacy
 * transactions as the admin API lists them, and a revision's bundle.
 */

export {
  type DataLayerChangeOverview,
  type DataLayerOverview,
  defaultOverviewLimit,
  type FileOverview,
  maxOverviewLimit,
  type PrivacyTransactionOverview,
  type RevisionOverview,
  type ServedOverview,
  servedPreviewBytes,
} from "./overview.rules.ts";
export { OverviewService, type OverviewServiceDeps } from "./overview.use-cases.ts";
