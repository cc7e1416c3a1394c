import { and, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { ProfileConfig } from "../../core/config/index.ts";
import { deepFreeze } from "../../core/json/index.ts";
import type { AccountRecord, ProfileRecord, TenancyStore, UserChanges, UserRecord } from "../../core/ports/index.ts";
import { type ApiKeyRow, SqlApiKeyStore, sortByCodeUnits } from "../store-sql/api-keys.repo.ts";
import { profileConfigRowsOf } from "../store-sql/profile-config.rows.ts";
import { emailKey } from "../store-sql/sessions.repo.ts";
import { attributes, audiences, engines, fileDefinitions, visitorIdAttributes } from "./profile-config.schema.ts";
import { accounts, apiKeys, profiles, userGrants, users } from "./tenancy.schema.ts";

/*
 * Writes that touch several rows go through `db.batch`, which libSQL runs as one transaction on one
 * connection without yielding: other callers wait for it instead of seeing half of it, and multi-table
 * reads use a batch too so that they see one snapshot. (An interactive `db.transaction` would hold the
 * connection across awaits; see openLibsqlStores.)
 */

type Statement = BatchItem<"sqlite">;

/** The tables holding a profile's configuration, all replaced together by putProfile. */
const profileConfigTables = [visitorIdAttributes, attributes, audiences, engines, fileDefinitions] as const;

/**
 * What the reads below answered, kept while the database is unchanged: a moments lookup, a session check or
 * an access decision would otherwise read a profile's configuration (six queries) or a user on every
 * request. `PRAGMA data_version` changes whenever another connection (another process on the same file)
 * commits, and this repository's own writes clear what is kept, so an answer is what the store holds. The
 * version is asked at most once per turn of the event loop: the requests handled in one turn share it. It is
 * asked on the client's own connection, whose own commits leave it unchanged: asked on another (the statement
 * reader), every session touch would empty the cache (bench/FINDINGS.md, sixth round).
 *
 * "Not found" is kept too (a moments lookup of an unknown engine reads its profile each time), but only for
 * `keptNotFoundAnswers` names between two writes: anyone can ask for made-up accounts, profiles or users.
 */
export class ReadCache {
  /** Each answer, frozen (TenancyStore: records are shared by every reader; a list is a new array each time). */
  private readonly entries = new Map<string, unknown>();
  /** How many of the entries are "not found" (null). */
  private notFoundKept = 0;
  private version: unknown = null;
  /** Counts local writes: a read that began before one must not store what it read. */
  private generation = 0;
  private versionThisTurn: Promise<unknown> | null = null;

  constructor(private readonly db: LibSQLDatabase) {}

  private currentVersion(): Promise<unknown> {
    if (!this.versionThisTurn) {
      this.versionThisTurn = this.db
        .all<{ data_version: number }>(sql`PRAGMA data_version`)
        .then(([row]) => row?.data_version ?? null);
      setImmediate(() => (this.versionThisTurn = null));
    }
    return this.versionThisTurn;
  }

  async read<T>(key: string, load: () => Promise<T>): Promise<T> {
    const version = await this.currentVersion();
    if (version === null || version !== this.version) {
      this.empty();
      this.version = version;
    }
    if (this.entries.has(key)) return handedOut(this.entries.get(key) as T);
    const generation = this.generation;
    const value = deepFreeze(await load());
    const unchanged = version !== null && generation === this.generation && version === this.version;
    if (unchanged && !this.entries.has(key) && (value !== null || this.notFoundKept < keptNotFoundAnswers)) {
      if (value === null) this.notFoundKept += 1;
      this.entries.set(key, value);
    }
    return handedOut(value);
  }

  clear(): void {
    this.generation += 1;
    this.empty();
  }

  private empty(): void {
    this.entries.clear();
    this.notFoundKept = 0;
  }
}

/** How many "not found" answers the tenancy reads keep at most between two writes. */
export const keptNotFoundAnswers = 1024;

/** A kept answer as a reader gets it: the frozen record itself, or a new array of frozen records. */
function handedOut<T>(value: T): T {
  return (Array.isArray(value) ? value.slice() : value) as T;
}

export class LibsqlTenancyRepo extends SqlApiKeyStore implements TenancyStore {
  private readonly cache: ReadCache;

  constructor(private readonly db: LibSQLDatabase) {
    super(db, { apiKeys, users });
    this.cache = new ReadCache(db);
  }

  /** Forgets every kept answer: the store was changed on this connection by someone else than this repository (Stores.eraseAll). */
  forgetReads(): void {
    this.cache.clear();
  }

  listAccounts(): Promise<AccountRecord[]> {
    return this.cache.read("accounts", async () =>
      sortByCodeUnits(await this.db.select().from(accounts), (account) => account.name),
    );
  }

  findAccount(name: string): Promise<AccountRecord | null> {
    return this.cache.read(`account\u0000${name}`, async () => {
      const [row] = await this.db.select().from(accounts).where(eq(accounts.name, name));
      return row ?? null;
    });
  }

  async ensureAccount(name: string, now: number): Promise<void> {
    try {
      await this.db.insert(accounts).values({ name, createdAt: now }).onConflictDoNothing();
    } finally {
      this.cache.clear();
    }
  }

  listProfiles(account: string): Promise<ProfileRecord[]> {
    return this.cache.read(`profiles\u0000${account}`, () => this.readProfiles(account));
  }

  findProfile(account: string, profile: string): Promise<ProfileRecord | null> {
    return this.cache.read(`profile\u0000${account}\u0000${profile}`, async () => {
      const [found] = await this.readProfiles(account, profile);
      return found ?? null;
    });
  }

  async putProfile(account: string, config: ProfileConfig, now: number): Promise<void> {
    try {
      await this.writeProfile(account, config, now);
    } finally {
      this.cache.clear();
    }
  }

  private async writeProfile(account: string, config: ProfileConfig, now: number): Promise<void> {
    // The foreign key would refuse the profile as well; checking first gives the reference's error.
    if (!(await this.findAccount(account))) throw new Error(`account ${account} does not exist`);
    const { db } = this;
    const name = config.name;
    const statements: [Statement, ...Statement[]] = [
      db
        .insert(profiles)
        .values({ account, name, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({ target: [profiles.account, profiles.name], set: { updatedAt: now } }),
    ];
    for (const table of profileConfigTables) {
      statements.push(db.delete(table).where(and(eq(table.account, account), eq(table.profile, name))));
    }
    const rows = profileConfigRowsOf(account, config);
    if (rows.visitorIdAttributes.length > 0)
      statements.push(db.insert(visitorIdAttributes).values(rows.visitorIdAttributes));
    if (rows.attributes.length > 0) statements.push(db.insert(attributes).values(rows.attributes));
    if (rows.audiences.length > 0) statements.push(db.insert(audiences).values(rows.audiences));
    if (rows.engines.length > 0) statements.push(db.insert(engines).values(rows.engines));
    if (rows.fileDefinitions.length > 0) statements.push(db.insert(fileDefinitions).values(rows.fileDefinitions));
    await db.batch(statements);
  }

  async listUsers(): Promise<UserRecord[]> {
    const { db } = this;
    const [userRows, grantRows] = await db.batch([
      db.select().from(users),
      db.select().from(userGrants).orderBy(userGrants.userEmailKey, userGrants.position),
    ]);
    const grantsByUser = groupBy(grantRows, (grant) => grant.userEmailKey);
    const records = userRows.map((row) => toUserRecord(row, grantsByUser.get(row.emailKey) ?? []));
    return sortByCodeUnits(records.map(deepFreeze), (user) => user.email);
  }

  findUser(email: string): Promise<UserRecord | null> {
    return this.cache.read(`user\u0000${emailKey(email)}`, () => this.readUser(email));
  }

  private async readUser(email: string): Promise<UserRecord | null> {
    const { db } = this;
    const key = emailKey(email);
    const [userRows, grantRows] = await db.batch([
      db.select().from(users).where(eq(users.emailKey, key)),
      db.select().from(userGrants).where(eq(userGrants.userEmailKey, key)).orderBy(userGrants.position),
    ]);
    const [row] = userRows;
    return row ? toUserRecord(row, grantRows) : null;
  }

  async putUser(user: UserRecord): Promise<void> {
    try {
      await this.writeUser(user);
    } finally {
      this.cache.clear();
    }
  }

  private async writeUser(user: UserRecord): Promise<void> {
    const { db } = this;
    const key = emailKey(user.email);
    const row = {
      email: user.email,
      passwordHash: user.passwordHash,
      passwordSeed: user.passwordSeed,
      disabled: user.disabled,
      tokenGeneration: user.tokenGeneration,
      createdAt: user.createdAt,
      updatedAt: user.updatedAt,
    };
    // An upsert, not delete and insert: deleting the user would cascade to its API keys.
    const statements: [Statement, ...Statement[]] = [
      db
        .insert(users)
        .values({ emailKey: key, ...row })
        .onConflictDoUpdate({ target: users.emailKey, set: row }),
      db.delete(userGrants).where(eq(userGrants.userEmailKey, key)),
    ];
    if (user.grants.length > 0) {
      statements.push(
        db.insert(userGrants).values(
          user.grants.map((grant, position) => ({
            userEmailKey: key,
            position,
            account: grant.account,
            profiles: grant.profiles,
          })),
        ),
      );
    }
    await db.batch(statements);
  }

  async updateUser(email: string, changes: UserChanges): Promise<UserRecord | null> {
    try {
      return await this.writeChanges(email, changes);
    } finally {
      this.cache.clear();
    }
  }

  private async writeChanges(email: string, changes: UserChanges): Promise<UserRecord | null> {
    const { db } = this;
    const key = emailKey(email);
    const { grants, ...columns } = changes;
    // Users are never deleted, so one that exists here still does when the batch (one transaction) runs.
    const [found] = await db.select({ key: users.emailKey }).from(users).where(eq(users.emailKey, key));
    if (!found) return null;
    const statements: [Statement, ...Statement[]] = [db.update(users).set(columns).where(eq(users.emailKey, key))];
    if (grants !== undefined) {
      statements.push(db.delete(userGrants).where(eq(userGrants.userEmailKey, key)));
      if (grants.length > 0) {
        statements.push(
          db.insert(userGrants).values(
            grants.map((grant, position) => ({
              userEmailKey: key,
              position,
              account: grant.account,
              profiles: grant.profiles,
            })),
          ),
        );
      }
    }
    await db.batch(statements);
    return this.readUser(email);
  }

  protected async upsertApiKey(id: string, row: ApiKeyRow): Promise<void> {
    await this.db
      .insert(apiKeys)
      .values({ id, ...row })
      .onConflictDoUpdate({ target: apiKeys.id, set: row });
  }

  /** The profiles of an account (or the one named), with their configuration, read in one snapshot. */
  private async readProfiles(account: string, profile?: string): Promise<ProfileRecord[]> {
    const { db } = this;
    const inScope = (table: { account: SQLiteColumn; profile: SQLiteColumn }) =>
      and(eq(table.account, account), profile === undefined ? undefined : eq(table.profile, profile));
    const [profileRows, visitorIdRows, attributeRows, audienceRows, engineRows, fileRows] = await db.batch([
      db
        .select()
        .from(profiles)
        .where(and(eq(profiles.account, account), profile === undefined ? undefined : eq(profiles.name, profile))),
      db.select().from(visitorIdAttributes).where(inScope(visitorIdAttributes)).orderBy(visitorIdAttributes.position),
      db.select().from(attributes).where(inScope(attributes)).orderBy(attributes.position),
      db.select().from(audiences).where(inScope(audiences)).orderBy(audiences.position),
      db.select().from(engines).where(inScope(engines)).orderBy(engines.position),
      db.select().from(fileDefinitions).where(inScope(fileDefinitions)).orderBy(fileDefinitions.position),
    ]);
    const byProfile = <R extends { profile: string }>(rows: R[]) => groupBy(rows, (row) => row.profile);
    const visitorIds = byProfile(visitorIdRows);
    const attributeDefinitions = byProfile(attributeRows);
    const audienceDefinitions = byProfile(audienceRows);
    const engineDefinitions = byProfile(engineRows);
    const files = byProfile(fileRows);
    const records = profileRows.map(
      (row): ProfileRecord => ({
        account: row.account,
        config: {
          name: row.name,
          visitorIdAttributes: (visitorIds.get(row.name) ?? []).map((attribute) => ({
            id: attribute.id,
            name: attribute.name,
            parameter: attribute.parameter,
          })),
          attributes: (attributeDefinitions.get(row.name) ?? []).map((attribute) => ({
            id: attribute.id,
            name: attribute.name,
            type: attribute.type,
            pii: attribute.pii,
            enrichments: attribute.enrichments,
          })),
          audiences: (audienceDefinitions.get(row.name) ?? []).map((audience) => ({
            id: audience.id,
            name: audience.name,
            conditions: audience.conditions,
          })),
          engines: (engineDefinitions.get(row.name) ?? []).map((engine) => ({
            id: engine.id,
            name: engine.name,
            enabled: engine.enabled,
            allowedDomains: engine.allowedDomains,
            keys: engine.keys,
            audiences: engine.audiences,
            badges: engine.badges,
            attributes: engine.attributes,
          })),
          fileDefinitions: (files.get(row.name) ?? []).map((definition) => ({
            prefix: definition.prefix,
            event: definition.event,
            visitorId: { column: definition.visitorIdColumn, attribute: definition.visitorIdAttribute },
            columns: definition.columns,
          })),
        },
        createdAt: row.createdAt,
        updatedAt: row.updatedAt,
      }),
    );
    return sortByCodeUnits(records, (record) => record.config.name);
  }
}

function toUserRecord(row: typeof users.$inferSelect, grants: readonly (typeof userGrants.$inferSelect)[]): UserRecord {
  return {
    email: row.email,
    passwordHash: row.passwordHash,
    passwordSeed: row.passwordSeed,
    disabled: row.disabled,
    grants: grants.map((grant) => ({ account: grant.account, profiles: grant.profiles })),
    tokenGeneration: row.tokenGeneration,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function groupBy<R>(rows: readonly R[], keyOf: (row: R) => string): Map<string, R[]> {
  const groups = new Map<string, R[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return groups;
}
