/**
 * The service as a whole, not one area of its interface: svc-hub's own admin reset (POST /admin/reset), which
 * erases every area's store, the import files and what the process keeps in memory, then applies the
 * configuration again.
 */

export { ClusterSync, type ClusterSyncDeps } from "./cluster-sync.use-cases.ts";
export { type ConfigurationApplied, type ResetReport, ResetService, type ResetServiceDeps } from "./reset.use-cases.ts";
