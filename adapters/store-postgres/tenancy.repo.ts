import { and, eq, getTableName, is, type SQL, sql } from "drizzle-orm";
import { PgColumn, type PgTable } from "drizzle-orm/pg-core";
import type {
  AttributeDefinition,
  AudienceDefinition,
  EngineDefinition,
  FileDefinition,
  Grant,
  ProfileConfig,
  VisitorIdAttribute,
} from "../../core/config/index.ts";
import { deepFreeze } from "../../core/json/index.ts";
import type { AccountRecord, ProfileRecord, TenancyStore, UserChanges, UserRecord } from "../../core/ports/index.ts";
import { type ApiKeyRow, SqlApiKeyStore, sortByCodeUnits } from "../store-sql/api-keys.repo.ts";
import { profileConfigRowsOf } from "../store-sql/profile-config.rows.ts";
import { emailKey } from "../store-sql/sessions.repo.ts";
import type { PgDatabase } from "./database.ts";
import { attributes, audiences, engines, fileDefinitions, visitorIdAttributes } from "./profile-config.schema.ts";
import { accounts, apiKeys, profiles, userGrants, users } from "./tenancy.schema.ts";

/*
 * Nothing read here is kept between calls. The libSQL store keeps its answers while SQLite's `data_version`
 * stays the same; here several nodes write to one database and there is no such cheap signal of another node's
 * commit, so a kept answer could be another node's past (a disabled user still let in, a profile's old
 * configuration): correctness first, every read asks the database.
 *
 * What the libSQL store reads in one batch is one statement here (the rows that hang off a profile or a user
 * gathered as JSON arrays by subqueries), so that it sees one snapshot in one round trip. Writes that touch
 * several rows are one transaction that first takes the row they replace (the upsert of the profile or the
 * user), so that two nodes replacing the same one take turns and the last leaves the whole of its version.
 */

/** The tables holding a profile's configuration, all replaced together by putProfile. */
const profileConfigTables = [visitorIdAttributes, attributes, audiences, engines, fileDefinitions] as const;

export class PgTenancyRepo extends SqlApiKeyStore implements TenancyStore {
  constructor(private readonly db: PgDatabase) {
    super(db, { apiKeys, users });
  }

  async listAccounts(): Promise<AccountRecord[]> {
    const rows = await this.db.select().from(accounts);
    return sortByCodeUnits(rows.map(deepFreeze), (account) => account.name);
  }

  async findAccount(name: string): Promise<AccountRecord | null> {
    const [row] = await this.db.select().from(accounts).where(eq(accounts.name, name));
    return row ? deepFreeze(row) : null;
  }

  async ensureAccount(name: string, now: number): Promise<void> {
    await this.db.insert(accounts).values({ name, createdAt: now }).onConflictDoNothing();
  }

  listProfiles(account: string): Promise<ProfileRecord[]> {
    return this.readProfiles(account);
  }

  async findProfile(account: string, profile: string): Promise<ProfileRecord | null> {
    const [found] = await this.readProfiles(account, profile);
    return found ?? null;
  }

