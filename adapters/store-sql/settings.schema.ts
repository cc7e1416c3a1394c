import type { ColumnKit, ColumnTypes } from "./sql-columns.ts";

/** Small named values kept across restarts (SettingsStore), shared by every node on the database. */
export function settingsTable<D extends ColumnTypes>(c: ColumnKit<D>) {
  return c.table("settings", { key: c.textKey("key"), value: c.text("value") });
}
