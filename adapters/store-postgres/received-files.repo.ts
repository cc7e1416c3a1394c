import { and, eq, not } from "drizzle-orm";
import { describeError } from "../../core/errors/index.ts";
import type { ByteRange, ByteSource, KeptFile, ReceivedFileStorage, StoredBytes } from "../../core/ports/index.ts";
import { md5OfNothing, ReceivedBytesCount } from "../runtime/received-bytes.ts";
import type { PgDatabase } from "./database.ts";
import { receivedFileChunks, receivedFiles } from "./received-files.schema.ts";

/** A connection or a transaction on one: what the parts of a copy are written through. */
type PgSession = PgDatabase | Parameters<Parameters<PgDatabase["transaction"]>[0]>[0];

/** The bytes of one stored part: large enough that a file is few rows, small enough to hold a few at once. */
export const partBytes = 1024 * 1024;

/**
 * The files received for import, kept in the PostgreSQL database (ReceivedFileStorage), so that every node
 * reads every file: whichever node received it, any node imports it, takes its import over when its node
 * stopped, and erases a deleted visitor's rows from it (PRV-09). A file is a row of `received_files` and its
 * bytes are parts of about 1 MiB in `received_file_chunks`, written as they come and read back in order, so
 * nothing holds a whole file.
 *
 * A receipt's parts are committed one by one (a transaction for the whole receipt would hold a connection of
 * the pool for as long as the upload takes); its copy becomes the file only at its last step, which also
 * removes the copy it replaces. A copy that never got there is what `removePartial` removes.
 */
export class PgReceivedFiles implements ReceivedFileStorage {
  readonly checksumOfNothing = md5OfNothing;
  readonly sharedByNodes = true;

  constructor(
    private readonly db: PgDatabase,
    /** The size of the parts written (tests make it small, so that a few bytes span several). */
    private readonly partSize: number = partBytes,
  ) {}

  /**
   * Streams the bytes into parts of a new copy, counting size, MD5 and lines of what was received, whether or
   * not the whole file was; once all came, the copy replaces the file kept under the name in one transaction.
   * What an earlier receipt of the name left (its process stopped) goes first: only one receipt of a name runs
   * at a time, the import's record sees to that.
   */
  async write(account: string, profile: string, name: string, body: ByteSource | null): Promise<StoredBytes> {
    const count = new ReceivedBytesCount();
    let copyId: number | null = null;
    try {
      await this.removePartial(account, profile, name);
      const id = await this.newCopy(this.db, { account, profile, name });
      copyId = id;
      const counted = async function* (): AsyncGenerator<Uint8Array> {
        for await (const chunk of body ?? []) {
          count.add(chunk);
          yield chunk;
        }
      };
      const written = await this.writeParts(this.db, id, counted());
      await this.db.transaction(async (tx) => {
        await tx
          .delete(receivedFiles)
          .where(and(this.named({ account, profile, name }), eq(receivedFiles.complete, true)));
        await this.completeCopy(tx, id, written);
      });
    } catch (error) {
      if (copyId !== null) {
        const partial = copyId;
        await this.db
          .delete(receivedFiles)
          .where(eq(receivedFiles.id, partial))
          .catch(() => undefined);
      }
      return { ok: false, error: describeError(error), received: count.received() };
    }
    return { ok: true, received: count.received() };
  }

  /** The parts of the kept copy, one query each, in order. */
  async *read(file: KeptFile): AsyncGenerator<Uint8Array> {
    const copy = await this.keptCopy(this.db, file);
    if (!copy) throw new FileNotKept(file);
    for (let part = 0; part < copy.parts; part += 1) {
      const [row] = await this.db
        .select({ bytes: receivedFileChunks.bytes })
        .from(receivedFileChunks)
        .where(and(eq(receivedFileChunks.fileId, copy.id), eq(receivedFileChunks.part, part)));
      // The copy was removed or replaced while it was read.
      if (!row) throw new FileNotKept(file);
      yield row.bytes;
    }
  }

  async holds(account: string, profile: string, name: string): Promise<boolean> {
    return (await this.keptCopy(this.db, { account, profile, name })) !== null;
  }

  async namesIn(account: string, profile: string): Promise<string[]> {
    const rows = await this.db
      .select({ name: receivedFiles.name })
      .from(receivedFiles)
      .where(
        and(eq(receivedFiles.account, account), eq(receivedFiles.profile, profile), eq(receivedFiles.complete, true)),
      );
    // Code-unit order, as the data directory's names are sorted (the database's collation may differ).
    return rows.map((row) => row.name).sort();
  }

  async *everyFile(): AsyncGenerator<KeptFile> {
    const rows = await this.db
      .select({ account: receivedFiles.account, profile: receivedFiles.profile, name: receivedFiles.name })
      .from(receivedFiles)
      .where(eq(receivedFiles.complete, true));
    // Code-unit order, profile by profile, as the data directory lists them.
    yield* rows.sort(
      (a, b) => compare(a.account, b.account) || compare(a.profile, b.profile) || compare(a.name, b.name),
    );
  }

