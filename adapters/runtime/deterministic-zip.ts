/**
 * DEC-REV-02: a zip whose bytes depend only on its entries. archiver writes the entries in the order they
 * are appended (its queue runs one at a time), and everything else that could vary is fixed here: every
 * entry's date (the DOS epoch, written in UTC), its Unix mode and platform (0644, "made by Unix"),
 * the compression (deflate, level 9), no archive or entry comment, no extra fields. The same entries in
 * the same order therefore give the same bytes, on any machine and at any time.
 *
 * archiver, with the Node streams behind it, is loaded at the first zip, not when the server starts: a server
 * that publishes nothing never loads it.
 */
import type { BundleZipper, ZipEntry } from "../../core/ports/index.ts";

/** 1980-01-01T00:00:00Z, the earliest time a zip can hold, as reproducible-build tools use it. */
export const fixedEntryDate = new Date(Date.UTC(1980, 0, 1, 0, 0, 0));
const fixedFileMode = 0o644;
const compressionLevel = 9;

/** Builds the zip of `entries`, in this order, in memory. */
export async function buildDeterministicZip(entries: readonly ZipEntry[]): Promise<Uint8Array> {
  const { ZipArchive } = await import("archiver");
  return new Promise<Uint8Array>((resolve, reject) => {
    const archive = new ZipArchive({ zlib: { level: compressionLevel }, forceLocalTime: false, comment: "" });
    const chunks: Buffer[] = [];
    archive.on("data", (chunk: Buffer) => chunks.push(chunk));
    archive.on("warning", reject);
    archive.on("error", reject);
    archive.on("end", () => resolve(new Uint8Array(Buffer.concat(chunks))));
    for (const entry of entries) {
      archive.append(Buffer.from(entry.bytes.buffer, entry.bytes.byteOffset, entry.bytes.byteLength), {
        name: entry.name,
        date: fixedEntryDate,
        mode: fixedFileMode,
      });
    }
    archive.finalize().catch(reject);
  });
}

/** The BundleZipper port on archiver: the revisions' bundles. */
export const deterministicZipper: BundleZipper = { zip: buildDeterministicZip };
