/**
 * The storage of the files received for import (ReceivedFileStorage, DEC-FIL-05, PRV-09), run against every
 * implementation: the data directory's files (adapters/fs) and the PostgreSQL database's parts
 * (adapters/store-postgres). What the import and the erasure rely on: the counts of what came, the bytes read
 * back as they were written, a receipt that stops leaving nothing, a rewrite that is all or nothing.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import type { ByteSource, KeptFile, ReceivedFileStorage } from "../../core/ports/index.ts";

/** A storage to test, and how to dispose of it. */
export interface OpenedStorage {
  readonly storage: ReceivedFileStorage;
  close(): Promise<void>;
}

const md5 = (bytes: Uint8Array | string) => createHash("md5").update(bytes).digest("hex");

async function* chunks(...parts: Array<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === "string" ? new TextEncoder().encode(part) : part;
}

/** The bytes of `bytes` in pieces of `size`. */
async function* inPieces(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.byteLength; at += size) yield bytes.subarray(at, at + size);
}

async function bytesOf(source: ByteSource): Promise<Buffer> {
  const read: Buffer[] = [];
  for await (const chunk of source) read.push(Buffer.from(chunk));
  return Buffer.concat(read);
}

async function listed(files: AsyncIterable<KeptFile>): Promise<KeptFile[]> {
  const found: KeptFile[] = [];
  for await (const file of files) found.push(file);
  return found;
}

/** Bytes that differ everywhere (no run a compression would shorten), the same at every run. */
function patterned(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  let state = 0x2545f491;
  for (let at = 0; at < size; at += 1) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[at] = state & 0xff;
  }
  return bytes;
}

const file = (name: string, account = "acme", profile = "main"): KeptFile => ({ account, profile, name });

