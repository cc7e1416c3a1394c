/**
 * The conformance suite's zip reader (REV-06, REV-08, DEC-REV-02) on real zips: as archiver, the zip writer most
 * Node services use, writes them (deflate, a data descriptor after each member, the sizes only in the central
 * directory, as svc-hub's server writes its bundles too), as fflate's zipSync writes them (stored and deflated,
 * sizes in the local headers), and hand-made ones for what no zip writer
 * writes on purpose (escaping names, a wrong CRC-32, duplicates, encryption).
 */
import { describe, expect, test } from "bun:test";
import { crc32, deflateRawSync } from "node:zlib";
import { ZipArchive } from "archiver";
import { zipSync } from "fflate";
import { isSafeEntryName, readZip, ZipFormatError } from "./zip-reader.ts";

const text = (value: string) => new TextEncoder().encode(value);
/** 1980-01-01 00:00:00 as an MS-DOS date (high half) and time (low half). */
const dosEpoch = ((0 << 9) | (1 << 5) | 1) << 16;
/** Bit 3 of a local header's flags: the CRC-32 and sizes follow the data, in a data descriptor. */
const dataDescriptorFlag = 0x8;

/** A zip as a Node service makes it with archiver: deflate level 9, a fixed date, mode 0644. */
function archiverZip(files: ReadonlyArray<{ name: string; bytes: Uint8Array }>): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const archive = new ZipArchive({ zlib: { level: 9 }, forceLocalTime: false });
    const chunks: Buffer[] = [];
    archive.on("data", (chunk: Buffer) => chunks.push(chunk));
    archive.on("error", reject);
    archive.on("end", () => resolve(new Uint8Array(Buffer.concat(chunks))));
    for (const file of files)
      archive.append(Buffer.from(file.bytes), { name: file.name, date: new Date(Date.UTC(1980, 0, 1)), mode: 0o644 });
    archive.finalize().catch(reject);
  });
}

/** A minimal zip written by hand, so that the reader can be shown names and fields zip writers never write. */
function handMadeZip(
  files: Array<{ name: string; bytes: Uint8Array; deflate?: boolean; crc?: number; flags?: number }>,
): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const file of files) {
    const name = Buffer.from(file.name, "utf8");
    const data = file.deflate ? deflateRawSync(file.bytes) : Buffer.from(file.bytes);
    const crc = file.crc ?? crc32(file.bytes);
    const flags = file.flags ?? 0x800;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(file.deflate ? 8 : 0, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(file.bytes.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(file.deflate ? 8 : 0, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(file.bytes.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += 30 + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}

function refusal(zip: Uint8Array, limits?: Parameters<typeof readZip>[1]): string {
  try {
    readZip(zip, limits);
  } catch (error) {
    expect(error).toBeInstanceOf(ZipFormatError);
    return (error as Error).message;
  }
  throw new Error("expected the zip to be refused");
}

describe("zip reader", () => {
  test("reads a zip as archiver writes it: deflate, data descriptors", async () => {
    const loader = text("window.utag = {};\n".repeat(200));
    const zip = await archiverZip([
      { name: "utag.js", bytes: loader },
      { name: "utag.1.js", bytes: text("/* tag 1 */") },
      { name: "empty.js", bytes: new Uint8Array(0) },
    ]);
    // The fixture is what it claims: the first member is deflated and its sizes are left to a data descriptor.
    const local = new DataView(zip.buffer, zip.byteOffset);
    expect(local.getUint16(6, true) & dataDescriptorFlag).toBe(dataDescriptorFlag);
    expect([local.getUint16(8, true), local.getUint32(18, true), local.getUint32(22, true)]).toEqual([8, 0, 0]);

    const members = readZip(zip);
    expect(members.map((member) => [member.name, member.method, member.dosDateTime, member.unixMode])).toEqual([
      ["utag.js", 8, dosEpoch, 0o644],
      ["utag.1.js", 8, dosEpoch, 0o644],
      ["empty.js", 0, dosEpoch, 0o644],
    ]);
    expect(members.map((member) => member.bytes)).toEqual([loader, text("/* tag 1 */"), new Uint8Array(0)]);
    // DEC-REV-02's scenario compares the bytes before manifest.json: each offset is where a local header starts.
    expect(members[0]?.localHeaderOffset).toBe(0);
    for (const member of members) expect(local.getUint32(member.localHeaderOffset, true)).toBe(0x04034b50);
  });

  test("reads stored and deflated members with their sizes in the local headers (fflate's zipSync)", () => {
    const zip = zipSync({
      "stored.js": [text("kept as it is"), { level: 0 }],
      "deflated.js": [text("z".repeat(4000)), { level: 9 }],
      "dir/inner.js": text("inner"),
    });
    expect(readZip(zip).map((member) => [member.name, member.method, new TextDecoder().decode(member.bytes)])).toEqual([
      ["stored.js", 0, "kept as it is"],
      ["deflated.js", 8, "z".repeat(4000)],
      ["dir/inner.js", 8, "inner"],
    ]);
  });

  test("refuses names that would escape the folder (zip-slip)", () => {
    for (const name of [
      "../evil.js",
      "a/../../evil.js",
      "/etc/passwd",
      "C:/x.js",
      "a\\..\\b.js",
      "./x.js",
      "a//b.js",
      "",
    ]) {
      expect(isSafeEntryName(name)).toBe(false);
      expect(refusal(handMadeZip([{ name, bytes: text("x") }]))).toContain("unsafe entry name");
    }
    expect(isSafeEntryName("dir/file.js")).toBe(true);
    expect(isSafeEntryName("dir/")).toBe(true);
  });

  test("refuses a wrong CRC-32, duplicates, encryption, truncation and garbage", () => {
    expect(refusal(handMadeZip([{ name: "a.js", bytes: text("hello"), crc: 1 }]))).toContain("CRC-32");
    expect(refusal(handMadeZip([{ name: "a.js", bytes: text("hello"), deflate: true, crc: 1 }]))).toContain("CRC-32");
    expect(
      refusal(
        handMadeZip([
          { name: "a.js", bytes: text("x") },
          { name: "a.js", bytes: text("y") },
        ]),
      ),
    ).toContain("twice");
    expect(refusal(handMadeZip([{ name: "a.js", bytes: text("x"), flags: 0x801 }]))).toContain("encrypted");
    const good = handMadeZip([{ name: "a.js", bytes: text("hello"), deflate: true }]);
    expect(refusal(good.subarray(0, good.byteLength - 5))).toContain("end of central directory");
    expect(refusal(text("not a zip at all, just some text that is long enough"))).toContain("end of central directory");
    expect(refusal(new Uint8Array(3))).toContain("too short");
  });

  test("refuses members over the limits before inflating them", async () => {
    const zip = await archiverZip([
      { name: "a.js", bytes: text("a".repeat(5000)) },
      { name: "b.js", bytes: text("b".repeat(5000)) },
    ]);
    const limits = { maxEntries: 10, maxEntryBytes: 1_000_000, maxTotalBytes: 1_000_000 };
    expect(refusal(zip, { ...limits, maxEntryBytes: 4999 })).toContain("larger than 4999 bytes");
    expect(refusal(zip, { ...limits, maxTotalBytes: 9999 })).toContain("more than 9999 bytes");
    expect(refusal(zip, { ...limits, maxEntries: 1 })).toContain("more than 1 entries");
    expect(readZip(zip, limits)).toHaveLength(2);
  });
});
