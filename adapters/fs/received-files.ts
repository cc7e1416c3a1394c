import { createHash, randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { type FileHandle, mkdir, open, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describeError } from "../../core/errors/index.ts";
import type { ByteRange, ByteSource, KeptFile, ReceivedFileStorage, StoredBytes } from "../../core/ports/index.ts";
import { md5OfNothing, ReceivedBytesCount } from "../runtime/received-bytes.ts";
import { directoriesIn, entriesOf, pathExists, removeCounting } from "./folder-entries.ts";

/** How a rewrite names the copy it writes beside a file (a leading dot: never listed as a kept file). */
const rewriteSuffix = ".erasing";

/**
 * The files the import received, each kept under `files/{account}/{profile}/{name}` in the data directory:
 * what its rows are read from, and what the erasure of a deleted visitor rewrites (PRV-09). Only names ending
 * in `.csv` and not starting with a period are kept files; the others are copies being written. Each node
 * has its own data directory, so each holds only the files it received (or that reached it on a shared disk).
 */
export class ReceivedFiles implements ReceivedFileStorage {
  private readonly root: string;
  readonly checksumOfNothing = md5OfNothing;
  readonly sharedByNodes = false;

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
  async namesIn(account: string, profile: string): Promise<string[]> {
    return entriesOf(this.folderOf(account, profile))
      .filter((entry) => entry.isFile() && !entry.name.startsWith(".") && entry.name.endsWith(".csv"))
      .map((entry) => entry.name)
      .sort();
  }

  /** Every file kept, profile by profile. */
  async *everyFile(): AsyncGenerator<KeptFile> {
    for (const account of directoriesIn(this.root))
      for (const profile of directoriesIn(join(this.root, account)))
        for (const name of await this.namesIn(account, profile)) yield { account, profile, name };
  }

  /** Whether the file is kept here (another node's import may have received it elsewhere). */
  holds(account: string, profile: string, name: string): Promise<boolean> {
    return pathExists(this.pathOf(account, profile, name));
  }

  /** The bytes of a kept file, read as a stream; a file that is gone throws (ENOENT) as it is read. */
  read(file: KeptFile): ByteSource {
    return createReadStream(this.pathOf(file.account, file.profile, file.name));
  }

  /**
   * Streams the bytes to where the file is kept (through a `.part` file renamed at the end), counting size,
   * MD5 and lines of what was received, whether or not the whole file was.
   */
  async write(account: string, profile: string, name: string, body: ByteSource | null): Promise<StoredBytes> {
    const path = this.pathOf(account, profile, name);
    const partial = `${path}.part`;
    const count = new ReceivedBytesCount();
    try {
      await mkdir(join(path, ".."), { recursive: true });
      const handle = await open(partial, "w");
      try {
        for await (const chunk of body ?? []) {
          if (chunk.byteLength === 0) continue;
          count.add(chunk);
          await handle.write(chunk);
        }
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(partial, path);
    } catch (error) {
      await rm(partial, { force: true }).catch(() => undefined);
      return { ok: false, error: describeError(error), received: count.received() };
    }
    return { ok: true, received: count.received() };
  }

  /**
   * PRV-09, DEC-PRV-04: replaces the file with a copy of everything outside the ranges (written beside it and
   * synced, renamed over it, the rename synced), then zeroes the ranges in the replaced file through the
   * descriptor still open on it, so neither the file nor its old blocks keep them. Renaming first means a crash
   * never leaves the name on a file with zeroed records in it: at every moment the name holds either the whole
   * original or the whole copy. A crash before the rename leaves the original and a stray copy beside it, which
   * the next rewrite in that folder removes (the rewrite that crashed runs again, the original still holding
   * what it removes).
   */
  async rewriteWithout(file: KeptFile, ranges: readonly ByteRange[]): Promise<void> {
    const path = this.pathOf(file.account, file.profile, file.name);
    const folder = dirname(path);
    for (const entry of entriesOf(folder))
      if (entry.isFile() && entry.name.startsWith(".") && entry.name.endsWith(rewriteSuffix))
        await rm(join(folder, entry.name), { force: true });
    const temporary = join(folder, `.${randomBytes(6).toString("hex")}${rewriteSuffix}`);
    const source = await open(path, "r+");
    try {
      try {
        await writeOutside(source, temporary, ranges);
        await rename(temporary, path);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
      await syncDirectory(folder);
      for (const [from, to] of ranges) await source.write(Buffer.alloc(to - from), 0, to - from, from);
      await source.sync();
    } finally {
      await source.close().catch(() => undefined);
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

/** Writes every byte of `source` outside the ranges to a new file at `path`, and syncs it. */
async function writeOutside(source: FileHandle, path: string, ranges: readonly ByteRange[]): Promise<void> {
  const target = await open(path, "w");
  try {
    const size = (await source.stat()).size;
    const buffer = Buffer.alloc(64 * 1024);
    let kept = 0;
    for (const [from, to] of [...ranges, [size, size] as const]) {
      for (let at = kept; at < from; ) {
        const { bytesRead } = await source.read(buffer, 0, Math.min(buffer.length, from - at), at);
        if (bytesRead === 0) break;
        await target.write(buffer, 0, bytesRead);
        at += bytesRead;
      }
      kept = to;
    }
    await target.sync();
  } finally {
    await target.close();
  }
}

/** Makes a rename in the folder durable. */
async function syncDirectory(folder: string): Promise<void> {
  const handle = await open(folder, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
