import { eq } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { SettingsStore } from "../../core/ports/index.ts";
import { settings } from "./settings.schema.ts";

export class LibsqlSettingsRepo implements SettingsStore {
  constructor(private readonly db: LibSQLDatabase) {}

  async get(key: string): Promise<string | null> {
    const [row] = await this.db.select({ value: settings.value }).from(settings).where(eq(settings.key, key));
    return row?.value ?? null;
  }

  async setIfAbsent(key: string, value: string): Promise<string> {
    await this.db.insert(settings).values({ key, value }).onConflictDoNothing();
    return (await this.get(key)) ?? value;
  }

  async set(key: string, value: string): Promise<void> {
    await this.db
      .insert(settings)
      .values({ key, value })
      .onConflictDoUpdate({ target: settings.key, set: { value } });
  }
}
