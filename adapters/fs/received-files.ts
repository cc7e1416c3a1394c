import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { describeError } from "../../core/errors/describe-error.ts";
import type { ByteSource, KeptFile, ReceivedFileStorage, StoredBytes } from "../../core/ports/received-files.port.ts";
import { directoriesIn, entriesOf, pathExists, removeCounting } from "./folder-entries.ts";

/** MD5 of no bytes: the checksum of a file of which nothing was received yet (DEC-FIL-05). */
export const md5OfNothing = createHash("md5").digest("hex");

const newline = 0x0a;

/**
 * The files the import received, each kept under `files/{account}/{profile}/{name}` in the data directory:
 * what its rows are read from, and what the erasure of a deleted visitor rewrites (PRV-09). Only names ending
 * in `.csv` and not starting with a period are kept files; the others are copies being written.
 */
export class ReceivedFiles implements ReceivedFileStorage {
  private readonly root: string;
  readonly checksumOfNothing = md5OfNothing;

  constructor(dataDir: string) {
    this.root = join(dataDir, "files");
  }

  /** Where a received file is kept. */
  pathOf(account: string, profile: string, name: string): string {
    return join(this.root, account, profile, name);
  }

  /** The folder of a profile's received files. */
  folderOf(account: string, profile: string): string {
    return join(this.root, account, profile);
  }

  /** The names of the files kept for a profile, sorted. */
  namesIn(account: string, profile: string): string[] {
    return entriesOf(this.folderOf(account, profile))
      .filter((entry) => entry.isFile() && !entry.name.startsWith(".") && entry.name.endsWith(".csv"))
      .map((entry) => entry.name)
      .sort();
  }

  /** Every file kept, profile by profile. */
  *everyFile(): Generator<KeptFile> {
    for (const account of directoriesIn(this.root))
      for (const profile of directoriesIn(join(this.root, account)))
        for (const name of this.namesIn(account, profile)) yield { account, profile, name };
  }

  /** Whether the file is kept here (another node's import may have received it elsewhere). */
  holds(account: string, profile: string, name: string): Promise<boolean> {
    return pathExists(this.pathOf(account, profile, name));
  }

  /**
   * Streams the bytes to where the file is kept (through a `.part` file renamed at the end), counting size,
   * MD5 and lines of what was received, whether or not the whole file was.
   */
  async write(account: string, profile: string, name: string, body: ByteSource | null): Promise<StoredBytes> {
    const path = this.pathOf(account, profile, name);
    const partial = `${path}.part`;
    const md5 = createHash("md5");
    let size = 0;
    let newlines = 0;
    let lastByte = -1;
    try {
      await mkdir(join(path, ".."), { recursive: true });
      const handle = await open(partial, "w");
      try {
        for await (const chunk of body ?? []) {
          if (chunk.byteLength === 0) continue;
          const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
          md5.update(bytes);
          for (let at = bytes.indexOf(newline); at !== -1; at = bytes.indexOf(newline, at + 1)) newlines += 1;
          size += bytes.byteLength;
          lastByte = bytes[bytes.byteLength - 1] as number;
          await handle.write(bytes);
        }
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(partial, path);
    } catch (error) {
      await rm(partial, { force: true }).catch(() => undefined);
      return { ok: false, error: describeError(error), received: received() };
    }
    return { ok: true, received: received() };

    function received() {
      return { size, checksum: md5.digest("hex"), lineCount: newlines + (size > 0 && lastByte !== newline ? 1 : 0) };
    }
  }

  /** Removes a kept file, if it is there. */
  async remove(account: string, profile: string, name: string): Promise<void> {
    await rm(this.pathOf(account, profile, name), { force: true });
  }

  /** Removes what a receipt that stopped part way wrote. */
  async removePartial(account: string, profile: string, name: string): Promise<void> {
    await rm(`${this.pathOf(account, profile, name)}.part`, { force: true });
  }

  /** Removes every received file (svc-hub's own admin API, POST /admin/reset); answers how many went. */
  async eraseAll(): Promise<number> {
    let removed = 0;
    for (const entry of entriesOf(this.root)) removed += await removeCounting(join(this.root, entry.name));
    return removed;
  }
}

/** The MD5 of a file's bytes (hex), as `ReceivedFiles.write` counts it, or null when it cannot be read. */
export async function md5Of(path: string): Promise<string | null> {
  const md5 = createHash("md5");
  try {
    for await (const chunk of createReadStream(path)) md5.update(chunk as Buffer);
  } catch {
    return null;
  }
  return md5.digest("hex");
}