  async putProfile(account: string, config: ProfileConfig, now: number): Promise<void> {
    const name = config.name;
    await this.db.transaction(async (tx) => {
      // The foreign key would refuse the profile as well; checking first gives the reference's error.
      const [found] = await tx.select({ name: accounts.name }).from(accounts).where(eq(accounts.name, account));
      if (!found) throw new Error(`account ${account} does not exist`);
      await tx
        .insert(profiles)
        .values({ account, name, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({ target: [profiles.account, profiles.name], set: { updatedAt: now } });
      for (const table of profileConfigTables) {
        await tx.delete(table).where(and(eq(table.account, account), eq(table.profile, name)));
      }
      const rows = profileConfigRowsOf(account, config);
      if (rows.visitorIdAttributes.length > 0) await tx.insert(visitorIdAttributes).values(rows.visitorIdAttributes);
      if (rows.attributes.length > 0) await tx.insert(attributes).values(rows.attributes);
      if (rows.audiences.length > 0) await tx.insert(audiences).values(rows.audiences);
      if (rows.engines.length > 0) await tx.insert(engines).values(rows.engines);
      if (rows.fileDefinitions.length > 0) await tx.insert(fileDefinitions).values(rows.fileDefinitions);
    });
  }

  async listUsers(): Promise<UserRecord[]> {
    const rows = await this.selectUsers();
    return sortByCodeUnits(rows.map(deepFreeze), (user) => user.email);
  }

  async findUser(email: string): Promise<UserRecord | null> {
    const [row] = await this.selectUsers().where(eq(users.emailKey, emailKey(email)));
    return row ? deepFreeze(row) : null;
  }

  /** The columns of a UserRecord, its grants a JSON array in their order: one statement, one snapshot. */
  private selectUsers() {
    const ofUser = sql`${qualified(userGrants.userEmailKey)} = ${qualified(users.emailKey)}`;
    const grant = jsonObject({ account: userGrants.account, profiles: userGrants.profiles });
    const entries = sql`json_agg(${grant} order by ${qualified(userGrants.position)})`;
    const grants = sql<Grant[]>`(select coalesce(${entries}, '[]'::json) from ${userGrants} where ${ofUser})`;
    return this.db
      .select({
        email: users.email,
        passwordHash: users.passwordHash,
        passwordSeed: users.passwordSeed,
        disabled: users.disabled,
        grants,
        tokenGeneration: users.tokenGeneration,
        createdAt: users.createdAt,
        updatedAt: users.updatedAt,
      })
      .from(users)
      .$dynamic();
  }

  async putUser(user: UserRecord): Promise<void> {
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
    await this.db.transaction(async (tx) => {
      // An upsert, not delete and insert: deleting the user would cascade to its API keys.
      await tx
        .insert(users)
        .values({ emailKey: key, ...row })
        .onConflictDoUpdate({ target: users.emailKey, set: row });
      await tx.delete(userGrants).where(eq(userGrants.userEmailKey, key));
      if (user.grants.length > 0) {
        await tx.insert(userGrants).values(
          user.grants.map((grant, position) => ({
            userEmailKey: key,
            position,
            account: grant.account,
            profiles: grant.profiles,
          })),
        );
      }
    });
  }

  async updateUser(email: string, changes: UserChanges): Promise<UserRecord | null> {
    const key = emailKey(email);
    const { grants, ...columns } = changes;
    const updated = await this.db.transaction(async (tx) => {
      // The update takes the user's row first, as putUser's upsert does, so that writers of one user take turns.
      const rows = await tx
        .update(users)
        .set(columns)
        .where(eq(users.emailKey, key))
        .returning({ key: users.emailKey });
      if (rows.length === 0) return false;
      if (grants !== undefined) {
        await tx.delete(userGrants).where(eq(userGrants.userEmailKey, key));
        if (grants.length > 0) {
          await tx.insert(userGrants).values(
            grants.map((grant, position) => ({
              userEmailKey: key,
              position,
              account: grant.account,
              profiles: grant.profiles,
            })),
          );
        }
      }
      return true;
    });
    return updated ? this.findUser(email) : null;
  }

  protected async upsertApiKey(id: string, row: ApiKeyRow): Promise<void> {
    await this.db
      .insert(apiKeys)
      .values({ id, ...row })
      .onConflictDoUpdate({ target: apiKeys.id, set: row });
  }

  /** The profiles of an account (or the one named), with their configuration, read in one statement. */
  private async readProfiles(account: string, profile?: string): Promise<ProfileRecord[]> {
    const rows = await this.db
      .select({
        account: profiles.account,
        name: profiles.name,
        createdAt: profiles.createdAt,
        updatedAt: profiles.updatedAt,
        visitorIdAttributes: entriesOf<VisitorIdAttribute>(visitorIdAttributes, {
          id: visitorIdAttributes.id,
          name: visitorIdAttributes.name,
          parameter: visitorIdAttributes.parameter,
        }),
        attributes: entriesOf<AttributeDefinition>(attributes, {
          id: attributes.id,
          name: attributes.name,
          type: attributes.type,
          pii: attributes.pii,
          enrichments: attributes.enrichments,
        }),
        audiences: entriesOf<AudienceDefinition>(audiences, {
          id: audiences.id,
          name: audiences.name,
          conditions: audiences.conditions,
        }),
        engines: entriesOf<EngineDefinition>(engines, {
          id: engines.id,
          name: engines.name,
          enabled: engines.enabled,
          allowedDomains: engines.allowedDomains,
          keys: engines.keys,
          audiences: engines.audiences,
          badges: engines.badges,
          attributes: engines.attributes,
        }),
        fileDefinitions: entriesOf<FileDefinition>(fileDefinitions, {
          prefix: fileDefinitions.prefix,
          event: fileDefinitions.event,
          visitorId: jsonObject({
            column: fileDefinitions.visitorIdColumn,
            attribute: fileDefinitions.visitorIdAttribute,
          }),
          columns: fileDefinitions.columns,
        }),
      })
      .from(profiles)
      .where(and(eq(profiles.account, account), profile === undefined ? undefined : eq(profiles.name, profile)));
    const records = rows.map(
      (row): ProfileRecord =>
        deepFreeze({
          account: row.account,
          config: {
            name: row.name,
            visitorIdAttributes: row.visitorIdAttributes,
            attributes: row.attributes,
            audiences: row.audiences,
            engines: row.engines,
            fileDefinitions: row.fileDefinitions,
          },
          createdAt: row.createdAt,
          updatedAt: row.updatedAt,
        }),
    );
    return sortByCodeUnits(records, (record) => record.config.name);
  }
}

/** A JSON object of the fields given, built by the database (the keys are this file's own names). */
function jsonObject(fields: Record<string, PgColumn | SQL>): SQL {
  const pairs = Object.entries(fields).map(
    ([key, value]) => sql`${key}::text, ${is(value, PgColumn) ? qualified(value) : value}`,
  );
  return sql`json_build_object(${sql.join(pairs, sql`, `)})`;
}

/** A configuration table of a profile: its rows belong to (account, profile) and keep their `position`. */
type ProfileConfigTable = PgTable & { account: PgColumn; profile: PgColumn; position: PgColumn };

/**
 * The entries of one configuration table for the profile row of the enclosing query, as a JSON array in their
 * order (empty when there are none).
 */
function entriesOf<T>(table: ProfileConfigTable, fields: Record<string, PgColumn | SQL>): SQL<T[]> {
  const sameAccount = sql`${qualified(table.account)} = ${qualified(profiles.account)}`;
  const sameProfile = sql`${qualified(table.profile)} = ${qualified(profiles.name)}`;
  const entries = sql`json_agg(${jsonObject(fields)} order by ${qualified(table.position)})`;
  return sql<T[]>`(select coalesce(${entries}, '[]'::json) from ${table} where ${sameAccount} and ${sameProfile})`;
}

/**
 * A column named with its table: drizzle names a column of a one-table query alone, which inside a subquery
 * would mean the subquery's own table where the enclosing query's is meant.
 */
function qualified(column: PgColumn): SQL {
  return sql`${sql.identifier(getTableName(column.table))}.${sql.identifier(column.name)}`;
}
