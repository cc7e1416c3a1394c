import { afterEach, describe, expect, test } from "bun:test";
import { getTableName, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import type { Stores } from "../../core/ports/index.ts";
import { fullProfileConfig, sampleApiKey, sampleEvent, sampleUser } from "../../testing/fixtures.ts";
import { tokenEndingCases } from "../../testing/session/auth.ts";
import { cryptoIds, nodeDigests } from "../runtime/crypto.ts";
import { hostEventLoop } from "../runtime/event-loop.ts";
import { joseTokenSigner } from "../runtime/jose-tokens.ts";
import { describeEveryStoreContract, migrationStatements } from "../store-contract/index.ts";
import type { VisitorIndex } from "../store-sql/events.repo.ts";
import { openPostgresDatabase } from "./database.ts";
import { events } from "./events.schema.ts";
import journal from "./migrations/meta/_journal.json" with { type: "json" };
import { everyTable, openPostgresStores } from "./postgres.stores.ts";
import { postgresForTests } from "./test-database.ts";

const migrations = new URL("./migrations/", import.meta.url);

const pg = postgresForTests();

describeEveryStoreContract("postgres", async () => openPostgresStores({ url: await pg.freshUrl(), maxConnections: 4 }));

// The same cases run on the in-memory store in the core, and on libSQL's (store-libsql/auth.use-cases.test.ts).
describe("AuthService on PostgreSQL: a password reset or a disabling ends the user's bearer tokens (second probe, finding 6)", () => {
  const host = { ids: cryptoIds, digests: nodeDigests, tokens: joseTokenSigner, eventLoop: hostEventLoop };
  for (const [name, run] of Object.entries(tokenEndingCases)) {
    test(`${name} (postgres)`, async () => {
      const stores = await openPostgresStores({ url: await pg.freshUrl(), maxConnections: 4 });
      try {
        await run(stores, host);
      } finally {
        await stores.close();
      }
    });
  }
});

describe("postgres store", () => {
  const open: Stores[] = [];

  async function openStores(url: string): Promise<Stores> {
    const stores = await openPostgresStores({ url, maxConnections: 4 });
    open.push(stores);
    return stores;
  }

  afterEach(async () => {
    for (const stores of open.splice(0)) await stores.close();
  });

  test("a read by visitor seeks the per-visitor index and the events' key, never a scan of either table", async () => {
    const url = await pg.freshUrl();
    const stores = await openStores(url);
    for (let first = 0; first < 20_000; first += 5_000)
      await stores.events.append(
        Array.from({ length: 5_000 }, (_, index) => sampleEvent({ visitorId: `v${(first + index) % 2_000}` })),
      );
    await stores.events.indexVisitors(19_000);
    const client = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await client`analyze`;
      const read = (stores.events as unknown as { readonly visitorIndex: VisitorIndex }).visitorIndex.eventsOf({
        account: "acme",
        profile: "main",
        visitorIds: ["v1", "v2"],
      });
      const db = drizzle(client);
      const query = db.select({ seq: events.seq }).from(events).where(read).orderBy(events.seq).limit(500).toSQL();
      const [plan] = await client.unsafe(`explain (format json) ${query.sql}`, query.params as never[]);
      const scans: string[] = [];
      const walk = (node: Record<string, unknown>) => {
        if (typeof node["Node Type"] === "string" && String(node["Node Type"]).includes("Scan"))
          scans.push(`${node["Node Type"]} ${node["Relation Name"] ?? node["Function Name"] ?? ""}`.trim());
        for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
      };
      walk((plan as unknown as { "QUERY PLAN": Array<{ Plan: Record<string, unknown> }> })["QUERY PLAN"][0]!.Plan);
      // The settings' few rows (the mark) are read as the planner likes.
      expect(scans.filter((scan) => scan.startsWith("Seq Scan") && !scan.endsWith("settings"))).toEqual([]);
      expect(scans.some((scan) => scan.endsWith("event_visitors") && scan.includes("Index"))).toBe(true);
      const found = await stores.events.query({ account: "acme", profile: "main", visitorIds: ["v1"], limit: 100 });
      expect(found.length).toBe(10);
    } finally {
      await client.end();
    }
  });

  test("is of kind postgres", async () => {
    expect((await openStores(await pg.freshUrl())).kind).toBe("postgres");
  });

  test("data survives closing and opening the same database again", async () => {
    const url = await pg.freshUrl();
    const first = await openPostgresStores({ url });
    await first.tenancy.ensureAccount("acme", 1000);
    await first.tenancy.putProfile("acme", fullProfileConfig(), 2000);
    await first.tenancy.putUser(sampleUser("Ann@example.com"));
    await first.tenancy.putApiKey(sampleApiKey("k1", "Ann@example.com"));
    await first.settings.set("clock.offset", "42");
    await first.close();

    const second = await openStores(url);
    expect(await second.tenancy.listAccounts()).toEqual([{ name: "acme", createdAt: 1000 }]);
    expect((await second.tenancy.findProfile("acme", "main"))?.config).toEqual(fullProfileConfig());
    expect(await second.tenancy.findUser("ann@example.com")).toEqual(sampleUser("Ann@example.com"));
    expect(await second.tenancy.findApiKey("k1")).toEqual(sampleApiKey("k1", "Ann@example.com"));
    expect(await second.settings.get("clock.offset")).toBe("42");
  });

  test("reset erases every table of the schema (none is left out of the list)", async () => {
    const { client, db } = await openPostgresDatabase(await pg.freshUrl(), 1);
    try {
      const rows = (await db.execute(
        sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
      )) as unknown as Array<{ table_name: string }>;
      const listed = [...everyTable.map(({ table }) => getTableName(table)), "settings"].sort();
      expect(rows.map((row) => row.table_name)).toEqual(listed);
    } finally {
      await client.end();
    }
  });

  test("second probe, finding 6: migration 0003 ends the tokens of a user whose tokens had ended, and only theirs", async () => {
    const client = postgres(await pg.freshUrl(), { max: 1, onnotice: () => undefined });
    try {
      // The schema as migrations 0000 to 0002 made it: one user reset at 1800000000123, one never.
      await client.unsafe("drop schema public cascade; create schema public");
      for (const file of ["0000_init.sql", "0001_received_files_and_rate_counts.sql", "0002_console_lists.sql"])
        for (const statement of migrationStatements(migrations, file)) await client.unsafe(statement);
      await client.unsafe(`insert into users
        (email_key, email, password_hash, password_seed, disabled, tokens_valid_after, created_at, updated_at) values
        ('reset@example.com', 'reset@example.com', 'h', null, false, 1800000000123, 1, 1),
        ('never@example.com', 'never@example.com', 'h', null, false, null, 1, 1)`);
      for (const statement of migrationStatements(migrations, "0003_users_token_generation.sql"))
        await client.unsafe(statement);
      const rows = await client.unsafe("select email, token_generation from users order by email");
      // A token issued before names no generation: the reset user's are refused, the other's still work.
      expect(rows.map((row) => [row.email, row.token_generation])).toEqual([
        ["never@example.com", null],
        ["reset@example.com", "ended-1800000000123"],
      ]);
    } finally {
      await client.end();
    }
  });

  test("nodes opening a new database together migrate it once, and all of them open", async () => {
    const url = await pg.freshUrl();
    // A database with no schema yet: the template's tables dropped.
    const admin = postgres(url, { max: 1, onnotice: () => undefined });
    await admin.unsafe("drop schema public cascade; create schema public; drop schema if exists drizzle cascade");
    await admin.end();
    const nodes = await Promise.all([1, 2, 3, 4].map(() => openStores(url)));
    await nodes[0]?.tenancy.ensureAccount("acme", 1);
    for (const node of nodes) expect(await node.tenancy.listAccounts()).toEqual([{ name: "acme", createdAt: 1 }]);
    const check = postgres(url, { max: 1, onnotice: () => undefined });
    try {
      const applied = await check`select count(*)::int as n from drizzle.__drizzle_migrations`;
      // Each migration applied once, not once per node.
      expect(applied[0]?.n).toBe(journal.entries.length);
    } finally {
      await check.end();
    }
  });
});
