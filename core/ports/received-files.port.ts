/** A source of bytes: a request body, a dropped file's stream. */
export type ByteSource = AsyncIterable<Uint8Array>;

/** DEC-FIL-05: what was received of a file, whether or not the whole file was. */
export interface ReceivedBytes {
  readonly size: number;
  /** MD5 hex of the bytes received. */
  readonly checksum: string;
  /** Lines of what was received (a last line without a newline counts). */
  readonly lineCount: number;
}

/** How a file's storing ended: whole, or stopped part way (the source broke, the disk was full) with why. */
export type StoredBytes =
  | { readonly ok: true; readonly received: ReceivedBytes }
  | { readonly ok: false; readonly error: string; readonly received: ReceivedBytes };

/** Which received file: the import's account, profile and file name. */
export interface KeptFile {
  readonly account: string;
  readonly profile: string;
  readonly name: string;
}

/** A span of a kept file's bytes, [start, end): one CSV record with its line end, as the erasure finds it. */
export type ByteRange = readonly [start: number, end: number];

/**
 * Where the import keeps the files it received: what their rows are read from, and what the erasure of a
 * deleted visitor rewrites (PRV-09). svc-hub keeps them in each node's data directory
 * (`files/{account}/{profile}/{name}`), so a node holds only the files it received, or that reached it on a
 * shared disk; or, on PostgreSQL, in the database, where every node reads every file (`sharedByNodes`).
 */
export interface ReceivedFileStorage {
  /** DEC-FIL-05: the checksum of no bytes, which a record shows until its bytes are stored. */
  readonly checksumOfNothing: string;
  /**
   * Whether every node sharing the store reads the same files, rather than each node its own: then any node
   * may take over an import left unfinished, and one whose file is gone fails there as it would where it was
   * received.
   */
  readonly sharedByNodes: boolean;
  /**
   * Stores the bytes as the file, counting its size, checksum and lines as they come (nothing holds the whole
   * file), whether or not the whole file came; a file stopped part way is not kept, only what was counted. A
   * file kept under the name before is replaced once the new one is whole.
   */
  write(account: string, profile: string, name: string, body: ByteSource | null): Promise<StoredBytes>;
  /**
   * The bytes of a kept file, in order, a part at a time (nothing holds the whole file). A file that is not
   * kept, or that stops being kept while it is read, throws as it is read.
   */
  read(file: KeptFile): ByteSource;
  /** Whether the file is kept here (another node's import may have received it elsewhere). */
  holds(account: string, profile: string, name: string): Promise<boolean>;
  /** The names of the files kept for a profile, sorted. */
  namesIn(account: string, profile: string): Promise<string[]>;
  /** Every file kept, profile by profile. */
  everyFile(): AsyncIterable<KeptFile>;
  /**
   * PRV-09: replaces a kept file with its bytes outside `ranges` (sorted, apart), at once: a reader finds the
   * whole original or the whole copy, never a part, also when the rewrite stops half way. Throws when the file
   * is not kept.
   */
  rewriteWithout(file: KeptFile, ranges: readonly ByteRange[]): Promise<void>;
  /** Removes a kept file, if it is there. */
  remove(account: string, profile: string, name: string): Promise<void>;
  /** Removes what a receipt that stopped part way wrote. */
  removePartial(account: string, profile: string, name: string): Promise<void>;
  /** Removes every received file (svc-hub's own admin API, POST /admin/reset); answers how many went. */
  eraseAll(): Promise<number>;
}
