import { notInArray, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import type { ErasedRecords, EraseOptions, Stores } from "../../core/ports/index.ts";
import { inErasureOrder } from "../store-sql/erase-order.ts";
import { openPostgresDatabase, type PgDatabase } from "./database.ts";
import { PgDataLayerRepo } from "./datalayer.repo.ts";
import { PgEventRepo } from "./events.repo.ts";
import { PgFileStatusRepo } from "./files.repo.ts";
import { PgPrivacyRepo } from "./privacy.repo.ts";
import { PgProfileRepo } from "./profiles.repo.ts";
import { PgRateCountRepo } from "./rate-counts.repo.ts";
import { PgReceivedFiles } from "./received-files.repo.ts";
import { PgRevisionRepo } from "./revisions.repo.ts";
import * as schema from "./schema.ts";
import { PgLockoutRepo, PgSessionRepo } from "./sessions.repo.ts";
import { PgSettingsRepo } from "./settings.repo.ts";
import { settings } from "./settings.schema.ts";
import { PgTenancyRepo } from "./tenancy.repo.ts";

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` (SVC_DATABASE_URL). */
  readonly url: string;
  /** Connections in this node's pool (default 10). */
  readonly maxConnections?: number;
}

/**
 * Opens the PostgreSQL store at `url` and brings its schema up to date under an advisory lock. Several nodes
 * may open the same database: everything they must agree on (users, sessions, settings, leases, events, the
 * files received for import) is in it, and each write the ports describe as atomic is one transaction.
 */
export async function openPostgresStores(options: PostgresStoreOptions): Promise<Stores> {
  const { client, db } = await openPostgresDatabase(options.url, options.maxConnections);
  try {
    const tenancy = new PgTenancyRepo(db);
    return {
      kind: "postgres",
      tenancy,
      settings: new PgSettingsRepo(db),
      sessions: new PgSessionRepo(db),
      lockouts: new PgLockoutRepo(db),
      revisions: new PgRevisionRepo(db),
      dataLayers: new PgDataLayerRepo(db),
      events: new PgEventRepo(db),
      profiles: new PgProfileRepo(db),
      files: new PgFileStatusRepo(db),
      receivedFiles: new PgReceivedFiles(db),
      privacy: new PgPrivacyRepo(db),
      rateCounts: new PgRateCountRepo(db),
      eraseAll: (erase) => eraseEveryTable(db, erase),
      async ping() {
        await db.execute(sql`select 1`);
      },
      async close() {
        await client.end({ timeout: 5 });
      },
    };
  } catch (error) {
    await client.end({ timeout: 1 });
    throw error;
  }
}

/** Every table of the schema but settings, in the order Stores.eraseAll empties them (postgres.stores.test.ts checks none is left out). */
export const everyTable = inErasureOrder<PgTable>(schema);

/**
 * Stores.eraseAll: one transaction, which every node sees whole or not at all. Sequences are not reset, so the
 * events' sequence numbers go on.
 */
async function eraseEveryTable(db: PgDatabase, options: EraseOptions): Promise<ErasedRecords> {
  return db.transaction(async (tx) => {
    const counts: Record<string, number> = {};
    for (const { table, counted } of everyTable) {
      const deleted = await tx.delete(table);
      if (counted) counts[counted] = deleted.count;
    }
    const keptSettings =
      options.keepSettings.length > 0
        ? await tx.delete(settings).where(notInArray(settings.key, [...options.keepSettings]))
        : await tx.delete(settings);
    counts.settings = keptSettings.count;
    return counts as unknown as ErasedRecords;
  });
}
