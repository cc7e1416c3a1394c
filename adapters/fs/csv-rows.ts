import type { Options } from "csv-parse";
import type {
  ByteSource,
  CsvRow,
  CsvRowSource,
  KeptFile,
  ReceivedFileStorage,
  RowReadingFailure,
} from "../../core/ports/index.ts";

/**
 * How a received file is read (DEC-FIL-03), by the import and by the erasure of a visitor's rows alike, so the
 * erasure finds the very records the import made into events: a BOM, both line ends even mixed in one file (a
 * lone CR is none), rows with more or fewer fields than the header, quotes inside unquoted fields, and an
 * empty line as a row.
 */
const receivedFileReading: Options = {
  bom: true,
  record_delimiter: ["\r\n", "\n"],
  relax_column_count: true,
  relax_quotes: true,
  skip_empty_lines: false,
};

/**
 * csv-parse and the Node streams it reads from, loaded by the first reading: the HTTP side builds the file
 * import service too (for the uploads it accepts) but never reads a file, and a start is spared their loading.
 */
interface Parsing {
  readonly csv: typeof import("csv-parse");
  readonly Readable: typeof import("node:stream").Readable;
}
let parsing: Parsing | null = null;

async function loadParsing(): Promise<Parsing> {
  const loaded = parsing ?? { csv: await import("csv-parse"), Readable: (await import("node:stream")).Readable };
  parsing = loaded;
  return loaded;
}

/** One record of a CSV file and the bytes it spans, [start, end), its line end included. */
export interface CsvRecordBytes {
  readonly fields: string[];
  readonly start: number;
  readonly end: number;
}

/**
 * The records of a file's bytes, read as a stream (nothing holds the whole file). A record longer than
 * `maxRecordBytes` stops the reading with an error that `isRecordTooLarge` recognises; so does a file that
 * cannot be read, with its own error.
 */
export async function* readCsvRows(bytes: ByteSource, maxRecordBytes: number): AsyncGenerator<CsvRow> {
  const parser = parseBytes(await loadParsing(), bytes, { raw: true, max_record_size: maxRecordBytes });
  let lastLine = 0;
  try {
    for await (const { record, raw } of parser as AsyncIterable<{ record: string[]; raw: string }>) {
      // csv-parse's own count takes a CRLF inside quotes for two lines.
      const line = lastLine + 1;
      lastLine += linesOf(raw);
      yield { fields: record, line };
    }
  } finally {
    parser.destroy();
  }
}

/** The records of a file's bytes with their positions, read as the import reads them (without its size limit). */
export async function* readCsvRecordBytes(bytes: ByteSource): AsyncGenerator<CsvRecordBytes> {
  const parser = parseBytes(await loadParsing(), bytes, { info: true });
  let start = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { bytes: number } }>) {
      yield { fields: record, start, end: info.bytes };
      start = info.bytes;
    }
  } finally {
    parser.destroy();
  }
}

/** Whether a reading stopped at a record longer than its limit. */
export function isRecordTooLarge(error: unknown): boolean {
  return isUnreadableCsv(error) && (error as { code?: unknown }).code === "CSV_MAX_RECORD_SIZE";
}

/** Whether a reading stopped at text that is no CSV it reads (rather than a file it could not read). */
export function isUnreadableCsv(error: unknown): boolean {
  // Before the first reading csv-parse is not loaded, and none of its errors can exist.
  return parsing !== null && error instanceof parsing.csv.CsvError;
}

/** The CsvRowSource port on the received files, wherever they are kept: their records, read with csv-parse. */
export class ReceivedCsvRows implements CsvRowSource {
  constructor(private readonly files: Pick<ReceivedFileStorage, "read">) {}

  rowsOf(file: KeptFile, maxRecordBytes: number): AsyncIterable<CsvRow> {
    return readCsvRows(this.files.read(file), maxRecordBytes);
  }

  failureOf(error: unknown): RowReadingFailure {
    if (isRecordTooLarge(error)) return "recordTooLarge";
    return isUnreadableCsv(error) ? "notCsv" : "other";
  }
}

/** The parser on the bytes; destroying it stops the reading of the bytes too. */
function parseBytes({ csv, Readable }: Parsing, bytes: ByteSource, options: Options) {
  const source = bytes instanceof Readable ? bytes : Readable.from(bytes, { objectMode: false });
  const parser = source.pipe(csv.parse({ ...receivedFileReading, ...options }));
  // pipe() does not pass a read error on: without this a lost file would be an uncaught error event.
  source.on("error", (error) => parser.destroy(error));
  parser.on("close", () => source.destroy());
  return parser;
}

/** How many lines a raw record spans (its text holds its line end only when that is a bare LF). */
function linesOf(raw: string): number {
  let newlines = 0;
  for (let at = raw.indexOf("\n"); at !== -1; at = raw.indexOf("\n", at + 1)) newlines += 1;
  return newlines - (raw.endsWith("\n") ? 1 : 0) + 1;
}
