/**
 * The conformance suite's zip reader (REV-06, REV-08, DEC-REV-02). fflate finds the members and inflates them;
 * the central directory (the authority on names and sizes, since entries may use data descriptors) is read here
 * only for what fflate does not report and the suite checks: each member's order, MS-DOS time, Unix mode,
 * CRC-32, flags and where its local header starts. It refuses what a bundle never needs (zip64, encryption,
 * several disks, methods other than store and deflate), members over the limits before they are inflated, a
 * member whose bytes fail its size or CRC-32, and any name that could escape the folder it would be unpacked into
 * (zip-slip): absolute paths, `..` segments, backslashes, drive letters, duplicates.
 */

import { crc32 } from "node:zlib";
import { unzipSync } from "fflate";

export interface ZipMember {
  readonly name: string;
  readonly bytes: Uint8Array;
  /** 0 stored, 8 deflated. */
  readonly method: number;
  /** The MS-DOS date and time fields as written (date << 16 | time). */
  readonly dosDateTime: number;
  /** Unix permission bits when the entry was made on Unix, else null. */
  readonly unixMode: number | null;
  /** Where the entry's local header starts in the zip (the bytes before it are the entries before it). */
  readonly localHeaderOffset: number;
}

export interface ZipReadLimits {
  readonly maxEntries: number;
  readonly maxEntryBytes: number;
  readonly maxTotalBytes: number;
}

const defaultLimits: ZipReadLimits = {
  maxEntries: 10_000,
  maxEntryBytes: 64 * 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
};

const signatures = { endOfCentralDirectory: 0x06054b50, centralFile: 0x02014b50, localFile: 0x04034b50 } as const;
const endRecordLength = 22;
const maxCommentLength = 0xffff;

/** Why a zip could not be read. */
export class ZipFormatError extends Error {
  override readonly name = "ZipFormatError";
}

function fail(message: string): never {
  throw new ZipFormatError(message);
}

/** Whether `name` is a plain relative path that stays inside the folder it is unpacked into. */
export function isSafeEntryName(name: string): boolean {
  if (name.length === 0 || name.includes("\\") || name.includes("\u0000")) return false;
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return false;
  return name
    .split("/")
    .every(
      (segment, index, all) => segment !== ".." && segment !== "." && (segment !== "" || index === all.length - 1),
    );
}

/** What the central directory says of one member, beyond what fflate reports. */
interface DirectoryEntry {
  readonly name: string;
  readonly method: number;
  readonly crc: number;
  readonly size: number;
  readonly dosDateTime: number;
  readonly unixMode: number | null;
  readonly localHeaderOffset: number;
}

/** Reads every member of a zip held in memory, or throws a ZipFormatError saying what is wrong. */
export function readZip(zip: Uint8Array, limits: ZipReadLimits = defaultLimits): ZipMember[] {
  const entries = readCentralDirectory(zip, limits);
  let unzipped: Record<string, Uint8Array>;
  try {
    unzipped = unzipSync(zip);
  } catch (error) {
    fail(`not a readable zip: ${error instanceof Error ? error.message : String(error)}`);
  }
  return entries.map((entry) => {
    const bytes = unzipped[entry.name] ?? fail(`entry ${JSON.stringify(entry.name)} could not be read`);
    const quoted = JSON.stringify(entry.name);
    // fflate inflates into a buffer of the size the directory gives: a member that inflates to more is cut
    // there, and the CRC-32 tells.
    if (bytes.byteLength !== entry.size)
      fail(`entry ${quoted} holds ${bytes.byteLength} bytes, the directory says ${entry.size}`);
    if (crc32(bytes) !== entry.crc) fail(`entry ${quoted} fails its CRC-32 check`);
    const { name, method, dosDateTime, unixMode, localHeaderOffset } = entry;
    return { name, bytes, method, dosDateTime, unixMode, localHeaderOffset };
  });
}

