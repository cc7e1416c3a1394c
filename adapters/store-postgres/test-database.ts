/**
 * Test support of the PostgreSQL store: one real server per test file (tools/postgres-server.ts), a template
 * database migrated once, and a fresh database copied from it for each test.
 */
import { afterAll, beforeAll } from "bun:test";
import { type PostgresServer, startPostgresServer } from "../../tools/postgres-server.ts";
import { openPostgresDatabase, type PostgresDatabase } from "./database.ts";

const template = "svc_template";

export interface PostgresForTests {
  /** The server of this test file. */
  readonly server: () => PostgresServer;
  /** The URL of a fresh database with the schema applied. */
  readonly freshUrl: () => Promise<string>;
  /** A fresh database with the schema applied, connected (close it with `client.end()`). */
  readonly freshDatabase: () => Promise<PostgresDatabase>;
}

/** Starts the server before the file's tests and stops it after. */
export function postgresForTests(): PostgresForTests {
  let server: PostgresServer | null = null;
  let made = 0;
  beforeAll(async () => {
    server = await startPostgresServer();
    const { client } = await openPostgresDatabase(await server.createDatabase(template), 1);
    await client.end();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  const running = () => {
    if (!server) throw new Error("the PostgreSQL server of this test file is not running");
    return server;
  };
  const freshUrl = () => running().createDatabase(`t${++made}`, template);
  return {
    server: running,
    freshUrl,
    freshDatabase: async () => openPostgresDatabase(await freshUrl(), 4),
  };
}
