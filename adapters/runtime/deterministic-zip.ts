/**
 * DEC-REV-02: a zip whose bytes depend only on its entries, written here with node:zlib (archiver, used before,
 * was loaded at the first start of every data directory for the demo's revision; issue 41). Everything that could
 * vary is fixed: every entry's date (the DOS epoch, 1980-01-01 00:00), its Unix mode and platform (0644, "made by
 * Unix"), the compression (deflate, level 9; an empty file stored), no archive or entry comment, no extra fields.
 * The layout is archiver's, byte for byte (its test proves it), so bundles published before keep their checksums:
 * a local header with a data descriptor after the data, then the central directory and its end.
 */
import { promisify } from "node:util";
import { crc32, deflateRaw } from "node:zlib";
import type { BundleZipper, ZipEntry } from "../../core/ports/zip.port.ts";

/** 1980-01-01T00:00:00Z, the earliest time a zip can hold, as reproducible-build tools use it. */
export const fixedEntryDate = new Date(Date.UTC(1980, 0, 1, 0, 0, 0));
/** fixedEntryDate as MS-DOS writes it: the time (00:00:00) and the date (1980-01-01). */
const dosTime = 0;
const dosDate = (0 << 9) | (1 << 5) | 1;
const compressionLevel = 9;

const localHeaderSignature = 0x04034b50;
const dataDescriptorSignature = 0x08074b50;
const centralHeaderSignature = 0x02014b50;
const endOfCentralDirectorySignature = 0x06054b50;
/** 2.0: deflate and data descriptors. */
const versionNeeded = 20;
/** Unix (3) in the high byte, zip 4.5 in the low one, as archiver writes it. */
const versionMadeBy = (3 << 8) | 45;
/** Bit 3: the sizes and CRC follow the data (a data descriptor); bit 11: the name is UTF-8. */
const usesDataDescriptor = 0x0008;
const namesInUtf8 = 0x0800;
/** A regular file (0100000) with mode 0644 in the high half of the external attributes, MS-DOS's archive bit (0x20) in the low. */
const externalAttributes = ((0o100644 << 16) | 0x20) >>> 0;
const stored = 0;
const deflated = 8;
/** Past these a zip needs zip64 records, which no bundle does (a publication holds at most 64 MiB). */
const largestField = 0xffffffff;
const mostEntries = 0xffff;

const deflateRawAsync = promisify(deflateRaw);

interface Written {
  readonly name: Buffer;
  readonly flags: number;
  readonly method: number;
  readonly crc: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly offset: number;
}

/** Builds the zip of `entries`, in this order, in memory; the deflating runs off the event loop (zlib's threads). */
export async function buildDeterministicZip(entries: readonly ZipEntry[]): Promise<Uint8Array> {
  if (entries.length > mostEntries) throw new RangeError(`a bundle holds at most ${mostEntries} files`);
  const contents = await Promise.all(
    entries.map(async (entry) => {
      const bytes = Buffer.from(entry.bytes.buffer, entry.bytes.byteOffset, entry.bytes.byteLength);
      // An empty file is stored, as archiver does (its data descriptor stays).
      const data = bytes.length === 0 ? bytes : await deflateRawAsync(bytes, { level: compressionLevel });
      return { entry, bytes, data };
    }),
  );
  const parts: Buffer[] = [];
  const written: Written[] = [];
  let offset = 0;
  for (const { entry, bytes, data } of contents) {
    const name = Buffer.from(entry.name, "utf8");
    const member: Written = {
      name,
      flags: usesDataDescriptor | (name.length === entry.name.length ? 0 : namesInUtf8),
      method: bytes.length === 0 ? stored : deflated,
      crc: crc32(bytes) >>> 0,
      compressedSize: data.length,
      size: bytes.length,
      offset,
    };
    if (member.size > largestField || member.compressedSize > largestField || offset > largestField)
      throw new RangeError("a bundle's file is too large for a zip without zip64 records");
    const local = Buffer.alloc(30);
    local.writeUInt32LE(localHeaderSignature, 0);
    local.writeUInt16LE(versionNeeded, 4);
    local.writeUInt16LE(member.flags, 6);
    local.writeUInt16LE(member.method, 8);
    local.writeUInt16LE(dosTime, 10);
    local.writeUInt16LE(dosDate, 12);
    // CRC and sizes (14-25) stay 0: the data descriptor carries them.
    local.writeUInt16LE(name.length, 26);
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(dataDescriptorSignature, 0);
    descriptor.writeUInt32LE(member.crc, 4);
    descriptor.writeUInt32LE(member.compressedSize, 8);
    descriptor.writeUInt32LE(member.size, 12);
    parts.push(local, name, data, descriptor);
    written.push(member);
    offset += local.length + name.length + data.length + descriptor.length;
  }
  const centralOffset = offset;
  for (const member of written) {
    const central = Buffer.alloc(46);
    central.writeUInt32LE(centralHeaderSignature, 0);
    central.writeUInt16LE(versionMadeBy, 4);
    central.writeUInt16LE(versionNeeded, 6);
    central.writeUInt16LE(member.flags, 8);
    central.writeUInt16LE(member.method, 10);
    central.writeUInt16LE(dosTime, 12);
    central.writeUInt16LE(dosDate, 14);
    central.writeUInt32LE(member.crc, 16);
    central.writeUInt32LE(member.compressedSize, 20);
    central.writeUInt32LE(member.size, 24);
    central.writeUInt16LE(member.name.length, 28);
    // Extra field, comment, disk number and internal attributes (30-37) stay 0.
    central.writeUInt32LE(externalAttributes, 38);
    central.writeUInt32LE(member.offset, 42);
    parts.push(central, member.name);
    offset += central.length + member.name.length;
  }
  if (offset > largestField) throw new RangeError("a bundle is too large for a zip without zip64 records");
  const end = Buffer.alloc(22);
  end.writeUInt32LE(endOfCentralDirectorySignature, 0);
  end.writeUInt16LE(written.length, 8);
  end.writeUInt16LE(written.length, 10);
  end.writeUInt32LE(offset - centralOffset, 12);
  end.writeUInt32LE(centralOffset, 16);
  parts.push(end);
  return new Uint8Array(Buffer.concat(parts));
}

/** The BundleZipper port: the revisions' bundles. */
export const deterministicZipper: BundleZipper = { zip: buildDeterministicZip };
