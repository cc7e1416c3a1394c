import { afterEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeReceivedFileStorageContract } from "../store-contract/index.ts";
import { md5Of, ReceivedFiles } from "./received-files.ts";

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

describeReceivedFileStorageContract("data directory", async () => {
  const directory = mkdtempSync(join(tmpdir(), "svc-hub-received-"));
  return {
    storage: new ReceivedFiles(directory),
    close: async () => rmSync(directory, { recursive: true, force: true }),
  };
});

describe("the received files kept on disk (DEC-FIL-05)", () => {
  test("are each node's own, under files/{account}/{profile}/{name}", async () => {
    const files = new ReceivedFiles(dataDir());
    expect(files.sharedByNodes).toBe(false);
    await files.write("acme", "main", "a.csv", chunks("x,y\n1,", "2\n3,4"));
    expect(readFileSync(files.pathOf("acme", "main", "a.csv"), "utf8")).toBe("x,y\n1,2\n3,4");
    expect(await md5Of(files.pathOf("acme", "main", "a.csv"))).toBe(md5("x,y\n1,2\n3,4"));
  });

  test("a source that breaks part way leaves neither the file nor its partial copy in the folder", async () => {
    const files = new ReceivedFiles(dataDir());
    async function* breaksOff(): AsyncIterable<Uint8Array> {
      yield new TextEncoder().encode("x,y\n");
      throw new Error("connection reset");
    }
    expect(await files.write("acme", "main", "a.csv", breaksOff())).toMatchObject({ ok: false });
    expect(readdirSync(files.folderOf("acme", "main"))).toEqual([]);
    expect(await md5Of(files.pathOf("acme", "main", "a.csv"))).toBeNull();
  });

  test("only .csv files not starting with a period are kept files; eraseAll counts every file of the folders", async () => {
    const root = dataDir();
    const files = new ReceivedFiles(root);
    const folder = files.folderOf("acme", "main");
    mkdirSync(folder, { recursive: true });
    mkdirSync(files.folderOf("beta", "dev"), { recursive: true });
    for (const name of ["b.csv", "a.csv", "c.csv.part", ".d.erasing", "notes.txt"])
      writeFileSync(join(folder, name), "");
    mkdirSync(join(folder, "e.csv"));
    writeFileSync(files.pathOf("beta", "dev", "z.csv"), "");
    expect(await files.namesIn("acme", "main")).toEqual(["a.csv", "b.csv"]);

    await files.remove("acme", "main", "a.csv");
    await files.removePartial("acme", "main", "c.csv");
    expect(readdirSync(folder).sort()).toEqual([".d.erasing", "b.csv", "e.csv", "notes.txt"]);
    // Every file, the folders' own files too, and none of the folders counted.
    expect(await files.eraseAll()).toEqual(4);
    expect(readdirSync(join(root, "files"))).toEqual([]);
    expect(existsSync(join(root, "files"))).toBe(true);
  });

  test("[PRV-09] a rewrite removes the copies a crashed rewrite left in the folder, and leaves none of its own", async () => {
    const files = new ReceivedFiles(dataDir());
    await files.write("acme", "main", "a.csv", chunks("email\nann\nbob\n"));
    const folder = files.folderOf("acme", "main");
    writeFileSync(join(folder, ".0a1b2c3d4e5f.erasing"), "email\nbob\n");
    await files.rewriteWithout({ account: "acme", profile: "main", name: "a.csv" }, [[6, 10]]);
    expect(readdirSync(folder)).toEqual(["a.csv"]);
    expect(readFileSync(join(folder, "a.csv"), "utf8")).toBe("email\nbob\n");
  });
});
