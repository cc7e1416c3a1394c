import type { KeptFile } from "./received-files.port.ts";

/** One record of a CSV file and the line of the file it starts on (the first is 1). */
export interface CsvRow {
  readonly fields: string[];
  readonly line: number;
}

/**
 * Why a reading of rows stopped: a record longer than its limit, text that is no CSV the reader reads, or
 * anything else (the file could not be read: an error worth a log line).
 */
export type RowReadingFailure = "recordTooLarge" | "notCsv" | "other";

/**
 * The records of the received files, as the import reads them (DEC-FIL-03): a stream, so nothing holds the
 * whole file. The reader decides the CSV dialect (a BOM, mixed line ends, rows of any length, an empty line as
 * a row); the import decides what each row means.
 */
export interface CsvRowSource {
  /**
   * The records of a received file, the header first. A record longer than `maxRecordBytes` stops the reading
   * with an error, and so does a file that cannot be read; `failureOf` tells them apart.
   */
  rowsOf(file: KeptFile, maxRecordBytes: number): AsyncIterable<CsvRow>;
  /** What stopped a reading of `rowsOf`, from the error it threw. */
  failureOf(error: unknown): RowReadingFailure;
}