/** The central directory's entries, in order, each checked (name, method, encryption, limits, local header). */
function readCentralDirectory(zip: Uint8Array, limits: ZipReadLimits): DirectoryEntry[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const u16 = (offset: number) => view.getUint16(offset, true);
  const u32 = (offset: number) => view.getUint32(offset, true);
  const within = (offset: number, length: number, what: string) => {
    if (offset < 0 || length < 0 || offset + length > zip.byteLength) fail(`${what} lies outside the file`);
  };

  if (zip.byteLength < endRecordLength) fail("too short to be a zip");
  let end = -1;
  for (
    let at = zip.byteLength - endRecordLength;
    at >= Math.max(0, zip.byteLength - endRecordLength - maxCommentLength);
    at -= 1
  ) {
    if (u32(at) === signatures.endOfCentralDirectory && at + endRecordLength + u16(at + 20) === zip.byteLength) {
      end = at;
      break;
    }
  }
  if (end < 0) fail("no end of central directory record");
  if (u16(end + 4) !== 0 || u16(end + 6) !== 0) fail("multi-disk zips are not supported");
  const count = u16(end + 10);
  if (count !== u16(end + 8)) fail("entry counts disagree");
  const directorySize = u32(end + 12);
  const directoryOffset = u32(end + 16);
  if (count === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff)
    fail("zip64 is not supported");
  if (count > limits.maxEntries) fail(`more than ${limits.maxEntries} entries`);
  within(directoryOffset, directorySize, "the central directory");
  if (directoryOffset + directorySize > end) fail("the central directory overlaps its end record");

  const entries: DirectoryEntry[] = [];
  const names = new Set<string>();
  let total = 0;
  let at = directoryOffset;
  for (let index = 0; index < count; index += 1) {
    within(at, 46, `central directory entry ${index}`);
    if (u32(at) !== signatures.centralFile) fail(`central directory entry ${index} has a bad signature`);
    const flags = u16(at + 8);
    const method = u16(at + 10);
    const size = u32(at + 24);
    const nameLength = u16(at + 28);
    const localHeaderOffset = u32(at + 42);
    within(at + 46, nameLength + u16(at + 30) + u16(at + 32), `central directory entry ${index}`);
    const nameBytes = zip.subarray(at + 46, at + 46 + nameLength);
    // Bit 11: the name is UTF-8; otherwise CP437, of which only ASCII names are accepted here.
    const name = flags & 0x800 ? new TextDecoder("utf-8", { fatal: true }).decode(nameBytes) : asciiName(nameBytes);
    const quoted = JSON.stringify(name);

    if (!isSafeEntryName(name)) fail(`unsafe entry name ${quoted}`);
    if (names.has(name)) fail(`entry ${quoted} appears twice`);
    names.add(name);
    if (flags & 0x1) fail(`entry ${quoted} is encrypted`);
    if (method !== 0 && method !== 8) fail(`entry ${quoted} uses compression method ${method}`);
    if (size > limits.maxEntryBytes) fail(`entry ${quoted} is larger than ${limits.maxEntryBytes} bytes`);
    total += size;
    if (total > limits.maxTotalBytes) fail(`the entries hold more than ${limits.maxTotalBytes} bytes`);
    within(localHeaderOffset, 30 + nameLength, `the local header of ${quoted}`);
    if (u32(localHeaderOffset) !== signatures.localFile) fail(`the local header of ${quoted} has a bad signature`);
    const localName = zip.subarray(localHeaderOffset + 30, localHeaderOffset + 30 + u16(localHeaderOffset + 26));
    if (!sameBytes(localName, nameBytes)) fail(`the local header of ${quoted} names another file`);

    const madeOnUnix = u16(at + 4) >> 8 === 3;
    entries.push({
      name,
      method,
      crc: u32(at + 16),
      size,
      dosDateTime: ((u16(at + 14) << 16) | u16(at + 12)) >>> 0,
      unixMode: madeOnUnix ? (u32(at + 38) >>> 16) & 0o7777 : null,
      localHeaderOffset,
    });
    at += 46 + nameLength + u16(at + 30) + u16(at + 32);
  }
  if (at !== directoryOffset + directorySize) fail("the central directory size does not match its entries");
  return entries;
}

function asciiName(bytes: Uint8Array): string {
  for (const byte of bytes)
    if (byte > 0x7e || byte < 0x20) fail("an entry name is neither UTF-8 (flag 11) nor plain ASCII");
  return String.fromCharCode(...bytes);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && a.every((byte, index) => byte === b[index]);
}
