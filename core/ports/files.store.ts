import type { RowCounts, StatusEntry } from "../files/file-import.machine.ts";

/** DEC-FIL-02: where a file came from: the drop folder (`file`) or the admin upload (`upload`). */
export type FileSourceType = "file" | "upload";

/** FIL-06: what is known of the file itself; size, checksum and line count once it is downloaded. */
export interface ImportedFile {
  readonly size: number;
  /** DEC-FIL-05: MD5 hex of the bytes. */
  readonly checksum: string;
  readonly sourceType: FileSourceType;
  /** DEC-FIL-02: the host name of the node that received it. */
  readonly sourceHost: string;
  /** Lines of the file, the header included (a last line without a newline counts). */
  readonly lineCount: number;
}

/** Where an interrupted import resumes: data rows read so far (committed), and the counters at that point. */
export interface ImportProgress {
  readonly rowsRead: number;
  readonly counts: RowCounts;
  readonly lastRowFailure: string | null;
}

/** One file import and its status (FIL-06, FIL-07, DEC-FIL-03, DEC-FIL-05). */
export interface FileStatusRecord {
  /** DEC-FIL-05: 24 lower-case hex digits. */
  readonly id: string;
  readonly account: string;
  readonly profile: string;
  /** The file name, `.csv` included (DEC-FIL-04: unique per account and profile). */
  readonly name: string;
  /** FIL-10, DEC-FIL-06: the prefix group count and search match. */
  readonly prefix: string;
  /** Virtual-clock epoch milliseconds the import was accepted. */
  readonly createdAt: number;
  /** DEC-FIL-05: the node that received and processes the file. */
  readonly nodeId: string;
  readonly file: ImportedFile;
  readonly status: readonly StatusEntry[];
  /** True once the import is PROCESSED or failed: nothing more will happen to it. */
  readonly finished: boolean;
  /** Null until rows are read; kept after each committed batch of events. */
  readonly progress: ImportProgress | null;
}

/** The file imports and their status (FIL-*, DEC-FIL-*). */
export interface FileStatusStore {
  /** Records a new import; false (and nothing changed) when the account/profile already has a file of that name (DEC-FIL-04). */
  create(record: FileStatusRecord): Promise<boolean>;
  find(account: string, profile: string, name: string): Promise<FileStatusRecord | null>;
  /**
   * Puts `next` (a new import of the same account, profile and name) in the place of `previous`, a finished
   * import that may be received again. False when `previous` is no longer there (another receiver replaced it
   * first, or it never was): then nothing changed.
   */
  replace(previous: FileStatusRecord, next: FileStatusRecord): Promise<boolean>;
  /** Replaces the node, file details, status, finished flag and progress of the import with this id. */
  update(record: FileStatusRecord): Promise<void>;
  /** DEC-FIL-06: how many imports of the prefix were created in [from, to]. */
  count(account: string, profile: string, prefix: string, from: number, to: number): Promise<number>;
  /** DEC-FIL-06: the imports of the prefix created in [from, to], oldest first (then by id). */
  search(account: string, profile: string, prefix: string, from: number, to: number): Promise<FileStatusRecord[]>;
  /** The imports of the profile, newest accepted first (by createdAt, then id, descending), at most `limit`. */
  list(account: string, profile: string, limit: number): Promise<FileStatusRecord[]>;
  /**
   * Every unfinished import, of any node, oldest first: the work import workers have left. Which node goes on
   * with one is decided by the import's lease (core/files/file-import.use-cases.ts), not by this list.
   */
  unfinished(): Promise<FileStatusRecord[]>;
}
