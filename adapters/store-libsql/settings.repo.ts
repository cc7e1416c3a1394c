import { and, eq, gte, lt, sql } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { SettingsStore } from "../../core/ports/index.ts";
import { settings } from "./settings.schema.ts";

export class LibsqlSettingsRepo implements SettingsStore {
  /** Read on every scheduler pass (the profile cursor, the clock): built once, not per call. */
  private readonly byKey;

  constructor(private readonly db: LibSQLDatabase) {
    this.byKey = db
      .select({ value: settings.value })
      .from(settings)
      .where(eq(settings.key, sql.placeholder("key")))
      .prepare();
  }

  async get(key: string): Promise<string | null> {
    const row = await this.byKey.get({ key });
    return row?.value ?? null;
  }

  async compareAndSet(key: string, expected: string | null, next: string): Promise<boolean> {
    if (expected === null) {
      const inserted = await this.db.insert(settings).values({ key, value: next }).onConflictDoNothing();
      return inserted.rowsAffected === 1;
    }
    const updated = await this.db
      .update(settings)
      .set({ value: next })
      .where(and(eq(settings.key, key), eq(settings.value, expected)));
    return updated.rowsAffected === 1;
  }

  async deleteIf(key: string, expected: string): Promise<boolean> {
    const deleted = await this.db.delete(settings).where(and(eq(settings.key, key), eq(settings.value, expected)));
    return deleted.rowsAffected === 1;
  }

  async keysStartingWith(prefix: string): Promise<string[]> {
    // A range of the primary key (LIKE would treat `_` and `%` in the prefix as patterns): every key that
    // starts with the prefix sorts at or after it and before the prefix followed by the largest character.
    const rows = await this.db
      .select({ key: settings.key })
      .from(settings)
      .where(and(gte(settings.key, prefix), lt(settings.key, `${prefix}\u{10FFFF}`)))
      .orderBy(settings.key);
    return rows.map((row) => row.key).filter((key) => key.startsWith(prefix));
  }

  async setIfAbsent(key: string, value: string): Promise<string> {
    await this.db.insert(settings).values({ key, value }).onConflictDoNothing();
    return (await this.get(key)) ?? value;
  }

  async set(key: string, value: string): Promise<void> {
    await this.db.insert(settings).values({ key, value }).onConflictDoUpdate({ target: settings.key, set: { value } });
  }
}
