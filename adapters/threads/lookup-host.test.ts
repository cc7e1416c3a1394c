import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/libsql/sqlite3";
import type { Stores } from "../../core/ports/index.ts";
import { isStorageUnavailable } from "../runtime/storage-errors.ts";
import { openLibsqlStores } from "../store-libsql/libsql.stores.ts";
import { PreparedStatementsClient } from "../store-libsql/prepared-statements-client.ts";
import { LibsqlProfileRepo } from "../store-libsql/profiles.repo.ts";
import { type ReaderQuery, StatementReader } from "../store-libsql/statement-reader.ts";
import { LookupThread, LookupThreadOnFirstRead, LookupThreadStoppedError, type RowSource } from "./lookup-host.ts";

/*
 * The moments lookup's reads in a thread of their own (issue 12, bench/FINDINGS.md): the same answers as on the
 * calling thread, every earlier commit seen, reads sent a few at a time, and nothing left hanging when the
 * thread ends.
 */

const directories: string[] = [];
const cleanups: Array<() => Promise<void> | void> = [];

function freshPath(): string {
  const directory = mkdtempSync(join(tmpdir(), "svc-hub-lookup-thread-"));
  directories.push(directory);
  return join(directory, "test.db");
}

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A store whose file holds one group of two members, and a reader of its own on the file. */
async function fileWithRows(): Promise<{ stores: Stores; path: string; reader: StatementReader }> {
  const path = freshPath();
  const stores = await openLibsqlStores({ url: `file:${path}` });
  cleanups.push(() => stores.close());
  await stores.profiles.saveMany([
    { account: "acme", profile: "main", canonical: "c-1", data: profileData(1), members: ["v-1", "v-2"] },
  ]);
  const reader = new StatementReader(path, 1000);
  cleanups.push(() => reader.close());
  return { stores, path, reader };
}

function profileData(eventCount: number) {
  return {
    firstSeenAt: 1,
    lastSeenAt: 2,
    visitStartedAt: 1,
    eventCount,
    visitCount: 1,
    values: {},
    badges: [],
    visitorIds: {},
    lastSeq: eventCount,
  };
}

const canonicalOf: ReaderQuery = {
  sql: "select canonical from visitor_members where account = ? and profile = ? and visitor_id = ?",
  names: ["account", "profile", "id"],
};
const broken: ReaderQuery = { sql: "select canonical from no_such_table where id = ?", names: ["id"] };

async function startOn(
  path: string,
  fallback: StatementReader,
  onStopped?: (error: Error) => void,
): Promise<LookupThread> {
  const thread = await LookupThread.start({ path, busyTimeoutMs: 1000 }, fallback, onStopped);
  cleanups.push(() => thread.close());
  return thread;
}

