import { filesTable } from "../store-sql/files.schema.ts";
import { postgresColumns } from "./postgres.dialect.ts";

/** The table of adapters/store-sql/files.schema.ts in PostgreSQL's columns. */
export const fileImports = filesTable(postgresColumns);