  /**
   * PRV-09: one transaction writes the copy without the ranges (the kept parts read in order, the bytes
   * outside the ranges written in new parts) and puts it in the file's place: a crash or an error leaves the
   * original whole, and no copy behind. The removed parts' bytes stay in PostgreSQL's files until VACUUM
   * reuses their space (docs/several-nodes.md, "Privacy deletions on PostgreSQL").
   */
  async rewriteWithout(file: KeptFile, ranges: readonly ByteRange[]): Promise<void> {
    await this.db.transaction(async (tx) => {
      const [original] = await tx
        .select({ id: receivedFiles.id, parts: receivedFiles.parts })
        .from(receivedFiles)
        .where(and(this.named(file), eq(receivedFiles.complete, true)))
        .for("update");
      if (!original) throw new FileNotKept(file);
      const copy = await this.newCopy(tx, file);
      const parts = async function* (): AsyncGenerator<Uint8Array> {
        for (let part = 0; part < original.parts; part += 1) {
          const [row] = await tx
            .select({ bytes: receivedFileChunks.bytes })
            .from(receivedFileChunks)
            .where(and(eq(receivedFileChunks.fileId, original.id), eq(receivedFileChunks.part, part)));
          if (!row) throw new FileNotKept(file);
          yield row.bytes;
        }
      };
      const written = await this.writeParts(tx, copy, bytesOutside(parts(), ranges));
      await tx.delete(receivedFiles).where(eq(receivedFiles.id, original.id));
      await this.completeCopy(tx, copy, written);
    });
  }

  async remove(account: string, profile: string, name: string): Promise<void> {
    await this.db
      .delete(receivedFiles)
      .where(and(this.named({ account, profile, name }), eq(receivedFiles.complete, true)));
  }

  /** Removes the copies of the name that never became the file: a receipt's whose process stopped. */
  async removePartial(account: string, profile: string, name: string): Promise<void> {
    await this.db.delete(receivedFiles).where(and(this.named({ account, profile, name }), not(receivedFiles.complete)));
  }

  /** Every copy and its parts; answers how many copies went (a receipt's unfinished one too, as on disk). */
  async eraseAll(): Promise<number> {
    return (await this.db.delete(receivedFiles)).count;
  }

  private named(file: KeptFile) {
    return and(
      eq(receivedFiles.account, file.account),
      eq(receivedFiles.profile, file.profile),
      eq(receivedFiles.name, file.name),
    );
  }

  private async keptCopy(db: PgSession, file: KeptFile): Promise<{ id: number; parts: number } | null> {
    const [row] = await db
      .select({ id: receivedFiles.id, parts: receivedFiles.parts })
      .from(receivedFiles)
      .where(and(this.named(file), eq(receivedFiles.complete, true)));
    return row ?? null;
  }

  /** A new copy of the file, not complete yet; answers its id. */
  private async newCopy(db: PgSession, file: KeptFile): Promise<number> {
    const [row] = await db
      .insert(receivedFiles)
      .values({ ...file, complete: false, size: 0, parts: 0 })
      .returning({ id: receivedFiles.id });
    if (!row) throw new Error(`no copy of ${file.name} could be made`);
    return row.id;
  }

  /**
   * Writes the bytes as parts of `partSize` of the copy (the last one shorter), each inserted once full, so
   * that at most one part is held; answers the size and the number of parts.
   */
  private async writeParts(
    db: PgSession,
    copyId: number,
    bytes: AsyncIterable<Uint8Array>,
  ): Promise<{ size: number; parts: number }> {
    let size = 0;
    let parts = 0;
    let part = Buffer.allocUnsafe(this.partSize);
    let filled = 0;
    const store = async () => {
      await db.insert(receivedFileChunks).values({ fileId: copyId, part: parts, bytes: part.subarray(0, filled) });
      parts += 1;
      part = Buffer.allocUnsafe(this.partSize);
      filled = 0;
    };
    for await (const chunk of bytes) {
      size += chunk.byteLength;
      for (let at = 0; at < chunk.byteLength; ) {
        const taken = Math.min(this.partSize - filled, chunk.byteLength - at);
        part.set(chunk.subarray(at, at + taken), filled);
        filled += taken;
        at += taken;
        if (filled === this.partSize) await store();
      }
    }
    if (filled > 0) await store();
    return { size, parts };
  }

  /** Makes the copy the file. Fails when the copy is gone (a partial receipt removed under its writer). */
  private async completeCopy(db: PgSession, copyId: number, written: { size: number; parts: number }) {
    const completed = await db
      .update(receivedFiles)
      .set({ complete: true, size: written.size, parts: written.parts })
      .where(eq(receivedFiles.id, copyId))
      .returning({ id: receivedFiles.id });
    if (completed.length === 0) throw new Error("the copy being written was removed");
  }
}

/** A file read, or rewritten, that is not kept (or stopped being kept while it was read). */
export class FileNotKept extends Error {
  override readonly name = "FileNotKept";
  constructor(file: KeptFile) {
    super(`no received file ${file.account}/${file.profile}/${file.name} is kept`);
  }
}

/** The bytes of `source` outside the ranges (sorted, apart), their positions counted from the source's start. */
export async function* bytesOutside(
  source: AsyncIterable<Uint8Array>,
  ranges: readonly ByteRange[],
): AsyncGenerator<Uint8Array> {
  let offset = 0;
  let next = 0;
  for await (const chunk of source) {
    const end = offset + chunk.byteLength;
    let at = offset;
    while (at < end) {
      while (next < ranges.length && (ranges[next] as ByteRange)[1] <= at) next += 1;
      const range = ranges[next];
      if (!range || range[0] >= end) {
        yield chunk.subarray(at - offset);
        break;
      }
      if (range[0] > at) yield chunk.subarray(at - offset, range[0] - offset);
      at = Math.min(range[1], end);
    }
    offset = end;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