export function describeReceivedFileStorageContract(name: string, open: () => Promise<OpenedStorage>): void {
  describe(`${name}: the files received for import (DEC-FIL-05, PRV-09)`, () => {
    let opened: OpenedStorage;
    let storage: ReceivedFileStorage;
    beforeEach(async () => {
      opened = await open();
      storage = opened.storage;
    });
    afterEach(async () => {
      await opened.close();
    });

    test("a file is kept with its size, MD5 and lines counted (a last line without its end counts), and reads back as written", async () => {
      const written = await storage.write("acme", "main", "a.csv", chunks("x,y\n1,", "2\n3,4"));
      expect(written).toEqual({ ok: true, received: { size: 11, checksum: md5("x,y\n1,2\n3,4"), lineCount: 3 } });
      expect((await bytesOf(storage.read(file("a.csv")))).toString()).toBe("x,y\n1,2\n3,4");
      expect(await storage.holds("acme", "main", "a.csv")).toBe(true);
      expect(await storage.holds("acme", "dev", "a.csv")).toBe(false);
    });

    test("a file of no bytes is kept, empty, with the MD5 of nothing", async () => {
      expect(storage.checksumOfNothing).toBe(md5(""));
      expect(await storage.write("acme", "main", "b.csv", null)).toEqual({
        ok: true,
        received: { size: 0, checksum: storage.checksumOfNothing, lineCount: 0 },
      });
      expect(await storage.write("acme", "main", "c.csv", chunks("", ""))).toMatchObject({ ok: true });
      expect(await storage.holds("acme", "main", "b.csv")).toBe(true);
      expect(await bytesOf(storage.read(file("b.csv")))).toHaveLength(0);
      expect(await bytesOf(storage.read(file("c.csv")))).toHaveLength(0);
    });

    test("a file of several MiB in pieces of any size reads back byte for byte, in order", async () => {
      const bytes = patterned(3 * 1024 * 1024 + 17);
      const written = await storage.write("acme", "main", "big.csv", inPieces(bytes, 65_521));
      expect(written).toMatchObject({ ok: true, received: { size: bytes.byteLength, checksum: md5(bytes) } });
      expect((await bytesOf(storage.read(file("big.csv")))).equals(bytes)).toBe(true);
    });

    test("a source that breaks part way counts what came, keeps nothing, and the name can be written again", async () => {
      async function* breaksOff(): AsyncGenerator<Uint8Array> {
        yield new TextEncoder().encode("x,y\n");
        throw new Error("connection reset");
      }
      expect(await storage.write("acme", "main", "a.csv", breaksOff())).toEqual({
        ok: false,
        error: "Error: connection reset",
        received: { size: 4, checksum: md5("x,y\n"), lineCount: 1 },
      });
      expect(await storage.holds("acme", "main", "a.csv")).toBe(false);
      expect(await storage.namesIn("acme", "main")).toEqual([]);
      expect(await listed(storage.everyFile())).toEqual([]);
      await storage.removePartial("acme", "main", "a.csv");
      expect(await storage.write("acme", "main", "a.csv", chunks("x,y\n1,2\n"))).toMatchObject({ ok: true });
      expect((await bytesOf(storage.read(file("a.csv")))).toString()).toBe("x,y\n1,2\n");
    });

    test("a file written again under its name replaces it once whole; one that breaks off leaves the kept one", async () => {
      await storage.write("acme", "main", "a.csv", chunks("first\n"));
      async function* breaksOff(): AsyncGenerator<Uint8Array> {
        yield new TextEncoder().encode("second\n");
        throw new Error("connection reset");
      }
      expect(await storage.write("acme", "main", "a.csv", breaksOff())).toMatchObject({ ok: false });
      expect((await bytesOf(storage.read(file("a.csv")))).toString()).toBe("first\n");
      expect(await storage.write("acme", "main", "a.csv", chunks("third\n"))).toMatchObject({ ok: true });
      expect((await bytesOf(storage.read(file("a.csv")))).toString()).toBe("third\n");
      expect(await storage.namesIn("acme", "main")).toEqual(["a.csv"]);
    });

    test("removePartial removes a receipt's copy while it is written: that receipt fails, and nothing is kept", async () => {
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let firstTaken: () => void = () => undefined;
      const taken = new Promise<void>((resolve) => {
        firstTaken = resolve;
      });
      async function* slow(): AsyncGenerator<Uint8Array> {
        yield new TextEncoder().encode("x,y\n1,2\n");
        firstTaken();
        await gate;
        yield new TextEncoder().encode("3,4\n");
      }
      const writing = storage.write("acme", "main", "a.csv", slow());
      await taken;
      expect(await storage.holds("acme", "main", "a.csv")).toBe(false);
      await storage.removePartial("acme", "main", "a.csv");
      release();
      expect(await writing).toMatchObject({ ok: false, received: { size: 12, lineCount: 3 } });
      expect(await storage.holds("acme", "main", "a.csv")).toBe(false);
      expect(await listed(storage.everyFile())).toEqual([]);
    });

    test("remove removes a kept file, and a name not kept is no error", async () => {
      await storage.write("acme", "main", "a.csv", chunks("x\n"));
      await storage.write("acme", "main", "b.csv", chunks("y\n"));
      await storage.remove("acme", "main", "a.csv");
      await storage.remove("acme", "main", "a.csv");
      await storage.remove("acme", "main", "never.csv");
      expect(await storage.holds("acme", "main", "a.csv")).toBe(false);
      expect(await storage.namesIn("acme", "main")).toEqual(["b.csv"]);
    });

    test("reading a file that is not kept fails as it is read", async () => {
      await expect(bytesOf(storage.read(file("gone.csv")))).rejects.toThrow();
    });

    test("every kept file is listed profile by profile, the names of each sorted by code unit", async () => {
      for (const [account, profile, fileName] of [
        ["beta", "dev", "z.csv"],
        ["acme", "main", "b.csv"],
        ["acme", "main", "B.csv"],
        ["acme", "main", "a_1.csv"],
        ["acme", "dev", "c.csv"],
      ] as const)
        await storage.write(account, profile, fileName, chunks("x\n"));
      expect(await storage.namesIn("acme", "main")).toEqual(["B.csv", "a_1.csv", "b.csv"]);
      expect(await storage.namesIn("acme", "none")).toEqual([]);
      expect(await listed(storage.everyFile())).toEqual([
        file("c.csv", "acme", "dev"),
        file("B.csv"),
        file("a_1.csv"),
        file("b.csv"),
        file("z.csv", "beta", "dev"),
      ]);
    });

    test("eraseAll removes every file and says how many went", async () => {
      await storage.write("acme", "main", "a.csv", chunks("x\n"));
      await storage.write("acme", "main", "b.csv", null);
      await storage.write("beta", "dev", "c.csv", chunks("y\n"));
      expect(await storage.eraseAll()).toBe(3);
      expect(await listed(storage.everyFile())).toEqual([]);
      expect(await storage.holds("acme", "main", "a.csv")).toBe(false);
      expect(await storage.eraseAll()).toBe(0);
      expect(await storage.write("acme", "main", "a.csv", chunks("z\n"))).toMatchObject({ ok: true });
    });

    test("[PRV-09] rewriteWithout keeps exactly the bytes outside the ranges, and leaves the other files alone", async () => {
      const text = "email,amount\nann@example.com,1\nbob@example.com,2\r\nann@example.com,3\ncid@example.com,4";
      await storage.write("acme", "main", "purchases_1.csv", chunks(text));
      await storage.write("acme", "main", "purchases_2.csv", chunks(text));
      const first = text.indexOf("ann");
      const second = text.lastIndexOf("ann");
      const end = (from: number) => text.indexOf("\n", from) + 1;
      await storage.rewriteWithout(file("purchases_1.csv"), [
        [first, end(first)],
        [second, end(second)],
      ]);
      expect((await bytesOf(storage.read(file("purchases_1.csv")))).toString()).toBe(
        "email,amount\nbob@example.com,2\r\ncid@example.com,4",
      );
      expect((await bytesOf(storage.read(file("purchases_2.csv")))).toString()).toBe(text);
      expect(await storage.namesIn("acme", "main")).toEqual(["purchases_1.csv", "purchases_2.csv"]);

      await storage.rewriteWithout(file("purchases_2.csv"), []);
      expect((await bytesOf(storage.read(file("purchases_2.csv")))).toString()).toBe(text);
      await storage.rewriteWithout(file("purchases_2.csv"), [[0, Buffer.byteLength(text)]]);
      expect(await bytesOf(storage.read(file("purchases_2.csv")))).toHaveLength(0);
    });

    test("[PRV-09] a rewrite of a file of several MiB keeps the bytes around ranges at any place, the last included", async () => {
      const bytes = patterned(2 * 1024 * 1024 + 100);
      await storage.write("acme", "main", "big.csv", inPieces(bytes, 1 << 20));
      const ranges = [
        [0, 3],
        [1024 * 1024 - 5, 1024 * 1024 + 5],
        [1024 * 1024 + 9, 1024 * 1024 + 10],
        [bytes.byteLength - 50, bytes.byteLength],
      ] as const;
      await storage.rewriteWithout(file("big.csv"), ranges);
      const kept = Buffer.concat([
        bytes.subarray(3, 1024 * 1024 - 5),
        bytes.subarray(1024 * 1024 + 5, 1024 * 1024 + 9),
        bytes.subarray(1024 * 1024 + 10, bytes.byteLength - 50),
      ]);
      expect((await bytesOf(storage.read(file("big.csv")))).equals(kept)).toBe(true);
    });

    test("[PRV-09] rewriting a file that is not kept fails and keeps nothing", async () => {
      await expect(storage.rewriteWithout(file("gone.csv"), [[0, 1]])).rejects.toThrow();
      expect(await storage.holds("acme", "main", "gone.csv")).toBe(false);
      expect(await listed(storage.everyFile())).toEqual([]);
    });
  });
}
