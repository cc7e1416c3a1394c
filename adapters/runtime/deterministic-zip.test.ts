import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { ZipEntry } from "../../core/ports/index.ts";
import { readZip } from "../../harness/zip-reader.ts";
import { buildDeterministicZip } from "./deterministic-zip.ts";

const text = (value: string) => new TextEncoder().encode(value);
/** 1980-01-01 00:00:00 as MS-DOS date (high half) and time (low half). */
const dosEpoch = ((0 << 9) | (1 << 5) | 1) << 16;

const entries: ZipEntry[] = [
  { name: "utag.js", bytes: text("window.utag = {};\n".repeat(50)) },
  { name: "utag.1.js", bytes: text("/* tag 1 */") },
  { name: "empty.js", bytes: new Uint8Array(0) },
  { name: "manifest.json", bytes: text('{"revision_id":"201712131954"}\n') },
];

describe("deterministic zip (DEC-REV-02)", () => {
  test("the same entries give the same bytes", async () => {
    const first = await buildDeterministicZip(entries);
    const second = await buildDeterministicZip(
      entries.map((entry) => ({ name: entry.name, bytes: new Uint8Array(entry.bytes) })),
    );
    expect(Buffer.from(first).equals(Buffer.from(second))).toBe(true);
  });

  test("entries keep their order, bytes, the fixed date and mode 0644", async () => {
    const members = readZip(await buildDeterministicZip(entries));
    expect(members.map((member) => member.name)).toEqual(entries.map((entry) => entry.name));
    members.forEach((member, index) => {
      expect(member.bytes).toEqual(entries[index]!.bytes);
      expect(member.dosDateTime).toBe(dosEpoch);
      expect(member.unixMode).toBe(0o644);
    });
    expect(members[0]!.method).toBe(8);
  });

  test("the same bytes in any time zone, even one set while the process runs", async () => {
    const zoneBefore = process.env.TZ;
    try {
      process.env.TZ = "UTC";
      const inUtc = await buildDeterministicZip(entries);
      // Local times of 1980-01-01T00:00Z: 13:45 in Chatham, and 1979-12-31 16:00 in Los Angeles (before any zip date).
      process.env.TZ = "Pacific/Chatham";
      const inChatham = await buildDeterministicZip(entries);
      process.env.TZ = "America/Los_Angeles";
      const inLosAngeles = await buildDeterministicZip(entries);
      expect(Buffer.from(inChatham).equals(Buffer.from(inUtc))).toBe(true);
      expect(Buffer.from(inLosAngeles).equals(Buffer.from(inUtc))).toBe(true);
      expect(readZip(inLosAngeles)[0]!.dosDateTime).toBe(dosEpoch);
    } finally {
      if (zoneBefore === undefined) delete process.env.TZ;
      else process.env.TZ = zoneBefore;
    }
  });

  test("the order is part of the content: reordered entries are another zip", async () => {
    const reordered = [entries[1]!, entries[0]!, ...entries.slice(2)];
    expect(
      Buffer.from(await buildDeterministicZip(reordered)).equals(Buffer.from(await buildDeterministicZip(entries))),
    ).toBe(false);
  });

  test("for any files, building twice gives the same bytes and unzipping gives the files back", async () => {
    const files = fc.uniqueArray(
      fc.record({ name: fc.stringMatching(/^[a-z0-9]{1,12}\.js$/), bytes: fc.uint8Array({ maxLength: 2048 }) }),
      {
        selector: (entry) => entry.name,
        maxLength: 8,
      },
    );
    await fc.assert(
      fc.asyncProperty(files, async (generated) => {
        const first = await buildDeterministicZip(generated);
        const second = await buildDeterministicZip(generated);
        expect(Buffer.from(first).equals(Buffer.from(second))).toBe(true);
        expect(readZip(first).map((member) => [member.name, [...member.bytes]])).toEqual(
          generated.map((entry) => [entry.name, [...entry.bytes]]),
        );
      }),
      { numRuns: 40 },
    );
  });

  test("names are UTF-8, and unzip tools read the names back (bit 11 set)", async () => {
    const zip = await buildDeterministicZip([{ name: "dossier/été ✓.js", bytes: text("é") }]);
    expect(readZip(zip).map((member) => member.name)).toEqual(["dossier/été ✓.js"]);
    // The general purpose flags of the local header, at offset 6: only bit 11.
    expect(new DataView(zip.buffer, zip.byteOffset).getUint16(6, true)).toBe(1 << 11);
  });

  test("as many entries as a zip without Zip64 holds, and no more, before any is compressed", async () => {
    const empty = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ name: `${index}.js`, bytes: new Uint8Array(0) }));
    // 0xFFFF in the count means "see Zip64" (APPNOTE 4.4.22): 65,534 is the most.
    await expect(buildDeterministicZip(empty(0xffff))).rejects.toThrow("65535 entries needs Zip64");
    expect(readZip(await buildDeterministicZip(empty(3)))).toHaveLength(3);
  });

  test("a name longer than the 16-bit length field is refused", async () => {
    await expect(buildDeterministicZip([{ name: "a".repeat(0x10000), bytes: text("x") }])).rejects.toThrow(
      "name of 65536 bytes is longer than a zip holds",
    );
  });
});
