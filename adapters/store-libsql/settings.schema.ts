import { settingsTable } from "../store-sql/settings.schema.ts";
import { libsqlColumns } from "./libsql.dialect.ts";

/** The table of adapters/store-sql/settings.schema.ts in SQLite's columns. */
export const settings = settingsTable(libsqlColumns);
