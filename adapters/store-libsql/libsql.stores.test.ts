import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient, type InValue } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import type { Stores } from "../../core/ports/index.ts";
import {
  auditFor,
  fillEveryStore,
  fullProfileConfig,
  sampleApiKey,
  sampleEvent,
  sampleTransaction,
  sampleUser,
} from "../../testing/fixtures.ts";
import {
  describeEveryStoreContract,
  describeProfileStoreContract,
  describeStoreContract,
  migrationStatements,
} from "../store-contract/index.ts";
import type { VisitorIndex } from "../store-sql/events.repo.ts";
import { events } from "./events.schema.ts";
import {
  databaseUrlForDataDir,
  type LibsqlStoreOptions,
  type LibsqlStores,
  openLibsqlStores,
} from "./libsql.stores.ts";
import { LibsqlLockoutRepo } from "./sessions.repo.ts";

const migrations = new URL("./migrations/", import.meta.url);

const temporaryDirectories: string[] = [];

/** A fresh, empty directory for one test's database, removed after the test. */
function makeTemporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), "svc-hub-libsql-"));
  temporaryDirectories.push(directory);
  return directory;
}

function freshDatabaseUrl(): string {
  return `file:${join(makeTemporaryDirectory(), "test.db")}`;
}

afterEach(() => {
  for (const directory of temporaryDirectories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describeEveryStoreContract("libsql (file)", () => openLibsqlStores({ url: freshDatabaseUrl() }));
describeStoreContract("libsql (:memory:)", () => openLibsqlStores({ url: ":memory:" }));
// In memory there is no second connection: the batch and lookup reads go through the client.
describeProfileStoreContract("libsql (:memory:)", () => openLibsqlStores({ url: ":memory:" }));
describeProfileStoreContract("libsql (file, lookups in their own thread)", () =>
  openLibsqlStores({ url: freshDatabaseUrl(), lookupThread: true }),
);

describe("libsql store", () => {
  const open: Stores[] = [];

  async function openStores(url: string): Promise<Stores> {
    return openLibsqlStoresKept({ url });
  }

  /** openLibsqlStores, closed after the test. */
  async function openLibsqlStoresKept(options: LibsqlStoreOptions): Promise<LibsqlStores> {
    const stores = await openLibsqlStores(options);
    open.push(stores);
    return stores;
  }

  afterEach(async () => {
    for (const stores of open.splice(0)) await stores.close();
  });

  async function readPragma(url: string, pragma: string): Promise<unknown> {
    const client = createClient({ url });
    try {
      return (await client.execute(`PRAGMA ${pragma}`)).rows[0]?.[0];
    } finally {
      client.close();
    }
  }

  test("is of kind libsql", async () => {
    expect((await openStores(":memory:")).kind).toBe("libsql");
  });

  test("data survives closing and reopening the same file", async () => {
    const url = freshDatabaseUrl();
    const first = await openLibsqlStores({ url });
    await first.tenancy.ensureAccount("acme", 1000);
    await first.tenancy.putProfile("acme", fullProfileConfig(), 2000);
    await first.tenancy.putUser(sampleUser("Ann@example.com"));
    await first.tenancy.putApiKey(sampleApiKey("k1", "Ann@example.com"));
    await first.settings.set("clock.offset", "42");
    await first.close();

    const second = await openStores(url);
    expect(await second.tenancy.listAccounts()).toEqual([{ name: "acme", createdAt: 1000 }]);
    expect(await second.tenancy.findProfile("acme", "main")).toEqual({
      account: "acme",
      config: fullProfileConfig(),
      createdAt: 2000,
      updatedAt: 2000,
    });
    expect(await second.tenancy.findUser("ann@example.com")).toEqual(sampleUser("Ann@example.com"));
    expect(await second.tenancy.findApiKey("k1")).toEqual(sampleApiKey("k1", "Ann@example.com"));
    expect(await second.settings.get("clock.offset")).toBe("42");
  });

  test("a file database is in WAL mode", async () => {
    const url = freshDatabaseUrl();
    await openStores(url);
    expect(await readPragma(url, "journal_mode")).toBe("wal");
  });

  test("[DEC-COL-08] every commit is synced (synchronous=FULL), unless a server's start asks for its own writes to be synced once made", async () => {
    expect(await (await openLibsqlStoresKept({ url: freshDatabaseUrl() })).syncMode()).toBe("FULL");
    const starting = await openLibsqlStoresKept({ url: freshDatabaseUrl(), startUnsynced: true });
    expect(await starting.syncMode()).toBe("NORMAL");
    await starting.tenancy.putUser(sampleUser("ann@example.com"));
    await starting.syncEachCommit();
    expect(await starting.syncMode()).toBe("FULL");
    expect(await starting.tenancy.findUser("ann@example.com")).toEqual(sampleUser("ann@example.com"));
  });

  test("events shaped for appends: no index by visitor on the table, and migration 0016 copies the events already there to the per-visitor index", async () => {
    const url = freshDatabaseUrl();
    const client = createClient({ url });
    try {
      const before = readdirSync(migrations)
        .filter((file) => file.endsWith(".sql") && file < "0016")
        .sort();
      for (const file of before)
        for (const statement of migrationStatements(migrations, file)) await client.execute(statement);
      await client.execute(`insert into events (account, profile, visitor_id, visitor_id_source, received_at, data)
        values ('acme', 'main', 'v-1', 'tapid', 1, '{}'), ('acme', 'main', 'v-2', 'tapid', 2, '{}'), ('acme', 'dev', 'v-1', 'tapid', 3, '{}')`);
      for (const statement of migrationStatements(migrations, "0016_events_visitor_index.sql"))
        await client.execute(statement);
      const entries = await client.execute(
        "select bucket, account, profile, visitor_id, seq from event_visitors order by seq",
      );
      expect(entries.rows.map((row) => Array.from(row))).toEqual([
        [0, "acme", "main", "v-1", 1],
        [0, "acme", "main", "v-2", 2],
        [0, "acme", "dev", "v-1", 3],
      ]);
      const mark = await client.execute("select value from settings where key = 'events.visitor-index'");
      expect(mark.rows.map((row) => row.value)).toEqual(["3"]);
      const indexes = await client.execute(
        "select name from pragma_index_list('events') where origin = 'c' order by name",
      );
      expect(indexes.rows.map((row) => row.name)).toEqual(["events_received_idx", "events_trace_idx"]);
    } finally {
      client.close();
    }
  });

  test("a read by visitor seeks the per-visitor index and the newest events by sequence number, never a scan of an account's events", async () => {
    const url = freshDatabaseUrl();
    const stores = await openStores(url);
    await stores.events.append(Array.from({ length: 50 }, (_, index) => sampleEvent({ visitorId: `v${index % 5}` })));
    await stores.events.indexVisitors(40);
    const client = createClient({ url });
    try {
      const read = (stores.events as unknown as { readonly visitorIndex: VisitorIndex }).visitorIndex.eventsOf({
        account: "acme",
        profile: "main",
        visitorIds: ["v1"],
      });
      const { sql, params } = drizzle(client).select({ seq: events.seq }).from(events).where(read).toSQL();
      const plan = await client.execute({ sql: `explain query plan ${sql}`, args: params as InValue[] });
      const details = plan.rows.map((row) => String(row.detail));
      expect(details).toContain("SEARCH events USING INTEGER PRIMARY KEY (rowid=?)");
      expect(details).toContain(
        "SEARCH event_visitors USING PRIMARY KEY (bucket=? AND account=? AND profile=? AND visitor_id=?)",
      );
      expect(details).toContain("SEARCH events USING INTEGER PRIMARY KEY (rowid>?)");
      expect(details.filter((detail) => detail.startsWith("SCAN") && !detail.startsWith("SCAN integers"))).toEqual([
        "SCAN CONSTANT ROW",
      ]);
    } finally {
      client.close();
    }
  });

  test("a visitor's deletion leaves none of its id in the per-visitor index, and retention none of the events it removed (PRV-09)", async () => {
    const url = freshDatabaseUrl();
    const stores = await openStores(url);
    await stores.events.append([
      sampleEvent({ visitorId: "gone", receivedAt: 1 }),
      sampleEvent({ visitorId: "kept", receivedAt: 2 }),
      sampleEvent({ visitorId: "old", receivedAt: 3 }),
      sampleEvent({ visitorId: "kept", receivedAt: 10 }),
    ]);
    await stores.events.indexVisitors(4);
    const client = createClient({ url });
    try {
      const entries = async () =>
        (await client.execute("select visitor_id, seq from event_visitors order by seq")).rows.map((row) =>
          Array.from(row),
        );
      expect(await stores.events.deleteVisitors("acme", "main", ["gone"])).toBe(1);
      expect(await entries()).toEqual([
        ["kept", 2],
        ["old", 3],
        ["kept", 4],
      ]);
      expect(await stores.events.deleteReceivedBefore(5, { upToSeq: 4, limit: 10 })).toBe(2);
      expect(await entries()).toEqual([["kept", 4]]);
    } finally {
      client.close();
    }
  });

  test("profiles and their members are WITHOUT ROWID tables (one B-tree each, keyed by the primary key)", async () => {
    const url = freshDatabaseUrl();
    await openStores(url);
    const client = createClient({ url });
    try {
      const tables = await client.execute(
        "select name, wr from pragma_table_list where name in ('visitor_profiles', 'visitor_members', 'event_visitors') order by name",
      );
      expect(tables.rows.map((row) => [row.name, Number(row.wr)])).toEqual([
        ["event_visitors", 1],
        ["visitor_members", 1],
        ["visitor_profiles", 1],
      ]);
    } finally {
      client.close();
    }
  });

  test("the WITHOUT ROWID migration keeps every profile and member of a database made before it", async () => {
    const url = freshDatabaseUrl();
    const client = createClient({ url });
    try {
      // The tables as migration 0005 made them, with rows in them.
      for (const statement of migrationStatements(migrations, "0005_profiles.sql")) await client.execute(statement);
      await client.execute(
        "insert into visitor_profiles values ('acme', 'main', 'c-1', '{\"eventCount\":3}', 7), ('acme', 'dev', 'c-1', '{}', 8)",
      );
      await client.execute(
        "insert into visitor_members values ('acme', 'main', 'v-1', 'c-1'), ('acme', 'main', 'v-2', 'c-1'), ('acme', 'dev', 'v-1', 'c-1')",
      );
      for (const statement of migrationStatements(migrations, "0008_profiles_without_rowid.sql"))
        await client.execute(statement);
      const profiles = await client.execute(
        "select account, profile, canonical, data, last_seen_at from visitor_profiles order by profile",
      );
      expect(profiles.rows.map((row) => Array.from(row))).toEqual([
        ["acme", "dev", "c-1", "{}", 8],
        ["acme", "main", "c-1", '{"eventCount":3}', 7],
      ]);
      const members = await client.execute(
        "select profile, visitor_id, canonical from visitor_members order by profile, visitor_id",
      );
      expect(members.rows.map((row) => Array.from(row))).toEqual([
        ["dev", "v-1", "c-1"],
        ["main", "v-1", "c-1"],
        ["main", "v-2", "c-1"],
      ]);
      const plan = await client.execute(
        "explain query plan select canonical from visitor_members where account = 'acme' and profile = 'main' and canonical = 'c-1'",
      );
      expect(String(plan.rows[0]?.detail)).toContain("visitor_members_canonical_idx");
    } finally {
      client.close();
    }
  });

  test("[DEC-SES-01] migration 0010 deletes no lockout made before it too early: a lock holds until it ends, failures a week; given-up import leases go", async () => {
    const url = freshDatabaseUrl();
    const client = createClient({ url });
    try {
      // The table as migration 0001 made it, with the states the service wrote then.
      for (const statement of migrationStatements(migrations, "0001_sessions.sql")) await client.execute(statement);
      await client.execute("create table settings (key text primary key not null, value text not null)");
      await client.execute(`insert into settings (key, value) values
        ('lease.file-import.a', 'node-1|4001@boot/ns|0'), ('lease.file-import.b', 'node-1|0'),
        ('lease.file-import.c', 'node-1|4001@boot/ns|1800000000010'), ('lease.profiles', 'node-1|0'), ('admin.token', 'x|0')`);
      await client.execute(`insert into lockouts (kind, name, state, version) values
        ('password', 'locked', '{"failures":[1,2,3,4,5],"lockedUntil":600005}', 5),
        ('api-key', 'cleared', '{"failures":[],"lockedUntil":null}', 2),
        ('password', 'failed', '{"failures":[1000,2000],"lockedUntil":null}', 2),
        ('password', 'unreadable', 'not json', 1)`);
      for (const statement of migrationStatements(migrations, "0010_lockouts_relevant_until.sql"))
        await client.execute(statement);
      const rows = await client.execute("select name, relevant_until from lockouts order by name");
      expect(rows.rows.map((row) => Array.from(row))).toEqual([
        ["cleared", 0],
        ["failed", 2_000 + 7 * 24 * 60 * 60_000],
        ["locked", 600_005],
        ["unreadable", Number.MAX_SAFE_INTEGER],
      ]);
      const settingsLeft = await client.execute("select key from settings order by key");
      expect(settingsLeft.rows.map((row) => row[0])).toEqual(["admin.token", "lease.file-import.c", "lease.profiles"]);
      const plan = await client.execute("explain query plan delete from lockouts where relevant_until <= 600005");
      expect(String(plan.rows[0]?.detail)).toContain("lockouts_relevant_until_idx");

      const lockouts = new LibsqlLockoutRepo(drizzle({ client }));
      expect(await lockouts.deleteExpired(600_004)).toBe(1);
      expect(await lockouts.read("password", "locked")).not.toBeNull();
      expect(await lockouts.deleteExpired(600_005)).toBe(1);
      expect(await lockouts.read("password", "locked")).toBeNull();
      // Failures of an unlocked state go a week after the newest; an unreadable state when its name is tried again.
      expect(await lockouts.deleteExpired(2_000 + 7 * 24 * 60 * 60_000)).toBe(1);
      expect(await lockouts.read("password", "failed")).toBeNull();
      expect(await lockouts.compareAndSet("password", "unreadable", 1, '{"failures":[],"lockedUntil":null}', 0)).toBe(
        true,
      );
      expect(await lockouts.deleteExpired(600_005)).toBe(1);
      expect(await lockouts.read("password", "unreadable")).toBeNull();
    } finally {
      client.close();
    }
  });

  test("second probe, finding 6: migration 0014 ends the tokens of a user whose tokens had ended, and only theirs", async () => {
    const url = freshDatabaseUrl();
    const client = createClient({ url });
    try {
      // The users table as migrations 0000 and 0011 made it: one user reset at 1800000000123, one never.
      for (const statement of migrationStatements(migrations, "0000_init.sql")) await client.execute(statement);
      for (const statement of migrationStatements(migrations, "0011_users_tokens_valid_after.sql"))
        await client.execute(statement);
      await client.execute(`insert into users
        (email_key, email, password_hash, password_seed, disabled, tokens_valid_after, created_at, updated_at) values
        ('reset@example.com', 'reset@example.com', 'h', null, 0, 1800000000123, 1, 1),
        ('never@example.com', 'never@example.com', 'h', null, 0, null, 1, 1)`);
      for (const statement of migrationStatements(migrations, "0014_users_token_generation.sql"))
        await client.execute(statement);
      const rows = await client.execute("select email, token_generation from users order by email");
      // A token issued before names no generation: the reset user's are refused, the other's still work.
      expect(rows.rows.map((row) => Array.from(row))).toEqual([
        ["never@example.com", null],
        ["reset@example.com", "ended-1800000000123"],
      ]);
    } finally {
      client.close();
    }
  });

  test("reopening applies no migration twice and keeps the data", async () => {
    const url = freshDatabaseUrl();
    const first = await openLibsqlStores({ url });
    await first.settings.set("kept", "yes");
    await first.close();
    await (await openLibsqlStores({ url })).close();

    const third = await openStores(url);
    expect(await third.settings.get("kept")).toBe("yes");
    const journal = JSON.parse(
      readFileSync(fileURLToPath(new URL("./migrations/meta/_journal.json", import.meta.url)), "utf8"),
    ) as { entries: unknown[] };
    const client = createClient({ url });
    try {
      const applied = await client.execute("select count(*) from __drizzle_migrations");
      expect(Number(applied.rows[0]?.[0])).toBe(journal.entries.length);
    } finally {
      client.close();
    }
  });

  test("two stores open on the same file see each other's writes", async () => {
    const url = freshDatabaseUrl();
    const a = await openStores(url);
    const b = await openStores(url);
    await a.tenancy.ensureAccount("acme", 1000);
    await a.tenancy.putProfile("acme", fullProfileConfig(), 2000);
    expect((await b.tenancy.findProfile("acme", "main"))!.config).toEqual(fullProfileConfig());
    await b.tenancy.putUser(sampleUser("ann@example.com"));
    await b.settings.set("owner", "b");
    expect(await a.tenancy.findUser("ann@example.com")).toEqual(sampleUser("ann@example.com"));
    expect(await a.settings.get("owner")).toBe("b");
  });

  test("eraseAll (svc-hub's own admin API, POST /admin/reset) leaves no row in any table of the schema but the settings kept", async () => {
    const url = freshDatabaseUrl();
    const stores = await openStores(url);
    await fillEveryStore(stores);
    await stores.eraseAll({ keepSettings: ["admin.token"] });
    const client = createClient({ url });
    try {
      const tables = (
        await client.execute(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%'",
        )
      ).rows.map((row) => String(row[0]));
      expect(tables.length).toBeGreaterThan(20);
      const left: Record<string, number> = {};
      for (const table of tables) {
        const count = Number((await client.execute(`SELECT count(*) FROM "${table}"`)).rows[0]?.[0]);
        if (count > 0) left[table] = count;
      }
      expect(left).toEqual({ settings: 1 });
    } finally {
      client.close();
    }
  });

  test("another store on the same file sees eraseAll at once, its kept tenancy reads included", async () => {
    const url = freshDatabaseUrl();
    const a = await openStores(url);
    const b = await openStores(url);
    await fillEveryStore(a);
    expect(await b.tenancy.findAccount("acme")).not.toBeNull();
    expect(await a.tenancy.findUser("ops@example.com")).not.toBeNull();
    await a.eraseAll({ keepSettings: [] });
    await new Promise((resolve) => setImmediate(resolve));
    expect(await b.tenancy.findAccount("acme")).toBeNull();
    expect(await a.tenancy.findUser("ops@example.com")).toBeNull();
    expect(await b.events.query({ limit: 10 })).toEqual([]);
  });

  test("two stores opening a fresh file at the same time both migrate and work", async () => {
    const url = freshDatabaseUrl();
    const [a, b] = await Promise.all([openStores(url), openStores(url)]);
    await a.settings.set("from", "a");
    expect(await b.settings.get("from")).toBe("a");
  });

  test("another process opens the same file, from another working directory, while this one holds it", async () => {
    const url = freshDatabaseUrl();
    const stores = await openStores(url);
    await stores.tenancy.ensureAccount("acme", 1000);
    const modulePath = fileURLToPath(new URL("./libsql.stores.ts", import.meta.url));
    const script = `
      import { openLibsqlStores } from ${JSON.stringify(modulePath)};
      const stores = await openLibsqlStores({ url: ${JSON.stringify(url)} });
      const account = await stores.tenancy.findAccount("acme");
      await stores.settings.set("child saw", String(account?.createdAt));
      await stores.close();
    `;
    const child = Bun.spawnSync([process.execPath, "-e", script], { cwd: makeTemporaryDirectory() });
    expect(child.stderr.toString()).toBe("");
    expect(child.exitCode).toBe(0);
    expect(await stores.settings.get("child saw")).toBe("1000");
  });

  test("a putProfile that fails part-way leaves the previous configuration whole", async () => {
    const stores = await openStores(freshDatabaseUrl());
    await stores.tenancy.ensureAccount("acme", 1000);
    await stores.tenancy.putProfile("acme", fullProfileConfig(), 2000);
    const attribute = fullProfileConfig().attributes[0]!;
    // Two attributes with one id break the primary key after the old rows were already deleted.
    const broken = { ...fullProfileConfig(), audiences: [], attributes: [attribute, attribute] };
    await expect(stores.tenancy.putProfile("acme", broken, 3000)).rejects.toThrow();
    expect(await stores.tenancy.findProfile("acme", "main")).toEqual({
      account: "acme",
      config: fullProfileConfig(),
      createdAt: 2000,
      updatedAt: 2000,
    });
  });

  test("PRV-06: identical deletion requests through two connections to one file keep one PENDING transaction", async () => {
    const url = freshDatabaseUrl();
    const [a, b] = [await openStores(url), await openStores(url)];
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, index) => {
        const transaction = sampleTransaction({ id: `t${index}` });
        return (index % 2 === 0 ? a : b).privacy.requestDeletion(
          transaction,
          auditFor(transaction, "deletion-requested"),
        );
      }),
    );
    expect(new Set(answers.map((answer) => answer.transaction.id)).size).toBe(1);
    expect(answers.filter((answer) => answer.created).length).toBe(1);
    expect((await a.privacy.auditOf(answers[0]!.transaction.id)).length).toBe(1);
  });

  test("databaseUrlForDataDir creates the directory and names svc-hub.db inside it", async () => {
    const dataDir = join(makeTemporaryDirectory(), "nested dir #1", "data");
    const url = databaseUrlForDataDir(dataDir);
    expect(existsSync(dataDir)).toBe(true);
    expect(url.startsWith("file:/")).toBe(true);
    const stores = await openStores(url);
    await stores.settings.set("where", "here");
    expect(existsSync(join(dataDir, "svc-hub.db"))).toBe(true);
  });

  test("databaseUrlForDataDir gives file:<absolute dir>/svc-hub.db for a plain path", () => {
    const dataDir = join(makeTemporaryDirectory(), "data");
    expect(databaseUrlForDataDir(dataDir)).toBe(`file:${dataDir}/svc-hub.db`);
  });
});
