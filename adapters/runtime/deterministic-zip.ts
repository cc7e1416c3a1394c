/**
 * DEC-REV-02: a zip whose bytes depend only on its entries. node:zlib compresses each member (raw deflate, level
 * 9) on its thread pool, so a large publish does not hold the event loop, and gives its CRC-32; the container
 * around them (PKZIP's APPNOTE 6.3: a local header and the data for each member, then the central directory and
 * its end record) is laid out here, with everything else that could vary fixed: every entry's date (the DOS epoch,
 * 1980-01-01 00:00:00), its Unix mode and platform (0644, "made by Unix"), UTF-8 names, no comment, no extra
 * fields, no data descriptors. The same entries in the same order therefore give the same bytes, on any machine,
 * in any time zone and at any time.
 *
 * Laid out by hand rather than by fflate's `Zip` (which the conformance suite still reads zips with): fflate takes
 * an entry's date as a JavaScript `Date` and writes its local-time fields, so a fixed date had to be made in the
 * process's time zone, and the time zone's first use cost every fresh start 10–20 ms (bench/FINDINGS.md,
 * "Start"). node:zlib is loaded at the first zip: a server that publishes nothing never loads it.
 */
import { promisify } from "node:util";
import type { BundleZipper, ZipEntry } from "../../core/ports/index.ts";

const localHeaderSignature = 0x04034b50;
const centralHeaderSignature = 0x02014b50;
const endOfCentralDirectorySignature = 0x06054b50;
const localHeaderBytes = 30;
const centralHeaderBytes = 46;
const endOfCentralDirectoryBytes = 22;
/** 2.0: what reading deflate needs (APPNOTE 4.4.3). */
const versionNeeded = 20;
/** "Made by Unix" (APPNOTE 4.4.2.2), version 2.0, so that the mode below is read as a Unix mode. */
const versionMadeBy = (3 << 8) | versionNeeded;
/** Bit 11: the names are UTF-8 (APPNOTE 4.4.4). */
const utf8Names = 1 << 11;
/** Method 8 (APPNOTE 4.4.5). */
const deflated = 8;
const compressionLevel = 9;
/** 1980-01-01 00:00:00, the earliest a zip can hold, as reproducible-build tools use it: MS-DOS date and time. */
const dosDate = (0 << 9) | (1 << 5) | 1;
const dosTime = 0;
/** A regular file, rw-r--r--, in the high half of the external attributes. */
const fileAttributes = (0o100000 | 0o644) * 0x10000;
/**
 * From these on, a zip needs Zip64's records (0xFFFF and 0xFFFFFFFF in a field mean "see Zip64", APPNOTE
 * 4.4.22), which a revision's bundle (at most 1,000 files of 64 MiB sent) never does.
 */
const zip64Entries = 0xffff;
const zip64Bytes = 0xffffffff;
/** A name's length is a 16-bit field. */
const maxNameBytes = 0xffff;

interface Member {
  readonly name: Uint8Array;
  readonly crc: number;
  readonly size: number;
  readonly data: Uint8Array;
}

/** Builds the zip of `entries`, in this order, in memory. */
export async function buildDeterministicZip(entries: readonly ZipEntry[]): Promise<Uint8Array> {
  if (entries.length >= zip64Entries) throw new RangeError(`a zip of ${entries.length} entries needs Zip64`);
  const encoder = new TextEncoder();
  const names = entries.map((entry) => encoder.encode(entry.name));
  const longName = names.find((name) => name.byteLength > maxNameBytes);
  if (longName) throw new RangeError(`an entry's name of ${longName.byteLength} bytes is longer than a zip holds`);
  const zlib = await import("node:zlib");
  const deflateRaw = promisify(zlib.deflateRaw);
  const members: Member[] = await Promise.all(
    entries.map(async (entry, index) => ({
      name: names[index] as Uint8Array,
      crc: zlib.crc32(entry.bytes),
      size: entry.bytes.byteLength,
      data: new Uint8Array(await deflateRaw(entry.bytes, { level: compressionLevel })),
    })),
  );
  const localBytes = members.reduce(
    (sum, member) => sum + localHeaderBytes + member.name.byteLength + member.data.byteLength,
    0,
  );
  const centralBytes = members.reduce((sum, member) => sum + centralHeaderBytes + member.name.byteLength, 0);
  if (localBytes + centralBytes >= zip64Bytes || members.some((member) => member.size >= zip64Bytes))
    throw new RangeError("a zip past 4 GiB needs Zip64");
  const zip = new Uint8Array(localBytes + centralBytes + endOfCentralDirectoryBytes);
  const view = new DataView(zip.buffer);
  let at = 0;
  const u16 = (value: number) => {
    view.setUint16(at, value, true);
    at += 2;
  };
  const u32 = (value: number) => {
    view.setUint32(at, value, true);
    at += 4;
  };
  const bytes = (value: Uint8Array) => {
    zip.set(value, at);
    at += value.byteLength;
  };
  /** What a local header and a central directory header share, from the version needed to the name's length. */
  const common = (member: Member) => {
    u16(versionNeeded);
    u16(utf8Names);
    u16(deflated);
    u16(dosTime);
    u16(dosDate);
    u32(member.crc);
    u32(member.data.byteLength);
    u32(member.size);
    u16(member.name.byteLength);
    u16(0); // extra field length
  };
  const offsets: number[] = [];
  for (const member of members) {
    offsets.push(at);
    u32(localHeaderSignature);
    common(member);
    bytes(member.name);
    bytes(member.data);
  }
  const centralStart = at;
  members.forEach((member, index) => {
    u32(centralHeaderSignature);
    u16(versionMadeBy);
    common(member);
    u16(0); // comment length
    u16(0); // disk number start
    u16(0); // internal attributes
    u32(fileAttributes);
    u32(offsets[index] as number);
    bytes(member.name);
  });
  u32(endOfCentralDirectorySignature);
  u16(0); // this disk
  u16(0); // the disk where the central directory starts
  u16(members.length);
  u16(members.length);
  u32(centralBytes);
  u32(centralStart);
  u16(0); // comment length
  return zip;
}

/** The BundleZipper port on node:zlib: the revisions' bundles. */
export const deterministicZipper: BundleZipper = { zip: buildDeterministicZip };
