import { fillTemplate, type TemplateArgs } from "./template.ts";

/** One refusal of the visitor-data (moments) API: a status and a `{"message"}` body (DEC-MOM-02). */
export interface MomentsErrorEntry {
  readonly status: number;
  readonly message: string;
  readonly clauses: readonly string[];
}

export const momentsErrors = {
  badRequest: {
    status: 400,
    message: "Bad request: {problem}",
    clauses: ["MOM-12", "DEC-MOM-02"],
  },
  refererNotAllowed: {
    status: 403,
    message: "Referer is not allowed for this engine",
    clauses: ["MOM-06", "DEC-MOM-02"],
  },
  engineDisabled: {
    status: 403,
    message: "Engine is not enabled",
    clauses: ["MOM-08", "DEC-MOM-02"],
  },
  engineNotFound: {
    status: 404,
    message: "Account, profile or engine not found",
    clauses: ["DEC-MOM-02"],
  },
  visitorNotFound: {
    status: 404,
    message: "Visitor not found",
    clauses: ["MOM-09", "MOM-10"],
  },
  methodNotAllowed: {
    status: 405,
    message: "Method not allowed: the visitor data is read with GET",
    clauses: ["DEC-MOM-02"],
  },
  internalError: {
    status: 500,
    message: "Internal error",
    clauses: ["DEC-GEN-07"],
  },
  storageUnavailable: {
    status: 503,
    message: "Storage unavailable. Please retry later.",
    clauses: ["DEC-GEN-07"],
  },
} as const satisfies Record<string, MomentsErrorEntry>;

export type MomentsErrorCode = keyof typeof momentsErrors;

export interface MomentsError {
  readonly kind: "moments";
  readonly code: MomentsErrorCode;
  readonly status: number;
  readonly message: string;
}

type MomentsArgs<C extends MomentsErrorCode> = TemplateArgs<(typeof momentsErrors)[C]["message"]>;

/** Builds the moments refusal `code`, filling its placeholders. */
export function momentsError<C extends MomentsErrorCode>(code: C, ...args: MomentsArgs<C>): MomentsError {
  const entry: MomentsErrorEntry = momentsErrors[code];
  const values = (args[0] ?? {}) as Readonly<Record<string, string | number>>;
  return { kind: "moments", code, status: entry.status, message: fillTemplate(entry.message, values) };
}
