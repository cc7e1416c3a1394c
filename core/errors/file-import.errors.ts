import { fillTemplate, type TemplateArgs } from "./template.ts";

/**
 * Refusals of the admin file upload that the management catalogue has no entry for; answered as
 * `{"message": "<text>"}` (DEC-FIL-04).
 */
export const fileImportErrors = {
  alreadyImported: {
    status: 409,
    message: "File {file_name} has already been imported into {account}/{profile}; a file name is imported once",
    clauses: ["DEC-FIL-04"],
  },
} as const satisfies Record<
  string,
  { readonly status: number; readonly message: string; readonly clauses: readonly string[] }
>;

export type FileImportErrorCode = keyof typeof fileImportErrors;

export interface FileImportError {
  readonly kind: "file-import";
  readonly code: FileImportErrorCode;
  readonly status: number;
  readonly message: string;
}

/** DEC-FIL-04: the refusal `code`, its placeholders filled. */
export function fileImportError<C extends FileImportErrorCode>(
  code: C,
  ...args: TemplateArgs<(typeof fileImportErrors)[C]["message"]>
): FileImportError {
  const values = (args[0] ?? {}) as Readonly<Record<string, string | number>>;
  return {
    kind: "file-import",
    code,
    status: fileImportErrors[code].status,
    message: fillTemplate(fileImportErrors[code].message, values),
  };
}
