import { afterEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { md5Of, md5OfNothing, ReceivedFiles } from "./received-files.ts";

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function dataDir(): string {
  const directory = mkdtempSync(join(tmpdir(), "svc-hub-received-"));
  directories.push(directory);
  return directory;
}

async function* chunks(...parts: string[]): AsyncIterable<Uint8Array> {
  for (const part of parts) yield new TextEncoder().encode(part);
}

const md5 = (text: string) => createHash("md5").update(text).digest("hex");

describe("the received files kept on disk (DEC-FIL-05)", () => {
  test("a file is written where it is kept, with its size, MD5 and lines counted (a last line without its end counts)", async () => {
    const files = new ReceivedFiles(dataDir());
    const written = await files.write("acme", "main", "a.csv", chunks("x,y\n1,", "2\n3,4"));
    expect(written).toEqual({ ok: true, received: { size: 11, checksum: md5("x,y\n1,2\n3,4"), lineCount: 3 } });
    expect(readFileSync(files.pathOf("acme", "main", "a.csv"), "utf8")).toBe("x,y\n1,2\n3,4");
    expect(await md5Of(files.pathOf("acme", "main", "a.csv"))).toBe(md5("x,y\n1,2\n3,4"));
    expect(await files.holds("acme", "main", "a.csv")).toBe(true);
    expect(await files.write("acme", "main", "b.csv", null)).toEqual({
      ok: true,
      received: { size: 0, checksum: md5OfNothing, lineCount: 0 },
    });
  });

  test("a source that breaks part way counts what came, and leaves neither the file nor its partial copy", async () => {
    const files = new ReceivedFiles(dataDir());
    async function* breaksOff(): AsyncIterable<Uint8Array> {
      yield new TextEncoder().encode("x,y\n");
      throw new Error("connection reset");
    }
    expect(await files.write("acme", "main", "a.csv", breaksOff())).toEqual({
      ok: false,
      error: "Error: connection reset",
      received: { size: 4, checksum: md5("x,y\n"), lineCount: 1 },
    });
    expect(readdirSync(files.folderOf("acme", "main"))).toEqual([]);
    expect(await files.holds("acme", "main", "a.csv")).toBe(false);
    expect(await md5Of(files.pathOf("acme", "main", "a.csv"))).toBeNull();
  });

  test("only .csv files not starting with a period are kept files; every profile's are listed, sorted", async () => {
    const root = dataDir();
    const files = new ReceivedFiles(root);
    const folder = files.folderOf("acme", "main");
    mkdirSync(folder, { recursive: true });
    mkdirSync(files.folderOf("beta", "dev"), { recursive: true });
    for (const name of ["b.csv", "a.csv", "c.csv.part", ".d.erasing", "notes.txt"])
      writeFileSync(join(folder, name), "");
    mkdirSync(join(folder, "e.csv"));
    writeFileSync(files.pathOf("beta", "dev", "z.csv"), "");
    expect(files.namesIn("acme", "main")).toEqual(["a.csv", "b.csv"]);
    expect(files.namesIn("acme", "none")).toEqual([]);
    expect([...files.everyFile()]).toEqual([
      { account: "acme", profile: "main", name: "a.csv" },
      { account: "acme", profile: "main", name: "b.csv" },
      { account: "beta", profile: "dev", name: "z.csv" },
    ]);

    await files.remove("acme", "main", "a.csv");
    await files.remove("acme", "main", "a.csv");
    await files.removePartial("acme", "main", "c.csv");
    expect(readdirSync(folder).sort()).toEqual([".d.erasing", "b.csv", "e.csv", "notes.txt"]);
    // Every file, the folders' own files too, and none of the folders counted.
    expect(await files.eraseAll()).toEqual(4);
    expect(readdirSync(join(root, "files"))).toEqual([]);
    expect(existsSync(join(root, "files"))).toBe(true);
  });
});
