import { closeSync, fsyncSync, mkdirSync, openSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type Client, createClient } from "@libsql/client/sqlite3";
import { notInArray, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { drizzle } from "drizzle-orm/libsql/sqlite3";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { ErasedRecords, EraseOptions, Stores } from "../../core/ports/index.ts";
import { packagedFilePath } from "../runtime/packaged-files.ts";
import { inErasureOrder } from "../store-sql/erase-order.ts";
import { LookupThreadOnFirstRead } from "../threads/lookup-host.ts";
import { LibsqlDataLayerRepo } from "./datalayer.repo.ts";
import { LibsqlEventRepo } from "./events.repo.ts";
import { LibsqlFileStatusRepo } from "./files.repo.ts";
import { PreparedStatementsClient } from "./prepared-statements-client.ts";
import { LibsqlPrivacyRepo } from "./privacy.repo.ts";
import { LibsqlProfileRepo } from "./profiles.repo.ts";
import { LibsqlRateCountRepo } from "./rate-counts.repo.ts";
import { LibsqlRevisionRepo } from "./revisions.repo.ts";
import * as schema from "./schema.ts";
import { LibsqlLockoutRepo, LibsqlSessionRepo } from "./sessions.repo.ts";
import { LibsqlSettingsRepo } from "./settings.repo.ts";
import { settings } from "./settings.schema.ts";
import { StatementReader } from "./statement-reader.ts";
import { LibsqlTenancyRepo } from "./tenancy.repo.ts";

const BUSY_TIMEOUT_MS = 5000;

/** Found from the package, so that the store opens from any working directory (and in the single executable). */
const migrationsFolder = packagedFilePath("adapters/store-libsql/migrations");

/** The database file of a data directory, as a libSQL URL; creates the directory if it is missing. */
/** The database file in a data directory. */
export const databaseFileName = "svc-hub.db";

export function databaseUrlForDataDir(dataDir: string): string {
  const directory = resolve(dataDir);
  mkdirSync(directory, { recursive: true });
  // The path part of a file URL, so that characters such as `%`, `?` or `#` in the path survive parsing.
  return `file:${pathToFileURL(join(directory, databaseFileName)).pathname}`;
}

export interface LibsqlStoreOptions {
  readonly url: string;
  /**
   * Runs the moments lookup's reads in a thread of their own (adapters/threads/lookup-host.ts), started by
   * the first of them, for a server's HTTP side; a `file:` database only. Default: on the calling thread.
   */
  readonly lookupThread?: boolean;
  /** Told if the lookup thread stops on its own (its reads then run on the calling thread). */
  readonly onLookupThreadStopped?: (error: Error) => void;
  /**
   * For a server's start: its writes (the schema's migrations, the configuration applied, its revisions) are
   * made again, idempotently, by every start, so they need not reach the disk one by one. The connection commits
   * with synchronous=NORMAL (in WAL mode the file stays consistent after a crash; only the last commits may be
   * lost) until `syncEachCommit()`, called before the first write that must last, which syncs them together.
   * About 30 ms of a fresh start. For a `file:` URL of an absolute path without a query (the server's).
   */
  readonly startUnsynced?: boolean;
}

/** The libSQL store, and the end of its unsynced start (`LibsqlStoreOptions.startUnsynced`). */
export interface LibsqlStores extends Stores {
  /**
   * Syncs the start's commits (the WAL file) and, from now on, every commit (DEC-COL-08). Without
   * `startUnsynced`, nothing to do.
   */
  syncEachCommit(): Promise<void>;
  /** How the connection's commits reach the disk now (PRAGMA synchronous: 1 NORMAL, 2 FULL), for tests. */
  syncMode(): Promise<"NORMAL" | "FULL" | "other">;
}

/**
 * Opens the libSQL store at `url` (`file:/abs/path.db` or `:memory:`) and brings its schema up to date.
 *
 * The client keeps a single connection. libSQL runs each statement synchronously in this process, so more
 * connections would add no throughput, only per-connection settings (the PRAGMAs below) to keep in step.
 * With one connection an interactive transaction would block every other caller (libSQL rejects them
 * rather than queueing), which is why the repositories write with `db.batch` instead. For a file, the client
 * is our own (PreparedStatementsClient), which keeps its statements prepared; in memory, @libsql/client's. Reads
 * that keep their statements prepared run on a read-only connection of their own (StatementReader), and with
 * `lookupThread` the moments lookup's reads on another in a thread.
 */
export async function openLibsqlStores(options: LibsqlStoreOptions): Promise<LibsqlStores> {
  // `timeout` is libSQL's busy timeout; libSQL opens connections with foreign keys on already.
  // Our client for an absolute `file:` path without a query (what databaseUrlForDataDir makes); anything else
  // as @libsql/client reads it.
  const ownClient =
    isFileUrl(options.url) &&
    options.url.startsWith("file:/") &&
    !options.url.startsWith("file://") &&
    !options.url.includes("?");
  const client: Client = ownClient
    ? new PreparedStatementsClient(fileURLToPath(options.url), BUSY_TIMEOUT_MS)
    : createClient({ url: options.url, concurrency: 1, timeout: BUSY_TIMEOUT_MS });
  let reader: StatementReader | null = null;
  try {
    // The server's own file only (an absolute path: the -wal file beside it is known).
    const unsynced = options.startUnsynced === true && ownClient;
    await configureConnection(client, isFileUrl(options.url), unsynced ? "NORMAL" : "FULL");
    const db = drizzle({ client });
    await applyMigrations(db);
    reader = StatementReader.forUrl(options.url, BUSY_TIMEOUT_MS);
    const lookups =
      reader && options.lookupThread
        ? new LookupThreadOnFirstRead(
            { path: reader.path, busyTimeoutMs: BUSY_TIMEOUT_MS },
            reader,
            options.onLookupThreadStopped,
          )
        : null;
    const tenancy = new LibsqlTenancyRepo(db);
    return {
      kind: "libsql",
      tenancy,
      settings: new LibsqlSettingsRepo(db),
      sessions: new LibsqlSessionRepo(db, reader),
      lockouts: new LibsqlLockoutRepo(db),
      revisions: new LibsqlRevisionRepo(db),
      dataLayers: new LibsqlDataLayerRepo(db, reader),
      events: new LibsqlEventRepo(db, reader),
      profiles: new LibsqlProfileRepo(db, lookups ?? reader, reader),
      files: new LibsqlFileStatusRepo(db),
      privacy: new LibsqlPrivacyRepo(db),
      rateCounts: new LibsqlRateCountRepo(db),
      async eraseAll(options) {
        try {
          return await eraseEveryTable(db, options);
        } finally {
          // This connection's own commit leaves `data_version` as it was: the tenancy reads kept must go.
          tenancy.forgetReads();
        }
      },
      async ping() {
        await db.run(sql`select 1`);
      },
      async syncEachCommit() {
        if (!unsynced) return;
        await client.execute("PRAGMA synchronous=FULL");
        // The start's commits are written to the WAL already, not synced: synced now, as a FULL commit would.
        syncFileIfThere(`${fileURLToPath(options.url)}-wal`);
      },
      async syncMode() {
        const level = Number((await client.execute("PRAGMA synchronous")).rows[0]?.[0]);
        return level === 2 ? "FULL" : level === 1 ? "NORMAL" : "other";
      },
      async close() {
        await lookups?.close();
        reader?.close();
        client.close();
      },
    };
  } catch (error) {
    reader?.close();
    client.close();
    throw error;
  }
}

/** fsync(2) of the file at `path`, when there is one. */
function syncFileIfThere(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return;
    throw error;
  }
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Every table of the schema but settings, in the order Stores.eraseAll empties them (libsql.stores.test.ts checks none is left out). */
const everyTable = inErasureOrder<SQLiteTable>(schema);

/**
 * Stores.eraseAll: one `db.batch`, so one transaction, which every other connection (the background thread's,
 * the readers', another process's) sees whole or not at all. secure_delete is asserted in it, as the privacy
 * deletions do: the rows' bytes are zeroed in the file. AUTOINCREMENT keeps its counters (sqlite_sequence),
 * so the events' sequence numbers go on.
 */
async function eraseEveryTable(db: LibSQLDatabase, options: EraseOptions): Promise<ErasedRecords> {
  type Statement = BatchItem<"sqlite">;
  const keptSettings =
    options.keepSettings.length > 0
      ? db.delete(settings).where(notInArray(settings.key, [...options.keepSettings]))
      : db.delete(settings);
  const statements: [Statement, ...Statement[]] = [
    db.run(sql`PRAGMA secure_delete = ON`),
    ...everyTable.map(({ table }) => db.delete(table)),
    keptSettings,
  ];
  const [, ...results] = (await db.batch(statements)) as unknown as Array<{ rowsAffected: number }>;
  const counts: Record<string, number> = { settings: results.at(-1)?.rowsAffected ?? 0 };
  everyTable.forEach(({ counted }, index) => {
    if (counted) counts[counted] = results[index]?.rowsAffected ?? 0;
  });
  return counts as unknown as ErasedRecords;
}

function isFileUrl(url: string): boolean {
  return url.startsWith("file:") && !url.startsWith("file::memory:");
}

async function configureConnection(client: Client, isFile: boolean, synchronous: "FULL" | "NORMAL"): Promise<void> {
  if (isFile) {
    // First, so that everything after it waits for another process's lock instead of failing at once.
    await client.execute(`PRAGMA busy_timeout=${BUSY_TIMEOUT_MS}`);
    // WAL lets readers and one writer from several processes share the file.
    const result = await client.execute("PRAGMA journal_mode=WAL");
    const mode = String(result.rows[0]?.[0] ?? "").toLowerCase();
    if (mode !== "wal") throw new Error(`could not switch the database to WAL mode (it answered ${mode})`);
    // DEC-COL-08, COL-16: FULL syncs the WAL at every commit, so an acknowledged write survives a crash
    // (NORMAL only for a server's start, until it serves: `startUnsynced`).
    await client.execute(`PRAGMA synchronous=${synchronous}`);
  }
  await client.execute("PRAGMA foreign_keys=ON");
  // DEC-PRV-04: deleted content is overwritten with zeros (freed cells and pages), so a deleted visitor's
  // values do not stay readable in the file. Per connection; the erasing batches assert it again.
  await client.execute("PRAGMA secure_delete=ON");
  // Test-only (reliability/full-disk.test.ts): caps the database file at this many pages, so that writes
  // past it fail with SQLITE_FULL exactly as on a full disk. Unset in production.
  const maxPageCount = Number(process.env.SVC_TEST_MAX_PAGE_COUNT);
  if (Number.isSafeInteger(maxPageCount) && maxPageCount > 0)
    await client.execute(`PRAGMA max_page_count=${maxPageCount}`);
}

/**
 * drizzle's migrator reads the applied migrations, then applies the missing ones in one transaction. Two
 * processes opening a fresh file together can both see a migration missing; the loser's transaction fails
 * and rolls back, and a second pass finds the migration recorded and does nothing. A real failure fails
 * again and is reported.
 */
async function applyMigrations(db: LibSQLDatabase): Promise<void> {
  try {
    await migrate(db, { migrationsFolder });
  } catch {
    await migrate(db, { migrationsFolder });
  }
}
