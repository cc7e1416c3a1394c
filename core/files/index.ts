/**
 * File imports (FIL-*, DEC-FIL-*): file names and queries, the states of an import, the definitions a
 * file's rows are read with, what the status API shows of an import, and the import itself with its worker.
 */

export { compileDatePattern, type DatePattern } from "./date-pattern.rules.ts";
export {
  currentState,
  type FileImportEffect,
  type FileImportEvent,
  type FileImportState,
  type FileState,
  mayBeReceivedAgain,
  type RowCounts,
  type StatusEntry,
} from "./file-import.machine.ts";
export {
  FileImportService,
  type FileImportServiceDeps,
  importLeaseMs,
  leaseSweepMs,
  type ReceiveRefusal,
} from "./file-import.use-cases.ts";
export { fileImportWorker } from "./file-import.worker.ts";
export { csvExtension, prefixOfFileName } from "./file-name.rules.ts";
export {
  type FileQuery,
  type FileQueryParameters,
  fileMatchesPrefix,
  prefixGroupsOfQuery,
} from "./file-query.rules.ts";
export { type DateView, type FileStatusView, fileStatusView, type StatusEntryView } from "./file-record.rules.ts";
export { FileStatusService } from "./file-status.use-cases.ts";
