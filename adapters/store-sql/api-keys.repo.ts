import { eq, type Table } from "drizzle-orm";
import { deepFreeze } from "../../core/json/index.ts";
import type { ApiKeyRecord, TenancyStore } from "../../core/ports/index.ts";
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

/** What an API key's row holds besides its id. */
export interface ApiKeyRow {
  readonly userEmailKey: string;
  readonly userEmail: string;
  readonly keyHash: string;
  readonly keySeed: string | null;
  readonly createdAt: number;
  readonly revokedAt: number | null;
}

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

/**
 * DEC-SES-05: the API keys of the TenancyStore, for both stores (each read asks the database); the stores'
 * tenancy repositories extend it. Writing a key is an upsert, in each dialect's own words (`upsertApiKey`).
 */
export abstract class SqlApiKeyStore implements Pick<TenancyStore, "listApiKeys" | "findApiKey" | "putApiKey"> {
  constructor(
    private readonly keysDb: SqlDatabase,
    private readonly keyTables: { readonly apiKeys: ApiKeysTable; readonly users: UserKeysTable },
  ) {}

  /** Inserts the key `id`, or sets `row` on it when it is stored already. */
  protected abstract upsertApiKey(id: string, row: ApiKeyRow): Promise<void>;

  /** The columns of an ApiKeyRecord. */
  private selectApiKeys() {
    const { apiKeys } = this.keyTables;
    return this.keysDb
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

  async listApiKeys(email: string): Promise<ApiKeyRecord[]> {
    const rows = await this.selectApiKeys().where(eq(this.keyTables.apiKeys.userEmailKey, emailKey(email)));
    return sortByCodeUnits(rows.map(deepFreeze), (apiKey) => apiKey.id);
  }

  async findApiKey(id: string): Promise<ApiKeyRecord | null> {
    const [row] = await this.selectApiKeys().where(eq(this.keyTables.apiKeys.id, id));
    return row ? deepFreeze(row) : null;
  }

  async putApiKey(apiKey: ApiKeyRecord): Promise<void> {
    const { users } = this.keyTables;
    const key = emailKey(apiKey.userEmail);
    // The foreign key refuses a key of a user removed meanwhile; checking first gives the reference's error.
    const [owner] = await this.keysDb.select({ emailKey: users.emailKey }).from(users).where(eq(users.emailKey, key));
    if (!owner) throw new Error(`user ${apiKey.userEmail} does not exist`);
    await this.upsertApiKey(apiKey.id, {
      userEmailKey: key,
      userEmail: apiKey.userEmail,
      keyHash: apiKey.keyHash,
      keySeed: apiKey.keySeed,
      createdAt: apiKey.createdAt,
      revokedAt: apiKey.revokedAt,
    });
  }
}
