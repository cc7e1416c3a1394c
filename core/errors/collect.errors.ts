import { fillTemplate, type TemplateArgs } from "./template.ts";

/** One answer of the collection endpoint that is not a success: a status and the `X-Error` header text. */
export interface CollectErrorEntry {
  readonly status: number;
  readonly xError: string;
  readonly clauses: readonly string[];
}

/**
 * The collection endpoint's refusals. The body is always empty; the reason travels in `X-Error` (COL-04).
 * interface.md gives the wording of the first entry only; the others are this service's (docs/decisions.md).
 */
export const collectErrors = {
  missingAccountOrProfile: {
    status: 400,
    xError: "Missing required svc_account or svc_profile param value",
    clauses: ["COL-03", "COL-04", "DEC-COL-01"],
  },
  unknownAccountOrProfile: {
    status: 400,
    xError: "Unknown svc_account or svc_profile param value",
    clauses: ["COL-05", "DEC-COL-02"],
  },
  restrictedCharacters: {
    status: 400,
    xError: "Restricted characters in svc_account, svc_profile or svc_datasource param value",
    clauses: ["COL-09", "DEC-COL-02"],
  },
  invalidHost: {
    status: 400,
    xError: "Invalid Host header",
    clauses: ["COL-04", "DEC-GEN-01"],
  },
  paramNotString: {
    status: 400,
    xError: "{parameter} param value must be a string",
    clauses: ["COL-03", "DEC-COL-01", "DEC-COL-09"],
  },
  unusableVisitorId: {
    status: 400,
    // 1024 is maxVisitorIdLength (core/visitors/visitor-id.rules.ts), 2048 maxIndexedTextBytes
    // (core/values/storable-text.rules.ts); visitor-id.rules.test.ts checks they agree.
    xError:
      "Unusable {source}: a visitor ID has at most 1024 characters (2048 bytes of UTF-8) and no control characters",
    clauses: ["VID-01", "DEC-COL-09"],
  },
  unstorableText: {
    status: 400,
    // 2048 is maxIndexedTextBytes (core/values/storable-text.rules.ts); collect.rules.test.ts checks they agree.
    xError: "Unusable {parameter} param value: at most 2048 bytes of UTF-8 and no U+0000",
    clauses: ["COL-04", "COL-16"],
  },
  namesTooLong: {
    status: 400,
    xError: "svc_account, svc_profile and svc_datasource exceed 250 characters",
    clauses: ["COL-09", "DEC-COL-02"],
  },
  invalidJson: {
    status: 400,
    xError: "Invalid JSON body",
    clauses: ["COL-06", "DEC-COL-04"],
  },
  notAnObject: {
    status: 400,
    xError: "JSON body must be an object",
    clauses: ["COL-06", "DEC-COL-04"],
  },
  keyWithPeriod: {
    status: 400,
    xError: "JSON key contains a period",
    clauses: ["COL-06", "DEC-COL-04"],
  },
  tooDeep: {
    status: 400,
    xError: "JSON nesting exceeds 64 levels",
    clauses: ["COL-06", "DEC-COL-04"],
  },
  bodyTooLarge: {
    status: 400,
    xError: "JSON body exceeds 1 MB",
    clauses: ["COL-06", "DEC-COL-04"],
  },
  invalidGzip: {
    status: 400,
    xError: "Invalid gzip body",
    clauses: ["COL-06", "DEC-COL-04"],
  },
  emptyBody: {
    status: 400,
    xError: "Empty request body",
    clauses: ["COL-07", "DEC-COL-04"],
  },
  unsupportedContentType: {
    status: 400,
    xError: "Unsupported Content-Type, use application/json or text/plain",
    clauses: ["COL-02", "DEC-COL-04"],
  },
  unsupportedEncoding: {
    status: 400,
    xError: "Unsupported Content-Encoding, use gzip or none",
    clauses: ["DEC-COL-04"],
  },
  invalidFileType: {
    status: 400,
    xError: "Invalid file-type param value, use json or javascript",
    clauses: ["COL-08", "DEC-COL-04"],
  },
  rateLimited: {
    status: 429,
    xError: "Rate limit exceeded",
    clauses: ["COL-15", "DEC-COL-07"],
  },
  storageUnavailable: {
    status: 503,
    xError: "Storage unavailable",
    clauses: ["DEC-COL-08"],
  },
  methodNotAllowed: {
    status: 405,
    xError: "Method not allowed, events are collected with GET or POST",
    clauses: ["COL-01", "COL-02"],
  },
  unknownPath: {
    status: 404,
    xError: "Unknown path, events are collected at /event",
    clauses: ["COL-01", "COL-02"],
  },
  internalError: {
    status: 500,
    xError: "Internal error",
    clauses: ["DEC-GEN-07"],
  },
} as const satisfies Record<string, CollectErrorEntry>;

export type CollectErrorCode = keyof typeof collectErrors;

export interface CollectError {
  readonly kind: "collect";
  readonly code: CollectErrorCode;
  readonly status: number;
  readonly xError: string;
}

/** Per code (distributed over a union of codes, so that a code chosen at run time needs no values). */
type CollectArgs<C extends CollectErrorCode> = C extends CollectErrorCode
  ? TemplateArgs<(typeof collectErrors)[C]["xError"]>
  : never;

/** Builds the collection refusal `code` (400 and `X-Error`, empty body), filling its placeholders with `values`. */
export function collectError<C extends CollectErrorCode>(code: C, ...args: CollectArgs<C>): CollectError {
  const entry: CollectErrorEntry = collectErrors[code];
  const values = (args[0] ?? {}) as Readonly<Record<string, string | number>>;
  return { kind: "collect", code, status: entry.status, xError: fillTemplate(entry.xError, values) };
}
