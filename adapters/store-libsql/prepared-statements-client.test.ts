import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Client,
  createClient,
  type InStatement,
  LibsqlBatchError,
  LibsqlError,
  type ResultSet,
} from "@libsql/client";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { PreparedStatementsClient } from "./prepared-statements-client.ts";

/*
 * Our client of a database file keeps its statements prepared (issue 12, bench/FINDINGS.md). Drizzle and the
 * repositories were written against @libsql/client: every answer and every error here is held to what that
 * client gives for the same statements on a file of its own.
 */

const directories: string[] = [];
const opened: Client[] = [];

afterEach(() => {
  for (const client of opened.splice(0)) client.close();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function freshPath(): string {
  const directory = mkdtempSync(join(tmpdir(), "svc-hub-prepared-statements-"));
  directories.push(directory);
  return join(directory, "test.db");
}

/** Ours and @libsql/client's, each on a fresh file. */
function bothClients(): { ours: Client; theirs: Client } {
  const ours = new PreparedStatementsClient(freshPath(), 1000);
  const theirs = createClient({ url: `file:${freshPath()}`, concurrency: 1, timeout: 1000 });
  opened.push(ours, theirs);
  return { ours, theirs };
}

/** What a caller can see of a result: its rows as drizzle reads them (keys, indexes, length), and the rest. */
function seen(result: ResultSet) {
  return {
    columns: result.columns,
    columnTypes: result.columnTypes,
    rowsAffected: result.rowsAffected,
    lastInsertRowid: result.lastInsertRowid,
    rows: result.rows.map((row) => ({
      keys: Object.keys(row),
      values: Object.values(row),
      indexed: Array.prototype.slice.call(row),
      length: row.length,
    })),
    json: result.toJSON(),
  };
}

/** The outcome of a call: what it answered, or its error's class, message and codes. */
async function outcome(call: () => Promise<ResultSet | ResultSet[]>) {
  try {
    const result = await call();
    return { ok: Array.isArray(result) ? result.map(seen) : seen(result) };
  } catch (error) {
    const { name, message, code, extendedCode, rawCode, statementIndex } = error as LibsqlBatchError;
    return {
      error: { type: (error as object).constructor.name, name, message, code, extendedCode, rawCode, statementIndex },
    };
  }
}

const schema: InStatement[] = [
  "create table t (id integer primary key, name text not null unique, score real, blob blob, big integer, flag integer)",
  "create index t_score on t (score)",
];

describe("PreparedStatementsClient answers as @libsql/client does", () => {
  test("execute: rows with names and indexes, types, affected rows, inserted rowids, blobs, booleans and dates", async () => {
    const { ours, theirs } = bothClients();
    const statements: InStatement[] = [
      ...schema,
      {
        sql: "insert into t (name, score, blob, big, flag) values (?, ?, ?, ?, ?)",
        args: ["ann", 1.5, new Uint8Array([1, 2, 3]).buffer, 9007199254740991n, true],
      },
      {
        sql: "insert into t (name, score, blob, big, flag) values (:name, :score, null, $big, @flag)",
        args: { name: "bob", score: 2, big: 3, flag: false },
      },
      { sql: "insert into t (name, score, big) values (?, ?, ?)", args: ["cy", null, new Date(5000)] },
      "select * from t order by id",
      "select id, name as id, name, score as length, 1 as '0' from t order by id",
      { sql: "select name from t where score > ?", args: [1] },
      "update t set score = score + 1",
      "delete from t where name = 'nobody'",
      "select count(*) as n, sum(score) from t",
    ];
    for (const statement of statements) {
      expect(await outcome(() => ours.execute(statement))).toEqual(await outcome(() => theirs.execute(statement)));
      // The second run goes through the kept statement.
      if (typeof statement === "string" && statement.startsWith("select"))
        expect(await outcome(() => ours.execute(statement))).toEqual(await outcome(() => theirs.execute(statement)));
    }
    expect(await outcome(() => ours.execute("select * from t where id = ?", [1]))).toEqual(
      await outcome(() => theirs.execute("select * from t where id = ?", [1])),
    );
    // Fewer positional values than the statement's last run: the missing ones are NULL, not the last run's.
    for (const args of [[1, 2], [3], [4, 5], []])
      expect(await outcome(() => ours.execute("select ?, ?", args))).toEqual(
        await outcome(() => theirs.execute("select ?, ?", args)),
      );
  });

  test("errors: the same class, message and codes (a constraint, bad SQL, a value out of range, undefined)", async () => {
    const { ours, theirs } = bothClients();
    for (const statement of schema) await Promise.all([ours.execute(statement), theirs.execute(statement)]);
    const failing: Array<InStatement | string> = [
      { sql: "insert into t (name) values (?)", args: ["ann"] },
      { sql: "insert into t (name) values (?)", args: ["ann"] },
      { sql: "insert into t (score) values (?)", args: [1] },
      "select nothing from nowhere",
      { sql: "insert into t (name, big) values (?, ?)", args: ["huge", 2n ** 64n] },
      { sql: "insert into t (name) values (?)", args: [undefined as unknown as string] },
      { sql: "insert into t (name, score) values (?, ?)", args: ["inf", Number.POSITIVE_INFINITY] },
      { sql: "insert into t (name, big) values ('wide', 9007199254740993)", args: [] },
      "select big from t where name = 'wide'",
    ];
    for (const statement of failing)
      expect(await outcome(() => ours.execute(statement))).toEqual(await outcome(() => theirs.execute(statement)));
  });

  test("batch: one transaction, all or nothing, the failing statement's index, and the next batch unaffected", async () => {
    const { ours, theirs } = bothClients();
    for (const client of [ours, theirs]) await client.batch(schema, "write");
    const good: InStatement[] = [
      { sql: "insert into t (name) values (?)", args: ["ann"] },
      { sql: "insert into t (name) values (?)", args: ["bob"] },
      "select name from t order by name",
    ];
    const bad: InStatement[] = [
      { sql: "insert into t (name) values (?)", args: ["cy"] },
      { sql: "insert into t (name) values (?)", args: ["ann"] },
      "select 1",
    ];
    for (const [statements, mode] of [
      [good, "write"],
      [bad, "write"],
      [good.slice(2), "read"],
      [good.slice(2), "deferred"],
    ] as const) {
      expect(await outcome(() => ours.batch(statements, mode))).toEqual(
        await outcome(() => theirs.batch(statements, mode)),
      );
    }
    const names = "select name from t order by name";
    expect(await outcome(() => ours.execute(names))).toEqual(await outcome(() => theirs.execute(names)));
    await expect(ours.batch(bad)).rejects.toBeInstanceOf(LibsqlBatchError);
  });

  test("drizzle over it: migrations-style statements, typed selects and raw SQL read the same", async () => {
    const { ours, theirs } = bothClients();
    const answers = [];
    for (const client of [ours, theirs]) {
      const db = drizzle({ client });
      await client.migrate(schema);
      await db.run(sql`insert into t (name, score, flag) values ('ann', 2.5, 1), ('bob', null, 0)`);
      answers.push({
        all: await db.all(sql`select id, name, score, flag from t order by id`),
        get: await db.get(sql`select count(*) as n from t`),
        values: (await db.values(sql`select name, score from t order by id`)).map((row) => ({
          keys: Object.keys(row),
          indexed: Array.prototype.slice.call(row),
          spread: { ...row },
        })),
      });
    }
    expect(answers[0]).toEqual(answers[1]);
  });
});

/** Our client on `path`, with a table `a` of one row (x = 1) and `select * from a` kept. */
async function keptSelectOfA(path = freshPath()): Promise<PreparedStatementsClient> {
  const client = new PreparedStatementsClient(path, 1000);
  opened.push(client);
  await client.execute("create table a (x integer)");
  await client.execute("insert into a values (1)");
  expect((await client.execute("select * from a")).columns).toEqual(["x"]);
  return client;
}

describe("PreparedStatementsClient keeps its statements, and stays right when they change under it", () => {
  test("a statement kept before the schema changed reads the new schema", async () => {
    const client = await keptSelectOfA();
    await client.execute("alter table a add column y text default 'why'");
    const after = await client.execute("select * from a");
    expect(after.columns).toEqual(["x", "y"]);
    expect(Object.values(after.rows[0] as object)).toEqual([1, "why"]);
  });

  test("a statement kept before this client renamed a column reads the new name", async () => {
    const client = await keptSelectOfA();
    await client.execute("/* a comment first */ alter table a rename column x to z");
    expect({ ...(await client.execute("select * from a")).rows[0] }).toEqual({ z: 1 });
  });

  test("a statement kept before another connection added a column reads the new column", async () => {
    const path = freshPath();
    const client = await keptSelectOfA(path);
    const other = createClient({ url: `file:${path}`, concurrency: 1, timeout: 1000 });
    opened.push(other);
    await other.execute("alter table a add column y text default 'why'");
    const after = await client.execute("select * from a");
    expect(after.columns).toEqual(["x", "y"]);
    expect({ ...after.rows[0] }).toEqual({ x: 1, y: "why" });
  });

  test("more distinct statements than it keeps: it keeps the most recently used, and each still answers", async () => {
    const client = new PreparedStatementsClient(freshPath(), 1000);
    opened.push(client);
    for (let round = 0; round < 2; round += 1) {
      for (let n = 0; n < 600; n += 1)
        expect(Object.values((await client.execute(`select ${n} as n`)).rows[0] as object)).toEqual([n]);
      expect(client.keptCount).toBe(512);
    }
    // A statement used again and again stays kept while 600 others come and go; once unused, it goes after 512.
    const often = "select 'often' as n";
    for (let n = 0; n < 600; n += 1) {
      await client.execute(`select ${n + 1000} as n`);
      await client.execute(often);
    }
    expect(client.isKept(often)).toBe(true);
    for (let n = 0; n < 512; n += 1) {
      await client.execute(`select ${n + 2000} as n`);
      if (n === 510) expect(client.isKept(often)).toBe(true);
    }
    expect(client.isKept(often)).toBe(false);
  });

  test("a change made through another connection is read at once", async () => {
    const path = freshPath();
    const client = new PreparedStatementsClient(path, 1000);
    const other = createClient({ url: `file:${path}`, concurrency: 1, timeout: 1000 });
    opened.push(client, other);
    await client.execute("create table a (x integer)");
    expect((await client.execute("select count(*) from a")).rows[0]?.[0]).toBe(0);
    await other.execute("insert into a values (1)");
    expect((await client.execute("select count(*) from a")).rows[0]?.[0]).toBe(1);
  });

  test("a COMMIT that fails rolls back, and the client goes on", async () => {
    const client = new PreparedStatementsClient(freshPath(), 1000);
    opened.push(client);
    await client.execute("PRAGMA foreign_keys=ON");
    await client.batch([
      "create table p (id integer primary key)",
      "create table c (pid integer references p (id) deferrable initially deferred)",
    ]);
    const failing = await client.transaction("write");
    await failing.execute({ sql: "insert into c values (?)", args: [99] });
    await expect(failing.commit()).rejects.toMatchObject({ code: "SQLITE_CONSTRAINT" });
    await failing.rollback();
    await client.batch(
      [
        { sql: "insert into p values (?)", args: [1] },
        { sql: "insert into c values (?)", args: [1] },
      ],
      "write",
    );
    expect((await client.execute("select pid from c")).rows.map((row) => row[0])).toEqual([1]);
  });

  test("svc-hub's migrations through drizzle's migrator: the same schema and journal as @libsql/client's", async () => {
    const { ours, theirs } = bothClients();
    const described = [];
    for (const client of [ours, theirs]) {
      await migrate(drizzle({ client }), { migrationsFolder: join(import.meta.dir, "migrations") });
      described.push({
        schema: (await client.execute("select type, name, tbl_name, sql from sqlite_master order by name")).rows,
        journal: (await client.execute("select hash, created_at from __drizzle_migrations order by id")).rows,
      });
    }
    expect(described[0]!.journal.length).toBeGreaterThan(10);
    expect(described[0]).toEqual(described[1]!);
  });

  test("a migration that fails is rolled back and foreign keys are on again", async () => {
    const client = new PreparedStatementsClient(freshPath(), 1000);
    opened.push(client);
    await client.execute("PRAGMA foreign_keys=ON");
    await expect(client.migrate(["create table a (x integer)", "create table a (x integer)"])).rejects.toBeInstanceOf(
      LibsqlBatchError,
    );
    expect((await client.execute("select count(*) from sqlite_master where name = 'a'")).rows[0]?.[0]).toBe(0);
    expect((await client.execute("PRAGMA foreign_keys")).rows[0]?.[0]).toBe(1);
  });

  test("an interactive transaction commits or rolls back; a closed client refuses every call", async () => {
    const client = new PreparedStatementsClient(freshPath(), 1000);
    await client.execute("create table a (x integer)");
    const kept = await client.transaction("write");
    await kept.execute({ sql: "insert into a values (?)", args: [1] });
    await kept.commit();
    const dropped = await client.transaction("write");
    await dropped.execute({ sql: "insert into a values (?)", args: [2] });
    await dropped.rollback();
    await expect(dropped.execute("select 1")).rejects.toBeInstanceOf(LibsqlError);
    expect((await client.execute("select x from a")).rows.map((row) => row[0])).toEqual([1]);
    const open = await client.transaction("write");
    client.close();
    expect(client.closed).toBe(true);
    await expect(open.execute("select 1")).rejects.toMatchObject({ code: "TRANSACTION_CLOSED" });
    open.close();
    await expect(client.execute("select 1")).rejects.toMatchObject({ code: "CLIENT_CLOSED" });
    await expect(client.batch(["select 1"])).rejects.toMatchObject({ code: "CLIENT_CLOSED" });
  });
});
