import { sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Small named values kept across restarts (SettingsStore). */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});
