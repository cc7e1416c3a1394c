import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FileStatusRecord, ReceiveDropped } from "../../core/ports/index.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import { DropFolders, type DropFoldersDeps } from "./drop-folder.ts";

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A data directory with the drop folder of acme/main, and drop folders on it that find no import in the store. */
function setUp(): { folder: string; dropFolders: (options?: Partial<DropFoldersDeps>) => DropFolders } {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-drop-"));
  directories.push(dataDir);
  const folder = join(dataDir, "inbox", "acme", "main");
  mkdirSync(folder, { recursive: true });
  const dropFolders = (options: Partial<DropFoldersDeps> = {}) =>
    new DropFolders({
      dataDir,
      files: { find: async (): Promise<FileStatusRecord | null> => null },
      logger: createMemoryLogger(),
      dropSettleMs: 0,
      ...options,
    });
  return { folder, dropFolders };
}

/** Receives every file, reading its bytes, and keeps what it read by name. */
function storing(read: Map<string, string>): ReceiveDropped {
  return async (_account, _profile, name, bytes) => {
    const chunks: Uint8Array[] = [];
    for await (const chunk of bytes) chunks.push(chunk);
    read.set(name, Buffer.concat(chunks).toString());
    return { stored: true };
  };
}

describe("the drop folders (DEC-OPS-04)", () => {
  test("a stored file's claim goes; a refused one is kept in rejected/, under a name of its own there", async () => {
    const { folder, dropFolders } = setUp();
    const drop = dropFolders();
    writeFileSync(join(folder, "purchases_1.csv"), "one");
    const read = new Map<string, string>();
    expect(await drop.pickUp(storing(read))).toBe(1);
    expect(read).toEqual(new Map([["purchases_1.csv", "one"]]));
    expect(readdirSync(folder)).toEqual([]);

    const refuse: ReceiveDropped = async () => ({ stored: false, reason: "a name already imported" });
    writeFileSync(join(folder, "purchases_1.csv"), "two");
    expect(await drop.pickUp(refuse)).toBe(1);
    writeFileSync(join(folder, "purchases_1.csv"), "three");
    expect(await drop.pickUp(refuse)).toBe(1);
    expect(readdirSync(folder)).toEqual(["rejected"]);
    expect(readdirSync(join(folder, "rejected")).sort()).toEqual(["purchases_1.csv", "purchases_1~2.csv"]);
    expect(readFileSync(join(folder, "rejected", "purchases_1~2.csv"), "utf8")).toBe("three");
  });

  test("two drop folders of one process share nothing: a failed receipt's claim is given back by its own only", async () => {
    const { folder, dropFolders } = setUp();
    const first = dropFolders();
    const second = dropFolders();
    writeFileSync(join(folder, "purchases_2.csv"), "two");
    const failing: ReceiveDropped = async () => {
      throw new Error("SQLITE_BUSY: database is locked");
    };
    await expect(first.pickUp(failing)).rejects.toThrow("SQLITE_BUSY");
    const claims = readdirSync(folder);
    expect(claims).toHaveLength(1);
    expect(claims[0]).toStartWith(`.importing.${process.pid}.`);

    // To the second, the claim is one of another receiver that may still read it: left until claimGiveBackMs.
    const read = new Map<string, string>();
    expect(await second.pickUp(storing(read))).toBe(0);
    expect(readdirSync(folder)).toEqual(claims);
    // The first gives its own back, as nothing imports the name, and takes it again.
    expect(await first.pickUp(storing(read))).toBe(1);
    expect(read).toEqual(new Map([["purchases_2.csv", "two"]]));
    expect(readdirSync(folder)).toEqual([]);
  });

  test("what one drop folder saw settling is its own: another has seen nothing, and forgetting forgets only its own", async () => {
    const { folder, dropFolders } = setUp();
    let clock = 1_000_000;
    const settling = { dropSettleMs: 2_000, settleClock: () => clock };
    const first = dropFolders(settling);
    const second = dropFolders(settling);
    writeFileSync(join(folder, "purchases_3.csv"), "three");
    const read = new Map<string, string>();
    expect(await first.pickUp(storing(read))).toBe(0);
    clock += 500;
    expect(first.untilSettled()).toBe(1_500);
    expect(second.untilSettled()).toBeNull();
    expect(await second.pickUp(storing(read))).toBe(0);
    expect(second.untilSettled()).toBe(2_000);
    second.forget();
    expect(second.untilSettled()).toBeNull();
    expect(first.untilSettled()).toBe(1_500);
    clock += 1_500;
    expect(first.untilSettled()).toBe(0);
    expect(await first.pickUp(storing(read))).toBe(1);
    expect(read.get("purchases_3.csv")).toBe("three");
  });
});
