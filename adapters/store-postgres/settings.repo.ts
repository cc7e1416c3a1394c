import { and, eq, sql } from "drizzle-orm";
import type { SettingsStore } from "../../core/ports/index.ts";
import type { PgDatabase } from "./database.ts";
import { settings } from "./settings.schema.ts";

/*
 * Leases and every change several nodes make to one key rest on the conditional writes below: each is one
 * statement, which PostgreSQL judges against the row as it is when the statement takes it (a writer that waited
 * for another re-checks its condition on the row the other committed), so two nodes never both win.
 */
export class PgSettingsRepo implements SettingsStore {
  constructor(private readonly db: PgDatabase) {}

  async get(key: string): Promise<string | null> {
    const [row] = await this.db.select({ value: settings.value }).from(settings).where(eq(settings.key, key));
    return row?.value ?? null;
  }

  async compareAndSet(key: string, expected: string | null, next: string): Promise<boolean> {
    if (expected === null) {
      const inserted = await this.db.insert(settings).values({ key, value: next }).onConflictDoNothing();
      return inserted.count === 1;
    }
    const updated = await this.db
      .update(settings)
      .set({ value: next })
      .where(and(eq(settings.key, key), eq(settings.value, expected)));
    return updated.count === 1;
  }

  async deleteIf(key: string, expected: string): Promise<boolean> {
    const deleted = await this.db.delete(settings).where(and(eq(settings.key, key), eq(settings.value, expected)));
    return deleted.count === 1;
  }

  async keysStartingWith(prefix: string): Promise<string[]> {
    // starts_with, not LIKE (which would take `_` and `%` in the prefix as patterns) nor a range of the key
    // (text compares by the database's collation, which need not be code-unit order); ordered here, as the
    // in-memory reference orders them (by UTF-16 code unit).
    const rows = await this.db
      .select({ key: settings.key })
      .from(settings)
      .where(sql`starts_with(${settings.key}, ${prefix})`);
    return rows.map((row) => row.key).sort();
  }

  /**
   * One statement that always answers the stored value: on a conflict it "updates" the row to its own value,
   * which locks it and returns it. (An insert that does nothing, then a read, could read the key after another
   * node's deleteIf removed it; a read in the same statement would not see a row committed after it began.)
   */
  async setIfAbsent(key: string, value: string): Promise<string> {
    const [kept] = await this.db
      .insert(settings)
      .values({ key, value })
      .onConflictDoUpdate({ target: settings.key, set: { value: sql`${settings.value}` } })
      .returning({ value: settings.value });
    return kept?.value ?? value;
  }

  async set(key: string, value: string): Promise<void> {
    await this.db.insert(settings).values({ key, value }).onConflictDoUpdate({ target: settings.key, set: { value } });
  }
}
