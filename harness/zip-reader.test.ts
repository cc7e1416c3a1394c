import { describe, expect, test } from "bun:test";
import { deflateRawSync } from "node:zlib";
import { buildDeterministicZip } from "../adapters/runtime/deterministic-zip.ts";
import { crc32, isSafeEntryName, readZip, ZipFormatError } from "./zip-reader.ts";

const text = (value: string) => new TextEncoder().encode(value);

/** A minimal zip written by hand, so that the reader can be shown names and fields archiver never writes. */
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

function refusal(zip: Uint8Array): string {
  try {
    readZip(zip);
  } catch (error) {
    expect(error).toBeInstanceOf(ZipFormatError);
    return (error as Error).message;
  }
  throw new Error("expected the zip to be refused");
}

describe("zip reader", () => {
  test("reads stored and deflated members, with data descriptors, as archiver writes them", async () => {
    const zip = await buildDeterministicZip([
      { name: "utag.js", bytes: text("a".repeat(1000)) },
      { name: "empty.js", bytes: new Uint8Array(0) },
    ]);
    expect(readZip(zip).map((member) => [member.name, member.bytes.byteLength, member.method])).toEqual([
      ["utag.js", 1000, 8],
      ["empty.js", 0, 0],
    ]);
    expect(
      readZip(
        handMadeZip([
          { name: "a.js", bytes: text("hello"), deflate: true },
          { name: "b.js", bytes: text("x") },
        ]),
      )[0]!.bytes,
    ).toEqual(text("hello"));
  });

  test("computes CRC-32 like zlib", () => {
    expect(crc32(text("hello"))).toBe(0x3610a686);
    expect(crc32(new Uint8Array(0))).toBe(0);
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

  test("refuses a wrong CRC, duplicates, encryption, truncation and garbage", () => {
    expect(refusal(handMadeZip([{ name: "a.js", bytes: text("hello"), crc: 1 }]))).toContain("CRC-32");
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
});
