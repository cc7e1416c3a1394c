/**
 * DEC-REV-02: a zip whose bytes depend only on its entries. fflate's streaming `Zip` writes the container (a
 * local header, the data, a data descriptor for each member, then the central directory), in the order the
 * entries are added; node:zlib compresses each member (raw deflate, level 9) on its thread pool, so a large
 * publish does not hold the event loop, and gives its CRC-32. Everything else that could vary is fixed here:
 * every entry's date (the DOS epoch), its Unix mode and platform (0644, "made by Unix"), no archive or entry
 * comment, no extra fields. The same entries in the same order therefore give the same bytes, on any machine, in
 * any time zone and at any time.
 *
 * Both are loaded at the first zip, not when the server starts: a server that publishes nothing never loads
 * them, and the demo revision's zip costs a few milliseconds of the start (bench/FINDINGS.md).
 */
import { promisify } from "node:util";
import type { ZipInputFile } from "fflate";
import type { BundleZipper, ZipEntry } from "../../core/ports/index.ts";

/**
 * 1980-01-01T00:00:00, the earliest time a zip can hold, as reproducible-build tools use it. fflate writes a
 * date's local fields (its year, month, day and hours in this process's time zone), so the date is made from
 * local fields too, at each zip (the time zone may change while the process runs): the DOS fields are then
 * 1980-01-01 00:00 in every time zone.
 */
const fixedEntryDate = () => new Date(1980, 0, 1, 0, 0, 0);
/** "Made by Unix" (PKZIP's APPNOTE 4.4.2.2), so that the mode below is read as a Unix mode. */
const unixPlatform = 3;
/** A regular file, rw-r--r--, in the high half of the external attributes. */
const fixedFileAttributes = (0o100000 | 0o644) * 0x10000;
/** Method 8 of PKZIP's APPNOTE 4.4.5. */
const deflated = 8;
const compressionLevel = 9;

/** Builds the zip of `entries`, in this order, in memory. */
export async function buildDeterministicZip(entries: readonly ZipEntry[]): Promise<Uint8Array> {
  const [{ Zip }, zlib] = await Promise.all([import("fflate"), import("node:zlib")]);
  const deflateRaw = promisify(zlib.deflateRaw);
  const compressed = await Promise.all(
    entries.map(async (entry) => ({ entry, data: await deflateRaw(entry.bytes, { level: compressionLevel }) })),
  );
  return new Promise<Uint8Array>((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    const zip = new Zip((error, chunk, final) => {
      if (error) return reject(error);
      chunks.push(chunk);
      if (final) resolve(concatenated(chunks));
    });
    for (const { entry, data } of compressed) {
      const member: ZipInputFile = {
        filename: entry.name,
        size: entry.bytes.byteLength,
        crc: zlib.crc32(entry.bytes),
        compression: deflated,
        mtime: fixedEntryDate(),
        os: unixPlatform,
        attrs: fixedFileAttributes,
      };
      zip.add(member);
      member.ondata?.(null, new Uint8Array(data), true);
    }
    zip.end();
  });
}

function concatenated(chunks: readonly Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(chunks.reduce((length, chunk) => length + chunk.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The BundleZipper port on fflate and node:zlib: the revisions' bundles. */
export const deterministicZipper: BundleZipper = { zip: buildDeterministicZip };
