import { settingsTable } from "../store-sql/settings.schema.ts";
import { postgresColumns } from "./postgres.dialect.ts";

/** The table of adapters/store-sql/settings.schema.ts in PostgreSQL's columns. */
export const settings = settingsTable(postgresColumns);
