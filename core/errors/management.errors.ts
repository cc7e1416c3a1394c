import { fillTemplate, type TemplateArgs } from "./template.ts";

/** One entry of the management API error catalogue (interface.md, Errors; decisions.md, DEC-GEN-*). */
export interface ManagementErrorEntry {
  readonly status: number;
  readonly returnCode: number;
  readonly message: string;
  /** The clause or decision IDs that fix this status, code and wording. */
  readonly clauses: readonly string[];
}

/**
 * Every management (v1, v2) error the service answers, with its HTTP status, returnCode and exact wording.
 * Placeholders in `{braces}` are filled with the real values (DEC-GEN-01).
 */
export const managementErrors = {
  invalidHost: {
    status: 400,
    returnCode: 1400,
    message: "Invalid request submission. Invalid Host header.",
    clauses: ["DEC-GEN-01"],
  },
  invalidRequest: {
    status: 400,
    returnCode: 1400,
    message: "Invalid request submission. Please check supplied parameters or request body.",
    clauses: [
      "DLE-ERR-01",
      "DLE-ERR-02",
      "DLE-ERR-03",
      "DLE-ERR-05",
      "DLE-ERR-06",
      "DLE-ERR-07",
      "DLE-ERR-08",
      "DEC-DLE-02",
      "DEC-DLE-03",
      "DEC-DLE-04",
      "DEC-PRV-02",
    ],
  },
  dataLayerListTooLarge: {
    status: 400,
    returnCode: 1400,
    message: "Invalid request submission. Data layer list size exceeds maximum permissible ({max}).",
    clauses: ["DLE-12", "LIM-01", "DEC-DLE-09"],
  },
  invalidParameter: {
    status: 400,
    returnCode: 1400,
    message: "Invalid request submission. Invalid {parameter}: {problem}.",
    clauses: ["FIL-ERR-01", "FIL-ERR-02", "FIL-ERR-03", "FIL-ERR-04", "FIL-ERR-05", "DEC-FIL-06"],
  },
  authenticationFailed: {
    status: 401,
    returnCode: 1401,
    message: "Authentication Failed",
    clauses: ["SES-08", "SES-07", "DEC-GEN-02", "AUT-01", "AUT-02", "FIL-ERR-07"],
  },
  tooManyLoginAttempts: {
    status: 401,
    returnCode: 1402,
    message: "Too many unsuccessful login attempts. Please try again in 10 minutes",
    clauses: ["SES-09", "DEC-SES-01", "DEC-AUT-01"],
  },
  loginPermissionDenied: {
    status: 401,
    returnCode: 1469,
    message: "Although the user is authenticated, the request is denied due of lack of proper permissions",
    clauses: ["SES-10", "DEC-GEN-03", "DEC-SES-04"],
  },
  permissionDenied: {
    status: 401,
    returnCode: 1469,
    message: "although the user is authenticated, the request is denied because of a lack of proper permissions",
    clauses: ["DLE-ERR-04", "DEC-GEN-03", "AUT-03"],
  },
  dataLayerNotFound: {
    status: 404,
    returnCode: 1404,
    message: "Could not locate data layer for supplied params ({account}/{profile}/{dl_id}).",
    clauses: ["DLE-10", "DEC-DLE-01"],
  },
  statusUnavailable: {
    status: 404,
    returnCode: 1404,
    message: "Status unavailable. Please refer to documentation for request status retention period.",
    clauses: ["DLE-08", "DLE-09", "DEC-DLE-08"],
  },
  resourceAlreadyExists: {
    status: 405,
    returnCode: 1464,
    message: "Resource already exists. Updates are not permitted via this type of request.",
    clauses: ["DLE-11", "DEC-DLE-01"],
  },
  accountNotFound: {
    status: 404,
    returnCode: 1240,
    message: "Account was not found",
    clauses: ["REV-12", "PRV-11", "DEC-GEN-04"],
  },
  profileNotFound: {
    status: 404,
    returnCode: 1250,
    message: "Profile was not found",
    clauses: ["REV-12", "PRV-11", "DEC-GEN-04"],
  },
  revisionDetailsNotFound: {
    status: 404,
    returnCode: 1260,
    message: "Revision details do not exist",
    clauses: ["REV-10", "DEC-REV-03"],
  },
  revisionNotLatest: {
    status: 400,
    returnCode: 1270,
    message: "The revision bundle requested is not the latest",
    clauses: ["REV-11", "DEC-REV-03"],
  },
  fileNotFound: {
    status: 404,
    returnCode: 1404,
    message: "Supplied file name not found",
    clauses: ["FIL-ERR-06", "DEC-FIL-06"],
  },
  visitorNotFound: {
    status: 404,
    returnCode: 1404,
    message: "Visitor not found",
    clauses: ["DEC-PRV-01"],
  },
  transactionNotFound: {
    status: 404,
    returnCode: 1404,
    message: "Transaction not found",
    clauses: ["DEC-PRV-03"],
  },
  resourceNotFound: {
    status: 404,
    returnCode: 1404,
    message: "Resource not found",
    clauses: ["DEC-GEN-01"],
  },
  itemNotFound: {
    status: 404,
    returnCode: 1404,
    message: "{what} does not exist",
    clauses: ["DEC-OPS-01"],
  },
  methodNotAllowed: {
    status: 405,
    returnCode: 1405,
    message: "Method not allowed",
    clauses: ["DEC-GEN-01"],
  },
  internalError: {
    status: 500,
    returnCode: 1500,
    message: "Internal error",
    clauses: ["DEC-GEN-07"],
  },
  waitTimedOut: {
    status: 504,
    returnCode: 1504,
    message: "Background work did not finish within {timeout_ms} ms",
    clauses: ["DEC-OPS-04"],
  },
  serviceBusy: {
    status: 503,
    returnCode: 1503,
    message: "Service busy. Please retry later.",
    clauses: ["DEC-GEN-07"],
  },
  storageUnavailable: {
    status: 503,
    returnCode: 1503,
    message: "Storage unavailable. Please retry later.",
    clauses: ["DEC-GEN-07"],
  },
} as const satisfies Record<string, ManagementErrorEntry>;

