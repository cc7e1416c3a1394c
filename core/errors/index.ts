/**
 * The error catalogue: every returnCode, HTTP status and message of the interface, and the file import
 * failure messages, each entry with its clause. Other areas and the adapters take their errors from here.
 */

export { type CollectError, type CollectErrorCode, type CollectErrorEntry, collectError } from "./collect.errors.ts";
export { describeError, describeErrorMessage, stackFramesOf } from "./describe-error.ts";
export {
  classifyFileFailure,
  type FileFailureCode,
  type FileFailureEntry,
  fileFailureMessage,
} from "./file-failure.messages.ts";
export { type FileImportError, type FileImportErrorCode, fileImportError } from "./file-import.errors.ts";
export {
  invalidRequestBecause,
  type ManagementError,
  type ManagementErrorCode,
  type ManagementErrorEntry,
  managementError,
  managementErrorBody,
  managementErrors,
  quoted,
} from "./management.errors.ts";
export { type MomentsError, type MomentsErrorCode, type MomentsErrorEntry, momentsError } from "./moments.errors.ts";
export { ServiceBusyError } from "./service-busy.ts";
export { StorageUnavailableError } from "./storage-unavailable.ts";
