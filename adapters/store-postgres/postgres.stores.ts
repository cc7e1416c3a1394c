import { notInArray, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import type { ErasedRecords, EraseOptions, Stores } from "../../core/ports/index.ts";
import { openPostgresDatabase, type PgDatabase } from "./database.ts";
import { PgDataLayerRepo } from "./datalayer.repo.ts";
import { dataLayerChanges, dataLayers } from "./datalayer.schema.ts";
import { PgEventRepo } from "./events.repo.ts";
import { events } from "./events.schema.ts";
import { PgFileStatusRepo } from "./files.repo.ts";
import { fileImports } from "./files.schema.ts";
import { PgPrivacyRepo } from "./privacy.repo.ts";
import { privacyAudit, privacyTransactions } from "./privacy.schema.ts";
import { attributes, audiences, engines, fileDefinitions, visitorIdAttributes } from "./profile-config.schema.ts";
import { PgProfileRepo } from "./profiles.repo.ts";
import { engineStates, visitorMembers, visitorMerges, visitorProfiles } from "./profiles.schema.ts";
import { PgRateCountRepo } from "./rate-counts.repo.ts";
import { collectRateCounts } from "./rate-counts.schema.ts";
import { PgReceivedFiles } from "./received-files.repo.ts";
import { receivedFileChunks, receivedFiles } from "./received-files.schema.ts";
import { PgRevisionRepo } from "./revisions.repo.ts";
import { revisions, revisionTargets } from "./revisions.schema.ts";
import { PgLockoutRepo, PgSessionRepo } from "./sessions.repo.ts";
import { lockouts, sessions } from "./sessions.schema.ts";
import { PgSettingsRepo } from "./settings.repo.ts";
import { settings } from "./settings.schema.ts";
import { PgTenancyRepo } from "./tenancy.repo.ts";
import { accounts, apiKeys, profiles, userGrants, users } from "./tenancy.schema.ts";

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

/**
 * Every table of the schema, the rows that refer to another table's before that table's, and what
 * Stores.eraseAll counts each one's rows as (as the libSQL store's list; postgres.stores.test.ts fails while a
 * table of the schema is left out).
 */
export const everyTable: ReadonlyArray<{
  readonly table: PgTable;
  readonly counted?: Exclude<keyof ErasedRecords, "settings">;
}> = [
  { table: events, counted: "events" },
  { table: visitorMembers },
  { table: visitorMerges },
  { table: visitorProfiles, counted: "visitorProfiles" },
  { table: engineStates },
  { table: privacyAudit },
  { table: privacyTransactions, counted: "privacyTransactions" },
  { table: fileImports, counted: "fileImports" },
  { table: receivedFileChunks },
  { table: receivedFiles, counted: "receivedFiles" },
  { table: dataLayerChanges },
  { table: dataLayers, counted: "dataLayers" },
  { table: revisionTargets },
  { table: revisions, counted: "revisions" },
  { table: sessions, counted: "sessions" },
  { table: lockouts, counted: "lockouts" },
  { table: apiKeys, counted: "apiKeys" },
  { table: userGrants },
  { table: users, counted: "users" },
  { table: visitorIdAttributes },
  { table: attributes },
  { table: audiences },
  { table: engines },
  { table: fileDefinitions },
  { table: profiles, counted: "profiles" },
  { table: accounts, counted: "accounts" },
  { table: collectRateCounts },
];

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