export type ManagementErrorCode = keyof typeof managementErrors;

/** A management error ready to answer: `{returnCode, message}` with its status (DEC-GEN-01). */
export interface ManagementError {
  readonly kind: "management";
  readonly code: ManagementErrorCode;
  readonly status: number;
  readonly returnCode: number;
  readonly message: string;
  /** Extra fields some answers carry beside returnCode and message (DEC-PRV-01: transaction_id). */
  readonly extra?: Readonly<Record<string, string>>;
  /**
   * What exactly was refused, where the contract's message is the same for every refusal (1400's "Please
   * check supplied parameters or request body."). Never in the body, whose wording the contract fixes: the
   * HTTP adapter sends it in a header of its own and logs it. Holds no value a visitor could be known by.
   */
  readonly reason?: string;
}

/** `error` with the reason it was refused, for the client and the log (never in the body). */
export function withReason(error: ManagementError, reason: string): ManagementError {
  return { ...error, reason };
}

/** The one 400 1400 of the data layer and privacy APIs (and of an Elysia validation), saying which refusal it was. */
export function invalidRequestBecause(reason: string): ManagementError {
  return withReason(managementError("invalidRequest"), reason);
}

/** A value of the request, quoted for a reason: JSON-quoted and cut at 64 characters (`...` says so). */
export function quoted(value: string): string {
  return value.length > 64 ? `${JSON.stringify(value.slice(0, 64)).slice(0, -1)}..."` : JSON.stringify(value);
}

type ManagementArgs<C extends ManagementErrorCode> = TemplateArgs<(typeof managementErrors)[C]["message"]>;

/** Builds the catalogue error `code`, filling its placeholders with `values`. DEC-GEN-01 */
export function managementError<C extends ManagementErrorCode>(code: C, ...args: ManagementArgs<C>): ManagementError {
  const entry: ManagementErrorEntry = managementErrors[code];
  const values = (args[0] ?? {}) as Readonly<Record<string, string | number>>;
  return {
    kind: "management",
    code,
    status: entry.status,
    returnCode: entry.returnCode,
    message: fillTemplate(entry.message, values),
  };
}

/** The JSON body of a management error (DEC-GEN-01). */
export function managementErrorBody(error: ManagementError): Record<string, string | number> {
  return { returnCode: error.returnCode, message: error.message, ...error.extra };
}
