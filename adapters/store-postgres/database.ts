import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { packagedFilePath } from "../runtime/packaged-files.ts";

/** The drizzle database every repository of this store works on, with its postgres.js client (`$client`). */
export type PgDatabase = PostgresJsDatabase & { readonly $client: postgres.Sql };

const migrationsFolder = packagedFilePath("adapters/store-postgres/migrations");

/**
 * The key of the advisory lock that nodes starting together take around the migrations, so that one migrates
 * and the others find the work done. Any 64-bit number no other lock of the database uses: "svc-hub" in ASCII.
 */
const migrationLockKey = 0x7376_632d_6875_62n;

/** A connection pool to the store's database and drizzle on it, its schema brought up to date. */
export interface PostgresDatabase {
  readonly client: postgres.Sql;
  readonly db: PgDatabase;
}

/**
 * Connects to `url` (a pool of at most `maxConnections`) and applies the migrations that are missing, under an
 * advisory lock: nodes starting together migrate once.
 */
export async function openPostgresDatabase(url: string, maxConnections = 10): Promise<PostgresDatabase> {
  const client = postgres(url, {
    max: maxConnections,
    onnotice: () => undefined,
    // The stores' conditional writes rely on READ COMMITTED (a statement that waited for a row lock checks its
    // WHERE again on the committed row), whatever the server's default is.
    connection: { default_transaction_isolation: "read committed" },
    // Epoch milliseconds and sequence numbers are 64-bit columns: answered as numbers (they stay far below
    // 2^53), in raw queries as well as drizzle's.
    types: {
      int8: {
        to: 20,
        from: [20],
        serialize: (value: number) => String(value),
        parse: (value: string) => Number(value),
      },
    },
  });
  try {
    await applyMigrations(url);
  } catch (error) {
    await client.end({ timeout: 1 });
    throw error;
  }
  return { client, db: drizzle({ client }) };
}

/**
 * drizzle's migrator on a connection of its own (a pool of one, so the lock and the migration share a
 * session), holding the migration lock while it runs.
 */
async function applyMigrations(url: string): Promise<void> {
  const session = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    await session`select pg_advisory_lock(${String(migrationLockKey)}::bigint)`;
    await migrate(drizzle({ client: session }), { migrationsFolder });
    await session`select pg_advisory_unlock(${String(migrationLockKey)}::bigint)`;
  } finally {
    // Ending the session releases the lock too, when the migration failed.
    await session.end({ timeout: 5 });
  }
}
