/**
 * The files received for import kept in PostgreSQL (PgReceivedFiles), on a real server: the storage contract
 * (with parts of 1 MiB and of 4 KiB, so that its files span many), and what only the database's copy does:
 * every node reads it, its parts are written as the bytes come, and the CSV reading and the erasure of a
 * visitor find the same records whatever parts the file is cut in.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { KeptFile } from "../../core/ports/index.ts";
import { deletionOf, seedProfile } from "../../testing/fixtures.ts";
import { erasureProfile, purchasesByEmail } from "../../testing/privacy/privacy.ts";
import { ReceivedCsvRows, readCsvRows } from "../fs/csv-rows.ts";
import { eraseFromImportedFiles } from "../fs/imported-files.eraser.ts";
import { describeReceivedFileStorageContract } from "../store-contract/index.ts";
import { createMemoryStores } from "../store-memory/memory.stores.ts";
import { openPostgresDatabase, type PostgresDatabase } from "./database.ts";
import { PgReceivedFiles } from "./received-files.repo.ts";
import { postgresForTests } from "./test-database.ts";

const pg = postgresForTests();

for (const [label, partSize] of [
  ["postgres", undefined],
  ["postgres, parts of 4 KiB", 4096],
] as const)
  describeReceivedFileStorageContract(label, async () => {
    const { client, db } = await pg.freshDatabase();
    return { storage: new PgReceivedFiles(db, partSize), close: () => client.end() };
  });

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield new TextEncoder().encode(part);
}

async function textOf(files: PgReceivedFiles, file: KeptFile): Promise<string> {
  const read: Buffer[] = [];
  for await (const chunk of files.read(file)) read.push(Buffer.from(chunk));
  return Buffer.concat(read).toString();
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const found: T[] = [];
  for await (const item of items) found.push(item);
  return found;
}

const purchases = (name: string): KeptFile => ({ account: "acme", profile: "main", name });

describe("the received files kept in PostgreSQL", () => {
  const open: PostgresDatabase[] = [];
  async function database(url?: string): Promise<PostgresDatabase> {
    const opened = url ? await openPostgresDatabase(url, 2) : await pg.freshDatabase();
    open.push(opened);
    return opened;
  }
  afterEach(async () => {
    for (const { client } of open.splice(0)) await client.end();
  });

  test("are shared by every node: a file written through one node's pool is read, listed and removed through another's", async () => {
    const url = await pg.freshUrl();
    const [a, b] = [new PgReceivedFiles((await database(url)).db), new PgReceivedFiles((await database(url)).db)];
    expect(a.sharedByNodes).toBe(true);
    await a.write("acme", "main", "purchases_1.csv", chunks("email\nann@example.com\n"));
    expect(await b.holds("acme", "main", "purchases_1.csv")).toBe(true);
    expect(await textOf(b, purchases("purchases_1.csv"))).toBe("email\nann@example.com\n");
    expect(await all(b.everyFile())).toEqual([purchases("purchases_1.csv")]);
    await b.remove("acme", "main", "purchases_1.csv");
    expect(await a.holds("acme", "main", "purchases_1.csv")).toBe(false);
  });

  test("a receipt stores its parts as the bytes come, before the body has ended (nothing holds the whole file)", async () => {
    const { client, db } = await database();
    const files = new PgReceivedFiles(db, 4);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let asked: () => void = () => undefined;
    const waiting = new Promise<void>((resolve) => {
      asked = resolve;
    });
    async function* slow(): AsyncGenerator<Uint8Array> {
      yield new TextEncoder().encode("email\nann\n");
      asked();
      await gate;
      yield new TextEncoder().encode("bob\n");
    }
    const writing = files.write("acme", "main", "purchases_1.csv", slow());
    await waiting;
    const [stored] = await client`select count(*)::int as parts from received_file_chunks`;
    expect(stored?.parts).toBe(2);
    expect(await files.holds("acme", "main", "purchases_1.csv")).toBe(false);
    release();
    expect(await writing).toMatchObject({ ok: true, received: { size: 14, lineCount: 3 } });
    const [after] = await client`select count(*)::int as parts from received_file_chunks`;
    expect(after?.parts).toBe(4);
    expect(await textOf(files, purchases("purchases_1.csv"))).toBe("email\nann\nbob\n");
  });

  test("a copy left by a receipt whose process stopped goes with removePartial, or with the next receipt of its name", async () => {
    const { client, db } = await database();
    const files = new PgReceivedFiles(db);
    const leaveCopy = async (name: string) => {
      const [copy] = await client`insert into received_files (account, profile, name, complete, size, parts)
        values ('acme', 'main', ${name}, false, 0, 0) returning id`;
      await client`insert into received_file_chunks (file_id, part, bytes) values (${copy?.id}, 0, ${Buffer.from("em")})`;
    };
    await leaveCopy("purchases_1.csv");
    await leaveCopy("purchases_2.csv");
    expect(await files.holds("acme", "main", "purchases_1.csv")).toBe(false);
    await files.removePartial("acme", "main", "purchases_1.csv");
    expect(await files.write("acme", "main", "purchases_2.csv", chunks("email\n"))).toMatchObject({ ok: true });
    const copies = await client`select name, complete from received_files order by name`;
    expect(copies.map((row) => [row.name, row.complete])).toEqual([["purchases_2.csv", true]]);
    const [parts] = await client`select count(*)::int as n from received_file_chunks`;
    expect(parts?.n).toBe(1);
  });

  test("[PRV-09] a rewrite that fails part way leaves the original whole and no copy behind", async () => {
    const { client, db } = await database();
    const files = new PgReceivedFiles(db, 4);
    const text = "email\nann\nbob\ncid\n";
    await files.write("acme", "main", "purchases_1.csv", chunks(text));
    await client.unsafe(`
      create function fail_third_part() returns trigger language plpgsql as $$
      begin if new.part >= 2 and (select not complete from received_files where id = new.file_id) then
        raise exception 'disk full'; end if; return new; end $$;
      create trigger fail_third_part before insert on received_file_chunks for each row execute function fail_third_part();`);
    await expect(files.rewriteWithout(purchases("purchases_1.csv"), [[6, 10]])).rejects.toThrow();
    expect(await textOf(files, purchases("purchases_1.csv"))).toBe(text);
    const [copies] = await client`select count(*)::int as n from received_files`;
    expect(copies?.n).toBe(1);
  });

  test("the rows read from parts of a few bytes are those read from the file in one piece (a BOM, a CRLF, quotes)", async () => {
    const { db } = await database();
    const text = '\uFEFFemail,note\r\nann,"one\r\ntwo é"\nbob,"a\nb"\r\n\ncid,x\r';
    const files = new PgReceivedFiles(db, 3);
    await files.write("acme", "main", "notes_1.csv", chunks(text));
    const rows = await all(new ReceivedCsvRows(files).rowsOf(purchases("notes_1.csv"), 1024));
    expect(rows).toEqual(await all(readCsvRows(chunks(text), 1024)));
    expect(rows).toHaveLength(5);
  });

  test("[PRV-09, DEC-PRV-05] erasing a visitor rewrites the database's copy without the visitor's records, once", async () => {
    const { db } = await database();
    const files = new PgReceivedFiles(db, 5);
    const stores = createMemoryStores();
    await seedProfile(stores, erasureProfile([purchasesByEmail]));
    const original =
      '\uFEFFemail,amount\r\nbob@example.com,1\n ann@example.com ,2\r\n"multi\nline é",4\r\nann@example.com,5';
    await files.write("acme", "main", "purchases_1.csv", chunks(original));
    const deletion = deletionOf(5120, "ann@example.com");
    expect(await eraseFromImportedFiles({ stores, files }, deletion)).toEqual({
      importedFiles: 1,
      importedRows: 2,
      importsUnfinished: 0,
    });
    expect(await textOf(files, purchases("purchases_1.csv"))).toBe(
      '\uFEFFemail,amount\r\nbob@example.com,1\n"multi\nline é",4\r\n',
    );
    expect(await eraseFromImportedFiles({ stores, files }, deletion)).toEqual({
      importedFiles: 0,
      importedRows: 0,
      importsUnfinished: 0,
    });
    await stores.close();
  });
});
