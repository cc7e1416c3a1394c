import { pgTable, text } from "drizzle-orm/pg-core";

/** Small named values kept across restarts (SettingsStore), shared by every node on the database. */
export const settings = pgTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});
