import { eq, type Table } from "drizzle-orm";
import { deepFreeze } from "../../core/json/index.ts";
import type { ApiKeyRecord } from "../../core/ports/index.ts";
import { emailKey } from "./sessions.repo.ts";
import type { SqlColumn, SqlDatabase } from "./sql-database.ts";

/** The `api_keys` table (tenancy.schema.ts of each store). */
export type ApiKeysTable = Table & {
  readonly id: SqlColumn<string>;
  readonly userEmailKey: SqlColumn<string>;
  readonly userEmail: SqlColumn<string>;
  readonly keyHash: SqlColumn<string>;
  readonly keySeed: SqlColumn<string, true>;
  readonly createdAt: SqlColumn<number>;
  readonly revokedAt: SqlColumn<number, true>;
};

/** The `users` table, as far as an API key needs it: its owner's key. */
export type UserKeysTable = Table & { readonly emailKey: SqlColumn<string> };

/**
 * Lists are ordered by UTF-16 code unit, as the in-memory reference orders them. SQLite's BINARY collation
 * compares UTF-8 bytes, which disagrees for characters outside the Basic Multilingual Plane, and PostgreSQL's
 * default collation is the locale's.
 */
export function sortByCodeUnits<T>(items: T[], keyOf: (item: T) => string): T[] {
  return items.sort((a, b) => {
    const x = keyOf(a);
    const y = keyOf(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/** DEC-SES-05: the API keys of the TenancyStore, for both stores; each read asks the database. */
export class SqlApiKeys {
  constructor(
    private readonly db: SqlDatabase,
    private readonly apiKeys: ApiKeysTable,
    private readonly users: UserKeysTable,
  ) {}

  /** The columns of an ApiKeyRecord. */
  private selectApiKeys() {
    const { apiKeys } = this;
    return this.db
      .select({
        id: apiKeys.id,
        userEmail: apiKeys.userEmail,
        keyHash: apiKeys.keyHash,
        keySeed: apiKeys.keySeed,
        createdAt: apiKeys.createdAt,
        revokedAt: apiKeys.revokedAt,
      })
      .from(apiKeys);
  }

  async list(email: string): Promise<ApiKeyRecord[]> {
    const rows = await this.selectApiKeys().where(eq(this.apiKeys.userEmailKey, emailKey(email)));
    return sortByCodeUnits(rows.map(deepFreeze), (apiKey) => apiKey.id);
  }

  async find(id: string): Promise<ApiKeyRecord | null> {
    const [row] = await this.selectApiKeys().where(eq(this.apiKeys.id, id));
    return row ? deepFreeze(row) : null;
  }

  /**
   * The columns an API key's upsert writes (each store's own `on conflict do update`), once its owner is found.
   * The foreign key refuses a key of a user removed meanwhile; checking first gives the reference's error.
   */
  async rowOf(apiKey: ApiKeyRecord) {
    const { users } = this;
    const key = emailKey(apiKey.userEmail);
    const [owner] = await this.db.select({ emailKey: users.emailKey }).from(users).where(eq(users.emailKey, key));
    if (!owner) throw new Error(`user ${apiKey.userEmail} does not exist`);
    return {
      userEmailKey: key,
      userEmail: apiKey.userEmail,
      keyHash: apiKey.keyHash,
      keySeed: apiKey.keySeed,
      createdAt: apiKey.createdAt,
      revokedAt: apiKey.revokedAt,
    };
  }
}
