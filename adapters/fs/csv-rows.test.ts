import { afterEach, describe, expect, test } from "bun:test";
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isRecordTooLarge, isUnreadableCsv, readCsvRecordBytes, readCsvRows } from "./csv-rows.ts";

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function fileOf(text: string): string {
  const directory = mkdtempSync(join(tmpdir(), "svc-hub-csv-rows-"));
  directories.push(directory);
  const path = join(directory, "rows.csv");
  writeFileSync(path, text);
  return path;
}

/** The bytes of `text` in pieces of `size` bytes, as a storage that keeps a file in parts gives them. */
async function* inPieces(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.byteLength; at += size) yield bytes.subarray(at, at + size);
}

async function all<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const found: T[] = [];
  for await (const row of rows) found.push(row);
  return found;
}

describe("reading a received file's rows (DEC-FIL-03)", () => {
  test("each row starts on its line of the file: a quoted CRLF inside a value, mixed line ends, a BOM, empty lines", async () => {
    const path = fileOf('\uFEFFemail,note\r\nann,"one\r\ntwo"\nbob,"a\nb"\r\n\ncid,x\r');
    expect(await all(readCsvRows(createReadStream(path), 1024))).toEqual([
      { fields: ["email", "note"], line: 1 },
      { fields: ["ann", "one\r\ntwo"], line: 2 },
      { fields: ["bob", "a\nb"], line: 4 },
      { fields: [""], line: 6 },
      { fields: ["cid", "x\r"], line: 7 },
    ]);
  });

  test("rows of other lengths than the header and quotes inside unquoted values are read as they are", async () => {
    const path = fileOf('a,b\n1\n1,2,3\nx"y,z\n');
    expect((await all(readCsvRows(createReadStream(path), 1024))).map((row) => row.fields)).toEqual([
      ["a", "b"],
      ["1"],
      ["1", "2", "3"],
      ['x"y', "z"],
    ]);
  });

  test("a record over the limit stops the reading with an error that says so", async () => {
    const path = fileOf(`a,b\n1,2\n${"x".repeat(100)},3\n4,5\n`);
    const error = await all(readCsvRows(createReadStream(path), 50)).catch((caught: unknown) => caught);
    expect(isRecordTooLarge(error)).toBe(true);
    expect(isUnreadableCsv(error)).toBe(true);
    expect(await all(readCsvRows(createReadStream(path), 200))).toHaveLength(4);
  });

  test("a file that is gone is an error of its own, not a CSV one", async () => {
    const error = await all(readCsvRows(createReadStream(join(tmpdir(), "svc-hub-no-such-file.csv")), 1024)).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Error);
    expect(isUnreadableCsv(error)).toBe(false);
    expect(isRecordTooLarge(error)).toBe(false);
  });

  test("the records and their lines are the same whatever pieces the bytes come in (a BOM, a CRLF, a character cut)", async () => {
    const text = '\uFEFFemail,note\r\nann,"one\r\ntwo é"\nbob,"a\nb"\r\n\ncid,x\r';
    const whole = await all(readCsvRows(inPieces(text, text.length * 4), 1024));
    for (const size of [1, 2, 3, 7]) expect(await all(readCsvRows(inPieces(text, size), 1024))).toEqual(whole);
    const ranges = await all(readCsvRecordBytes(inPieces(text, 1024)));
    for (const size of [1, 3]) expect(await all(readCsvRecordBytes(inPieces(text, size)))).toEqual(ranges);
  });

  test("a source that fails part way stops the reading with its own error, not a CSV one", async () => {
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield Buffer.from("a,b\n1,2\n");
      throw new Error("connection lost");
    }
    const error = await all(readCsvRows(failing(), 1024)).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe("connection lost");
    expect(isUnreadableCsv(error)).toBe(false);
  });

  test("the byte ranges of the records cover the file end to end, each with its line end", async () => {
    const text = '\uFEFFemail,note\r\nann,"one\r\ntwo"\nbob,b\n';
    const path = fileOf(text);
    const records = await all(readCsvRecordBytes(createReadStream(path)));
    const bytes = Buffer.from(text);
    expect(records.map((record) => record.fields)).toEqual([
      ["email", "note"],
      ["ann", "one\r\ntwo"],
      ["bob", "b"],
    ]);
    expect(records.map((record) => bytes.subarray(record.start, record.end).toString())).toEqual([
      "\uFEFFemail,note\r\n",
      'ann,"one\r\ntwo"\n',
      "bob,b\n",
    ]);
  });
});
