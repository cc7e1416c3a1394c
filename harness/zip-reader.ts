/**
 * A small, careful zip reader for the conformance suite (REV-06, REV-08): no dependency beyond node:zlib,
 * so the suite stays black-box and light. It reads the central directory (the authority on names and
 * sizes, since entries may use data descriptors), checks each local header against it, inflates with a
 * size cap, and verifies every CRC-32. It refuses what it does not need to understand (zip64, encryption,
 * several disks, methods other than store and deflate) and any name that could escape the folder it would
 * be unpacked into (zip-slip): absolute paths, `..` segments, backslashes, drive letters, duplicates.
 */
import { inflateRawSync } from "node:zlib";

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

const crcTable = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n += 1) {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE), as zip uses it. */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (crcTable[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
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

/** Reads every member of a zip held in memory, or throws a ZipFormatError saying what is wrong. */
export function readZip(zip: Uint8Array, limits: ZipReadLimits = defaultLimits): ZipMember[] {
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

  const members: ZipMember[] = [];
  const names = new Set<string>();
  let total = 0;
  let at = directoryOffset;
  for (let index = 0; index < count; index += 1) {
    within(at, 46, `central directory entry ${index}`);
    if (u32(at) !== signatures.centralFile) fail(`central directory entry ${index} has a bad signature`);
    const madeBy = u16(at + 4);
    const flags = u16(at + 8);
    const method = u16(at + 10);
    const dosDateTime = (u16(at + 14) << 16) | u16(at + 12);
    const crc = u32(at + 16);
    const compressedSize = u32(at + 20);
    const size = u32(at + 24);
    const nameLength = u16(at + 28);
    const extraLength = u16(at + 30);
    const commentLength = u16(at + 32);
    const externalAttributes = u32(at + 38);
    const localOffset = u32(at + 42);
    within(at + 46, nameLength + extraLength + commentLength, `central directory entry ${index}`);
    const nameBytes = zip.subarray(at + 46, at + 46 + nameLength);
    // Bit 11: the name is UTF-8; otherwise CP437, of which only ASCII names are accepted here.
    const name = flags & 0x800 ? new TextDecoder("utf-8", { fatal: true }).decode(nameBytes) : asciiName(nameBytes);
    at += 46 + nameLength + extraLength + commentLength;

    if (!isSafeEntryName(name)) fail(`unsafe entry name ${JSON.stringify(name)}`);
    if (names.has(name)) fail(`entry ${JSON.stringify(name)} appears twice`);
    names.add(name);
    if (flags & 0x1) fail(`entry ${JSON.stringify(name)} is encrypted`);
    if (method !== 0 && method !== 8) fail(`entry ${JSON.stringify(name)} uses compression method ${method}`);
    if (size > limits.maxEntryBytes) fail(`entry ${JSON.stringify(name)} is larger than ${limits.maxEntryBytes} bytes`);
    total += size;
    if (total > limits.maxTotalBytes) fail(`the entries hold more than ${limits.maxTotalBytes} bytes`);

    within(localOffset, 30, `the local header of ${JSON.stringify(name)}`);
    if (u32(localOffset) !== signatures.localFile)
      fail(`the local header of ${JSON.stringify(name)} has a bad signature`);
    const localNameLength = u16(localOffset + 26);
    const localExtraLength = u16(localOffset + 28);
    within(localOffset + 30, localNameLength, `the local name of ${JSON.stringify(name)}`);
    if (!sameBytes(zip.subarray(localOffset + 30, localOffset + 30 + localNameLength), nameBytes)) {
      fail(`the local header of ${JSON.stringify(name)} names another file`);
    }
    const dataStart = localOffset + 30 + localNameLength + localExtraLength;
    within(dataStart, compressedSize, `the data of ${JSON.stringify(name)}`);
    if (dataStart + compressedSize > directoryOffset)
      fail(`the data of ${JSON.stringify(name)} runs into the central directory`);
    const stored = zip.subarray(dataStart, dataStart + compressedSize);

    let bytes: Uint8Array;
    if (method === 0) {
      if (compressedSize !== size) fail(`stored entry ${JSON.stringify(name)} has two sizes`);
      bytes = new Uint8Array(stored);
    } else {
      try {
        bytes = new Uint8Array(inflateRawSync(stored, { maxOutputLength: Math.max(size, 1) }));
      } catch (error) {
        fail(
          `entry ${JSON.stringify(name)} does not inflate: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    if (bytes.byteLength !== size)
      fail(`entry ${JSON.stringify(name)} holds ${bytes.byteLength} bytes, the directory says ${size}`);
    if (crc32(bytes) !== crc) fail(`entry ${JSON.stringify(name)} fails its CRC-32 check`);
    const madeOnUnix = madeBy >> 8 === 3;
    members.push({
      name,
      bytes,
      method,
      dosDateTime: dosDateTime >>> 0,
      unixMode: madeOnUnix ? (externalAttributes >>> 16) & 0o7777 : null,
      localHeaderOffset: localOffset,
    });
  }
  if (at !== directoryOffset + directorySize) fail("the central directory size does not match its entries");
  return members;
}

function asciiName(bytes: Uint8Array): string {
  for (const byte of bytes)
    if (byte > 0x7e || byte < 0x20) fail("an entry name is neither UTF-8 (flag 11) nor plain ASCII");
  return String.fromCharCode(...bytes);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && a.every((byte, index) => byte === b[index]);
}