/** Ends the thread's worker as a crash would, without telling the LookupThread (a look inside, for tests only). */
async function crash(thread: LookupThread): Promise<void> {
  await (thread as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
}

describe("lookup thread", () => {
  test("answers each read as the reader on this thread does, and sends a turn's reads a few at a time", async () => {
    const { path, reader } = await fileWithRows();
    const thread = await startOn(path, reader);
    const ids = Array.from({ length: 20 }, (_, index) =>
      index % 3 === 0 ? "v-1" : index % 3 === 1 ? "v-2" : `nobody-${index}`,
    );
    const before = thread.batches;
    const rows = await Promise.all(ids.map((id) => thread.row(canonicalOf, { account: "acme", profile: "main", id })));
    expect(rows).toEqual(ids.map((id) => reader.row(canonicalOf, { account: "acme", profile: "main", id })));
    expect(rows.filter((row) => row !== undefined)).toHaveLength(14);
    // Twenty reads asked in one turn: three messages (eight, eight, and the four left at the end of the turn).
    expect(thread.batches - before).toBe(3);
  });

  test("queries of several kinds, mixed across messages, each get their own answers (a query's text is sent once)", async () => {
    const { path, reader } = await fileWithRows();
    const thread = await startOn(path, reader);
    const memberOf: ReaderQuery = {
      sql: "select visitor_id from visitor_members where canonical = ? and account = ? order by visitor_id",
      names: ["canonical", "account"],
    };
    const countOf: ReaderQuery = { sql: "select count(*) from visitor_members", names: [] };
    for (let round = 0; round < 3; round += 1) {
      const asked = Array.from({ length: 11 }, (_, index) =>
        index % 3 === 0
          ? thread.row(canonicalOf, { account: "acme", profile: "main", id: index % 2 ? "v-1" : "nobody" })
          : index % 3 === 1
            ? thread.row(memberOf, { canonical: "c-1", account: "acme" })
            : thread.row(countOf, {}),
      );
      expect(await Promise.all(asked)).toEqual(
        Array.from({ length: 11 }, (_, index) =>
          index % 3 === 0 ? (index % 2 ? ["c-1"] : undefined) : index % 3 === 1 ? ["c-1"] : [3],
        ),
      );
    }
  });

  test("a read whose value cannot be sent to the thread fails, and the same query still works afterwards", async () => {
    const { path, reader } = await fileWithRows();
    const thread = await startOn(path, reader);
    const unsendable = thread.row(canonicalOf, { account: "acme", profile: "main", id: () => "v-1" });
    await expect(unsendable).rejects.toThrow();
    expect(await thread.row(canonicalOf, { account: "acme", profile: "main", id: "v-1" })).toEqual(["c-1"]);
  });

  test("sees every commit made before the read, by any connection", async () => {
    const { stores, path, reader } = await fileWithRows();
    const thread = await startOn(path, reader);
    expect(await thread.row(canonicalOf, { account: "acme", profile: "main", id: "v-3" })).toBeUndefined();
    await stores.profiles.saveMany([
      { account: "acme", profile: "main", canonical: "c-1", data: profileData(2), members: ["v-3"] },
    ]);
    expect(await thread.row(canonicalOf, { account: "acme", profile: "main", id: "v-3" })).toEqual(["c-1"]);
  });

  test("a failing read rejects on its own; the other reads of its message are answered", async () => {
    const { path, reader } = await fileWithRows();
    const thread = await startOn(path, reader);
    const [good, bad] = await Promise.allSettled([
      thread.row(canonicalOf, { account: "acme", profile: "main", id: "v-1" }),
      thread.row(broken, { id: 1 }),
    ]);
    expect(good).toEqual({ status: "fulfilled", value: ["c-1"] });
    expect(bad.status).toBe("rejected");
    expect(String((bad as PromiseRejectedResult).reason)).toContain("no_such_table");
  });

  test("if the thread ends, waiting reads fail as storage unavailable and later ones are read on this thread", async () => {
    const { path, reader } = await fileWithRows();
    const stopped: Error[] = [];
    const thread = await startOn(path, reader, (error) => stopped.push(error));
    // A read that keeps the thread busy (a count to five million), and one behind it in the same message: the
    // thread is ended while it works on the first, so neither is answered.
    const busy = thread.row(
      {
        sql: "with recursive n(i) as (select 1 union all select i + 1 from n where i < 5000000) select count(*) from n",
        names: [],
      },
      {},
    );
    const behind = thread.row(canonicalOf, { account: "acme", profile: "main", id: "v-1" });
    await Bun.sleep(50);
    await crash(thread);
    for (const waiting of [busy, behind]) {
      const error = await waiting.then(
        () => null,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(LookupThreadStoppedError);
      expect(isStorageUnavailable(error)).toBe(true);
    }
    expect(stopped).toHaveLength(1);
    expect(await thread.row(canonicalOf, { account: "acme", profile: "main", id: "v-2" })).toEqual(["c-1"]);
  });

  test("after close, reads are answered on this thread", async () => {
    const { path, reader } = await fileWithRows();
    const thread = await startOn(path, reader);
    await thread.close();
    expect(await thread.row(canonicalOf, { account: "acme", profile: "main", id: "v-1" })).toEqual(["c-1"]);
  });

  test("a store opened with the lookup thread answers moments reads through it", async () => {
    const path = freshPath();
    const stores = await openLibsqlStores({ url: `file:${path}`, lookupThread: true });
    cleanups.push(() => stores.close());
    await stores.profiles.saveMany([
      { account: "acme", profile: "main", canonical: "c-1", data: profileData(3), members: ["v-1"] },
    ]);
    await stores.profiles.setEngineEnabledSince("acme", "main", "engine-1", 42);
    const [found, since, forEngine] = await Promise.all([
      stores.profiles.findByMember("acme", "main", "v-1"),
      stores.profiles.engineEnabledSince("acme", "main", "engine-1"),
      stores.profiles.findForEngine("acme", "main", "v-1", "engine-1"),
    ]);
    expect(found).toEqual({ canonical: "c-1", data: profileData(3) });
    expect(since).toBe(42);
    expect(forEngine).toEqual({ canonical: "c-1", data: profileData(3), engineEnabledSince: 42 });
  });

  // Issue 41, "ready in a blink": a server starts no lookup thread until a lookup needs it.
  test("started by the first read, not before, and answering as the reader does", async () => {
    const { path, reader } = await fileWithRows();
    const lazy = new LookupThreadOnFirstRead({ path, busyTimeoutMs: 1000 }, reader);
    cleanups.push(() => lazy.close());
    expect(lazy.started).toBe(false);
    const [first, second] = await Promise.all([
      lazy.row(canonicalOf, { account: "acme", profile: "main", id: "v-1" }),
      lazy.row(canonicalOf, { account: "acme", profile: "main", id: "nobody" }),
    ]);
    expect(lazy.started).toBe(true);
    expect(first).toEqual(["c-1"]);
    expect(second).toBeUndefined();
    expect(await lazy.row(canonicalOf, { account: "acme", profile: "main", id: "v-2" })).toEqual(["c-1"]);
  });

  test("a thread that cannot start is told once, and its reads are answered on this thread", async () => {
    const { reader } = await fileWithRows();
    const stopped: Error[] = [];
    const lazy = new LookupThreadOnFirstRead(
      { path: join(freshPath(), "missing", "no.db"), busyTimeoutMs: 1000 },
      reader,
      (error) => stopped.push(error),
    );
    cleanups.push(() => lazy.close());
    expect(await lazy.row(canonicalOf, { account: "acme", profile: "main", id: "v-1" })).toEqual(["c-1"]);
    expect(await lazy.row(canonicalOf, { account: "acme", profile: "main", id: "v-2" })).toEqual(["c-1"]);
    expect(stopped).toHaveLength(1);
  });

  test("closed before any read, it never starts and reads go to the reader", async () => {
    const { path, reader } = await fileWithRows();
    const lazy = new LookupThreadOnFirstRead({ path, busyTimeoutMs: 1000 }, reader);
    await lazy.close();
    expect(await lazy.row(canonicalOf, { account: "acme", profile: "main", id: "v-1" })).toEqual(["c-1"]);
    expect(lazy.started).toBe(false);
  });

  // Issue 41: applying the configuration at start reads the engines' states; on the lookup thread, that read
  // started the thread with every start.
  test("the engines' states are read on this thread, the moments lookups through the lookup source", async () => {
    const { stores, path, reader } = await fileWithRows();
    await stores.profiles.setEngineEnabledSince("acme", "main", "engine-1", 42);
    const client = new PreparedStatementsClient(path, 1000);
    cleanups.push(() => client.close());
    const asked: ReaderQuery[] = [];
    const lookups: RowSource = {
      row(query, values) {
        asked.push(query);
        return reader.row(query, values);
      },
    };
    const repo = new LibsqlProfileRepo(drizzle({ client }), lookups, reader);
    expect(await repo.engineEnabledSince("acme", "main", "engine-1")).toBe(42);
    expect(asked).toHaveLength(0);
    expect(await repo.findByMember("acme", "main", "v-1")).toEqual({ canonical: "c-1", data: profileData(1) });
    expect(asked).toHaveLength(1);
  });
});
