/**
 * File imports (FIL-*, DEC-FIL-*): file names and queries, the states of an import, the definitions a
 * file's rows are read with, what the status API shows of an import, and the import itself with its worker.
 */

export { compileDatePattern, type DatePattern, parseDateWithPattern } from "./date-pattern.rules.ts";
export {
  currentState,
  type FileImportEffect,
  type FileImportEvent,
  type FileImportState,
  type FileState,
  fileStates,
  mayBeReceivedAgain,
  noRows,
  type RowCounts,
  type StatusEntry,
  startImport,
  transitionFileImport,
} from "./file-import.machine.ts";
export {
  FileImportService,
  type FileImportServiceDeps,
  importLeaseMs,
  leaseSweepMs,
  type ReceiveRefusal,
} from "./file-import.use-cases.ts";
export { fileImportWorker } from "./file-import.worker.ts";
export {
  checkImportFileName,
  checkStatusFileName,
  csvExtension,
  maxFileNameLength,
  maxFilePrefixLength,
  prefixOfFileName,
} from "./file-name.rules.ts";
export {
  type FileQuery,
  type FileQueryParameters,
  fileMatchesPrefix,
  prefixGroupsOfQuery,
  validateFileQuery,
} from "./file-query.rules.ts";
export {
  type DateView,
  type FileStatusView,
  fileStatusView,
  objectIdOf,
  type StatusEntryView,
} from "./file-record.rules.ts";
export {
  checkEventDocument,
  findDefinition,
  importRow,
  planRows,
  type RowContext,
  type RowOutcome,
  type RowPlan,
} from "./file-row.rules.ts";
export { FileStatusService } from "./file-status.use-cases.ts";
