import { fillTemplate, type TemplateArgs, templatePattern } from "./template.ts";

/** One failure message of a file import status entry (`last_failure`): interface.md, Errors, file failure messages. */
export interface FileFailureEntry {
  readonly template: string;
  readonly meaning: string;
  readonly clauses: readonly string[];
}

/**
 * The nine file failure messages, worded exactly as the catalogue. `{placeholders}` are filled with the real
 * numbers, column names and formats (DEC-FIL-03). The parenthesised "(FTP, SFTP, S3)" is part of the wording.
 */
export const fileFailureMessages = {
  unknownPrefix: {
    template: "Unknown file prefix, unable to parse file",
    meaning: "No file definition for the prefix, or the prefix is mistyped",
    clauses: ["FIL-09", "DEC-FIL-03"],
  },
  recordTooLarge: {
    template: "DBObject of size {size} is over Max BSON size {max}",
    meaning: "File too large",
    clauses: ["FIL-09", "DEC-FIL-03"],
  },
  downloadFailed: {
    template: "Failed to download (FTP, SFTP, S3) file",
    meaning: "Download failed because of wrong service credentials",
    clauses: ["FIL-09", "DEC-FIL-03"],
  },
  invalidConnection: {
    template:
      "Invalid connection type, or Could not find required (FTP, SFTP, S3) configuration parameters for definition",
    meaning: "Credentials could not be authenticated",
    clauses: ["FIL-09", "DEC-FIL-03"],
  },
  attributeNotFound: {
    template: "Failed to find attribute for column with id",
    meaning: "No attribute could be generated for the mapped column",
    clauses: ["FIL-09", "DEC-FIL-03"],
  },
  processingException: {
    template: "Exception thrown while processing file",
    meaning: "A mapped column value cannot be parsed into the attribute",
    clauses: ["FIL-09", "DEC-FIL-03"],
  },
  visitorIdColumnMissing: {
    template: "Secondary visitor ID column= {column_name} does not exist in the file, unable to continue",
    meaning: "The column mapped to Visitor ID is absent from the file",
    clauses: ["FIL-09", "DEC-FIL-03"],
  },
  dateUnparsable: {
    template: "{date_format} could not be parsed as a Date",
    meaning: "The date format given does not match the file",
    clauses: ["FIL-09", "DEC-FIL-03"],
  },
  columnCountMismatch: {
    template:
      "The number of columns to be processed {columns} must match the number of CellProcessors {processors}: check that the number of CellProcessors you have defined matches the expected number of columns being read/written",
    meaning: "Mapped column names are absent from the file",
    clauses: ["FIL-09", "DEC-FIL-03"],
  },
} as const satisfies Record<string, FileFailureEntry>;

export type FileFailureCode = keyof typeof fileFailureMessages;

type FailureArgs<C extends FileFailureCode> = TemplateArgs<(typeof fileFailureMessages)[C]["template"]>;

/** The `last_failure` text for `code`, its placeholders filled. FIL-09 */
export function fileFailureMessage<C extends FileFailureCode>(code: C, ...args: FailureArgs<C>): string {
  const values = (args[0] ?? {}) as Readonly<Record<string, string | number>>;
  return fillTemplate(fileFailureMessages[code].template, values);
}

const failurePatterns = Object.entries(fileFailureMessages).map(
  ([code, entry]) => [code as FileFailureCode, templatePattern(entry.template)] as const,
);

/** Which catalogue message a `last_failure` text is, or null when it is none of them. FIL-09 */
export function classifyFileFailure(text: string): FileFailureCode | null {
  for (const [code, pattern] of failurePatterns) {
    if (pattern.test(text)) return code;
  }
  return null;
}
